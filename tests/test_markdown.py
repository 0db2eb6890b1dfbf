"""Markdown built from data: whatever a results file holds is shown as text, never obeyed as markup."""

import html as html_module
import re

import markdown as python_markdown
import pytest

from tfspeedlab.render import markdown as md

HOSTILE = "<img src=x onerror=alert(1)>"


def html_of(text: str) -> str:
    """What MkDocs would make of the Markdown (the tables extension is on for every page)."""
    return python_markdown.markdown(text, extensions=["tables"])


def visible_text(html: str) -> str:
    """The characters a reader sees: tags dropped, entities decoded."""
    return html_module.unescape(re.sub(r"<[^>]+>", "", html)).strip()


@pytest.mark.parametrize("value", [
    "a|b", HOSTILE, "*bold*", "_italic_", "[link](https://example.com)", "`code`", "a\\b", "AT&T", "**x** and __y__",
])
def test_text_is_shown_exactly_as_written(value):
    html = html_of(md.text(value))
    assert visible_text(html) == value
    # No markup came out of it: only the paragraph the text sits in.
    assert re.findall(r"<(\w+)", html) == ["p"], html


def test_text_escapes_each_markup_character():
    escaped = md.text("|*_[]`")
    for character in "|*_[]`":
        assert f"\\{character}" in escaped
    # The HTML tag can no longer open: its angle brackets are entities.
    assert "<" not in md.text(HOSTILE) and ">" not in md.text(HOSTILE)


def test_markdown_values_pass_unchanged():
    already = md.Markdown("**bold** `code` <br>")
    assert md.text(already) == already and md.text(already) is already
    assert md.join("a*", md.bold("b"), md.Markdown("*c*")) == "a\\***b***c*"


@pytest.mark.parametrize("value", ["plain", "a`b", "a``b`c", "`starts", "ends`", "``", "x|y <b>"])
def test_code_is_one_code_span_holding_the_value(value):
    html = html_of(md.code(value))
    spans = re.findall(r"<code>(.*?)</code>", html, re.DOTALL)
    assert len(spans) == 1, html
    # A leading or trailing backtick needs a padding space, which the renderer strips again.
    assert visible_text(spans[0]) == value
    assert visible_text(html) == value


@pytest.mark.parametrize("line_break", ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"])
def test_code_stays_on_one_line_whatever_breaks_the_value(line_break):
    # A carriage return in a code span once ended it where Python-Markdown reads it as a line break
    # (after the directives ran), and the rest of the line was published as HTML.
    span = md.code(f"boom{line_break}{HOSTILE}")
    assert span.splitlines() == [span] and span == f"`boom {HOSTILE}`"
    assert "<img" not in html_of(f"It failed with {span}.")


def test_table_refuses_a_row_of_the_wrong_width():
    with pytest.raises(ValueError, match="a row of 3 cells in a table of 2 columns"):
        md.table(["a", "b"], [["1", "2"], ["1", "2", "3"]])
    with pytest.raises(ValueError, match="row of 1 cells"):
        md.table(["a", "b"], [["1"]])


def test_table_refuses_the_wrong_number_of_alignments():
    with pytest.raises(ValueError, match="2 columns but 3 alignments"):
        md.table(["a", "b"], [], [md.LEFT, md.RIGHT, md.RIGHT])
    with pytest.raises(ValueError, match="2 columns but 1 alignments"):
        md.table(["a", "b"], [], [md.LEFT])


def cells_of(html: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.DOTALL)
    return [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.DOTALL) for row in rows]


def test_a_hostile_cell_stays_in_its_cell_and_reads_as_text():
    hostile = f"{HOSTILE} | *x* [y](z) `w`"
    table = md.table(["Case", "Median"], [[hostile, "1.00 ms"], ["graph", md.code("a|b")]],
                     [md.LEFT, md.RIGHT])
    html = html_of(table)
    assert "<img" not in html and "<em>" not in html and "<a " not in html
    cells = cells_of(html)
    assert len(cells) == 3 and all(len(row) == 2 for row in cells), cells
    assert [visible_text(cell) for cell in cells[1]] == [hostile, "1.00 ms"]
    # A pipe inside a code span does not split its cell either.
    assert cells[2][1] == "<code>a|b</code>"
    assert re.findall(r"<th((?: [^>]*)?)>", html) == ["", ' style="text-align: right;"']


def test_a_newline_in_a_cell_does_not_end_the_row():
    html = html_of(md.table(["Case", "Median"], [["two\n| forged | row", "1 ms"]]))
    cells = cells_of(html)
    assert len(cells) == 2, cells  # the header and the one row given
