"""Every interval explains itself where it is read (issue 42): its tooltip in prose and in a table
cell, its column's header in a table, and a link from each page's first interval, in document order,
to the how-to-read note.

The treeprocessor (``tfspeedlab.site.tooltips``) on small Markdown inputs, then the built site:
the checks read the built HTML with the same interval forms (``tfspeedlab.site.interval_forms``)
the treeprocessor uses, so an interval it missed is one these find bare.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest

from tfspeedlab.core import wording
from tfspeedlab.core.stats.intervals import Estimate, Ratio
from tfspeedlab.core.stats.summary import COLUMNS
from tfspeedlab.render.markdown import text
from tfspeedlab.site import interval_forms as forms, tooltips
from tfspeedlab.site.interval_forms import find_intervals
from tfspeedlab.site.tooltips import COLUMN_TITLES, note_link

NBSP = "\u00a0"
NOTE = f"{forms.NOTE_PAGE}#{forms.NOTE_ANCHOR}"


def convert(text: str, page: str = "page.md") -> str:
    """``text`` through the site's extension, as a page at ``page`` would be."""
    md = markdown.Markdown(extensions=["tfspeedlab.site.markdown_ext", "tables", "admonition", "attr_list"])
    extension = md.treeprocessors["tfspeedlab_interval_tooltips"]
    extension.page_uri = lambda: page
    return md.convert(text)


def titled(text: str, title: str) -> str:
    """An interval in prose or a bracket in a cell, as the treeprocessor wraps it (a header's text has no class)."""
    return f'<abbr class="tfsl-interval" title="{title}">{text}</abbr>'


def titled_in_cell(text: str, title: str) -> str:
    """A phrase in a table cell: its title, without the class that keeps it on one line."""
    return f'<abbr title="{title}">{text}</abbr>'


def header(text: str, title: str) -> str:
    return f'<abbr title="{title}">{text}</abbr>'


# ------------------------------------------------------------ the forms


@pytest.mark.parametrize("text, found, form", [
    (f"10.8×{NBSP}faster [9.78–12.0×]", "[9.78–12.0×]", "factor bracket"),
    ("[16,900–20,500×]", "[16,900–20,500×]", "factor bracket"),
    (f"0.353{NBSP}ms [0.330–0.380{NBSP}ms]", f"[0.330–0.380{NBSP}ms]", "amount bracket"),
    (f"grows 12{NBSP}KiB per{NBSP}call [10–14{NBSP}KiB]", f"[10–14{NBSP}KiB]", "amount bracket"),
    (f"+12.7{NBSP}KiB [12.7{NBSP}KiB–32.4{NBSP}KiB]", f"[12.7{NBSP}KiB–32.4{NBSP}KiB]", "amount bracket"),
    ("about 9.4 [8.1–11] ops", "[8.1–11]", "amount bracket"),
    (f"[−3.1–−1.2{NBSP}ms]", f"[−3.1–−1.2{NBSP}ms]", "amount bracket"),
    ("no clear difference (1.25× slower to 1.10×\nfaster)", "(1.25× slower to 1.10×\nfaster)", "range holding 1×"),
    (f"inconclusive here (1.25×{NBSP}slower to 1.10×{NBSP}faster).", f"(1.25×{NBSP}slower to 1.10×{NBSP}faster)",
     "range holding 1×"),
    # Parentheses that hold more than the range stay outside the tooltip.
    ("(1.44× slower to 1.69× faster for Keras 2)", "1.44× slower to 1.69× faster", "range holding 1×"),
    ("was the same within 3%.", "the same within 3%", "within a percentage"),
    (f"inconclusive here (−3.0{NBSP}KiB to 9.1{NBSP}KiB per{NBSP}call)",
     f"(−3.0{NBSP}KiB to 9.1{NBSP}KiB per{NBSP}call)", "growth that holds zero"),
    (f"no growth (−42{NBSP}B to 206{NBSP}B per{NBSP}call, within 1.00{NBSP}KiB of none)",
     f"−42{NBSP}B to 206{NBSP}B per{NBSP}call", "growth that holds zero"),
    (f"steady within 200{NBSP}B per{NBSP}call", f"steady within 200{NBSP}B per{NBSP}call", "steady within"),
])
def test_each_form_of_interval_is_found(text, found, form):
    assert [(one.text, one.form.name) for one in find_intervals(text)] == [(found, form)]


@pytest.mark.parametrize("phrase", [
    wording.format_speedup(Ratio(10.8, 9.78, 12.0)), wording.format_speedup(Ratio(1 / 2.2, 1 / 2.5, 1 / 2.0)),
    wording.format_speedup(Ratio(1.02, 0.98, 1.05)), wording.format_speedup(Ratio(1.2, 0.1, 2.5)),
    wording.format_change(Ratio(0.5, 0.45, 0.55)), wording.format_change(Ratio(1.01, 0.95, 1.08)),
    wording.time_with_interval(Estimate(0.000353, 0.000330, 0.000380)),
    wording.time_with_interval(Estimate(-0.002, -0.0031, -0.0012)),
    wording.number_with_interval(Estimate(9.4, 8.1, 11.0)),
    wording.format_growth(Estimate(12_600, 10_300, 14_800)), wording.format_growth(Estimate(3000, -3000, 9300)),
    wording.format_growth(Estimate(80, -43, 207)), wording.growth_cell(Estimate(12_600, 10_300, 14_800)),
    wording.growth_cell(Estimate(3000, -3000, 9300)),
])
def test_every_interval_the_wording_module_prints_is_found(phrase):
    """What is left of a phrase without the intervals found holds no range: no en dash between two
    figures, no "X to Y" of two figures."""
    rest = phrase
    for one in reversed(list(find_intervals(phrase))):
        rest = rest[:one.start] + " " + rest[one.end:]
    assert "–" not in rest and not re.search(r"\d\S*\s+to\s+\S*\d", rest), (phrase, rest)


@pytest.mark.parametrize("text", [
    "9.85× to 26.4× faster on 4 CPU models",  # a range over CPU models, not an interval
    "790 MiB to about 7.8 GB",
    "TensorFlow 2.12 to 2.21",
    "a [link] and [1, 2]",
])
def test_what_is_not_an_interval_is_left_alone(text):
    assert list(find_intervals(text)) == []


def test_every_title_is_short_and_says_what_the_interval_is():
    titles = [forms.FACTOR_TITLE, forms.AMOUNT_TITLE, forms.INCONCLUSIVE_TITLE, forms.SAME_WITHIN_TITLE,
              forms.GROWTH_UNCLEAR_TITLE, forms.STEADY_WITHIN_TITLE]
    for title in titles:
        assert "95% interval" in title and len(title.split()) <= 40, title
        assert len(re.findall(r"[.!?](?:\s|$)", title)) <= 2, title
    assert {form.title for form in forms.FORMS} == set(titles)


# ------------------------------------------------------------ the treeprocessor


def test_a_bracket_in_prose_gets_its_title_and_the_first_links_to_the_note():
    html = convert(f"It ran 10.8×{NBSP}faster [9.78–12.0×] and took 0.353{NBSP}ms [0.330–0.380{NBSP}ms].")
    assert f'<a href="{NOTE}">{titled("[9.78–12.0×]", forms.FACTOR_TITLE)}</a>' in html
    assert titled(f"[0.330–0.380{NBSP}ms]", forms.AMOUNT_TITLE) in html
    assert html.count("<a ") == 1
    assert html.startswith("<p>It ran 10.8×") and html.endswith("</abbr>.</p>")


def test_each_form_gets_its_own_title_in_lists_and_admonitions():
    html = convert("!!! success \"The answer\"\n"
                   "    * It was inconclusive here (1.25× slower to 1.10× faster).\n"
                   "    * It was the same within 3%.\n"
                   f"    * Memory stayed steady within 200{NBSP}B per{NBSP}call.\n")
    assert titled("(1.25× slower to 1.10× faster)", forms.INCONCLUSIVE_TITLE) in html
    assert titled("the same within 3%", forms.SAME_WITHIN_TITLE) in html
    assert titled(f"steady within 200{NBSP}B per{NBSP}call", forms.STEADY_WITHIN_TITLE) in html


def test_the_non_breaking_space_of_the_wording_module_is_taken():
    html = convert(f"Inconclusive here (1.25×{NBSP}slower to 1.10×{NBSP}faster), and 2.0×{NBSP}faster "
                   f"[1.9–2.1×], and 12{NBSP}KiB [10{NBSP}KiB–14{NBSP}KiB].")
    assert html.count("<abbr ") == 3


def test_code_and_preformatted_text_are_left_alone():
    html = convert("Write `[1.0–2.0×]` as it is.\n\n    [1.0–2.0×] in a code block\n\n<pre>[1.0–2.0×]</pre>\n")
    assert "<abbr" not in html and "<a " not in html
    assert "<code>[1.0–2.0×]</code>" in html


def test_an_interval_inside_a_link_is_titled_but_the_note_link_goes_to_the_next():
    html = convert("See [the table, 2.0× faster [1.9–2.1×]](other.md). Then 3.0× faster [2.9–3.1×].")
    assert f'<a href="other.md">the table, 2.0× faster {titled("[1.9–2.1×]", forms.FACTOR_TITLE)}</a>' in html
    assert f'<a href="{NOTE}">{titled("[2.9–3.1×]", forms.FACTOR_TITLE)}</a>' in html


def test_intervals_split_by_markup_are_each_found_and_the_text_between_is_kept():
    html = convert("A **2.0× faster [1.9–2.1×]** step, then [3.0–4.0×] and *[5.0–6.0×]* here.")
    assert html.count("<abbr ") == 3
    assert re.sub(r"<[^>]+>", "", html) == "A 2.0× faster [1.9–2.1×] step, then [3.0–4.0×] and [5.0–6.0×] here."


def test_each_interval_in_a_table_cell_has_its_title_and_its_columns_header_too():
    html = convert("| Case | Speed-up | Growth | Per call | Note |\n| --- | --: | --: | --: | --- |\n"
                   "| a | 2.0× faster [1.9–2.1×] | +12 KiB [10 KiB–14 KiB] | 1 ms | plain |\n"
                   "| b | inconclusive here (1.1× slower to 1.2× faster) | steady within 200 B per call | 2 ms | x |\n")
    assert "<th>Case</th>" in html
    assert header("Speed-up", forms.FACTOR_TITLE) in html
    assert header("Growth", forms.AMOUNT_TITLE) in html
    assert header("Per call", COLUMN_TITLES["Per call"]) in html
    assert "<th>Note</th>" in html
    # The table's first interval is the page's first: it links to the note.
    assert f'<td style="text-align: right;">2.0× faster <a href="{NOTE}">{titled("[1.9–2.1×]", forms.FACTOR_TITLE)}</a></td>' in html
    assert titled("[10 KiB–14 KiB]", forms.AMOUNT_TITLE) in html
    # A range may wrap in its narrow column, but once only, after its "to": each side is kept whole
    # (at 390 px it stood on three lines, "(1.38× slower" / "to" / "1.22× faster)").
    assert titled_in_cell('<span class="tfsl-interval">(1.1× slower to</span> '
                          '<span class="tfsl-interval">1.2× faster)</span>', forms.INCONCLUSIVE_TITLE) in html
    # A phrase with no "to" may wrap between its words: titled, without the class.
    assert titled_in_cell("steady within 200 B per call", forms.STEADY_WITHIN_TITLE) in html
    assert html.count("<abbr ") == 3 + 4 and html.count("<a ") == 1
    assert "<td>plain</td>" in html and '<td style="text-align: right;">1 ms</td>' in html


def test_a_grids_workload_headers_keep_their_names_and_its_first_header_explains_the_intervals():
    """Readers hovered "matmul 64" to learn the workload and met statistics: in a grid of a column per
    workload, the interval's tooltip sits once, on the first header."""
    html = convert("| Setting | matmul 64 | predict · batch 1 | training step |\n| --- | --- | --- | --- |\n"
                   "| one thread | 2.0× faster [1.9–2.1×] | 1.5× slower [1.4–1.6×] | the same within 5% |\n")
    assert header("Setting", tooltips.GRID_TITLE_PREFIX + forms.FACTOR_TITLE) in html
    assert "<th>matmul 64</th>" in html and "<th>predict · batch 1</th>" in html and "<th>training step</th>" in html
    # Two columns are no grid: each header keeps its own.
    two = convert("| Case | Slower | Faster |\n| --- | --- | --- |\n| a | 1.5× slower [1.4–1.6×] | 2.0× faster [1.9–2.1×] |\n")
    assert header("Slower", forms.FACTOR_TITLE) in two and header("Faster", forms.FACTOR_TITLE) in two


def test_a_growth_range_in_a_cell_breaks_only_after_its_to_and_prose_keeps_a_range_whole():
    html = convert("| Case | Growth |\n| --- | --: |\n| a | inconclusive here (−3.0 KiB to 9.1 KiB) |\n\n"
                   "It was inconclusive here (1.1× slower to 1.2× faster).\n")
    assert titled_in_cell('<span class="tfsl-interval">(−3.0 KiB to</span> '
                          '<span class="tfsl-interval">9.1 KiB)</span>', forms.GROWTH_UNCLEAR_TITLE) in html
    assert titled("(1.1× slower to 1.2× faster)", forms.INCONCLUSIVE_TITLE) in html


def test_a_cell_interval_in_a_link_is_titled_and_the_note_link_goes_to_the_next():
    html = convert("| Case | Speed-up |\n| --- | --- |\n| a | [2.0× faster [1.9–2.1×]](other.md) |\n"
                   "| b | 3.0× faster [2.9–3.1×] |\n")
    assert f'<a href="other.md">2.0× faster {titled("[1.9–2.1×]", forms.FACTOR_TITLE)}</a>' in html
    assert f'<a href="{NOTE}">{titled("[2.9–3.1×]", forms.FACTOR_TITLE)}</a>' in html


def test_an_escaped_bracket_is_read_as_the_page_shows_it():
    """Table cells come from ``render.markdown.text``, which escapes ``[``: the header is still titled."""
    cell = text(f"2.0×{NBSP}faster [1.9–2.1×]")
    assert "\\[" in cell
    html = convert(f"| Case | Speed-up |\n| --- | --: |\n| a | {cell} |\n\nIn prose, {cell}.")
    assert header("Speed-up", forms.FACTOR_TITLE) in html
    assert f'<a href="{NOTE}">{titled("[1.9–2.1×]", forms.FACTOR_TITLE)}</a>' in html  # the table's, first
    assert html.count(titled("[1.9–2.1×]", forms.FACTOR_TITLE)) == 2  # and the prose's


def test_the_summary_tables_columns_named_for_a_title_are_its_columns():
    assert set(COLUMN_TITLES) <= set(COLUMNS)


@pytest.mark.parametrize("page, link", [("index.md", NOTE), ("small-ops.md", NOTE),
                                        ("notebooks/small_ops.ipynb", f"../{NOTE}"),
                                        (forms.NOTE_PAGE, f"#{forms.NOTE_ANCHOR}")])
def test_the_note_link_is_relative_to_the_page(page, link):
    assert note_link(page) == link


def test_one_note_link_per_page_even_when_the_first_interval_is_late():
    html = convert("No figures here.\n\nStill none.\n\n* 2.0× faster [1.9–2.1×]\n* 3.0× faster [2.9–3.1×]\n")
    assert html.count(f'<a href="{NOTE}">') == 1 and html.index("<a ") < html.index("[2.9–3.1×]")


def test_the_note_link_is_on_the_first_interval_in_document_order_whether_box_table_or_prose():
    """A reader meets the answer box first, then perhaps a table, before any interval in running text."""
    box = convert("!!! success \"The answer\"\n    It was 2.0× faster [1.9–2.1×].\n\n"
                  "| Case | Speed-up |\n| --- | --- |\n| a | 3.0× faster [2.9–3.1×] |\n\nThen [4.0–5.0×].\n")
    table_first = convert("No figures yet.\n\n| Case | Speed-up |\n| --- | --- |\n| a | 3.0× faster [2.9–3.1×] |\n\n"
                          "Then 4.5× faster [4.0–5.0×].\n")
    for html, first in ((box, "[1.9–2.1×]"), (table_first, "[2.9–3.1×]")):
        assert html.count(f'<a href="{NOTE}">') == 1
        assert f'<a href="{NOTE}">{titled(first, forms.FACTOR_TITLE)}</a>' in html


# ------------------------------------------------------------ the built site


# Not text a reader reads as the page's: code, listings, drawings.
_NOT_PROSE = frozenset({"pre", "code", "script", "style", "svg", "textarea", "kbd", "samp"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
# Where one block of text ends: an interval never runs across one.
_BLOCKS = frozenset({"p", "li", "div", "td", "th", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "details",
                     "summary", "dt", "dd", "blockquote", "figcaption", "ul", "ol"})
_BREAK = "\x00"


@dataclass
class Cell:
    header: bool
    text: str = ""
    titled: bool = False


@dataclass
class BuiltPage:
    """A built page's article: its text in document order (prose and table cells alike), each piece
    with whether an element around it has a title and which link it is in; and its tables, cell by
    cell."""

    prose: list[tuple[str, bool, str | None]] = field(default_factory=list)
    tables: list[list[list[Cell]]] = field(default_factory=list)


class _ArticleReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = BuiltPage()
        self.open: list[tuple[str, dict]] = []
        self.cell: Cell | None = None

    def _inside(self, tags) -> bool:
        return any(tag in tags for tag, _ in self.open)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in _BLOCKS:
            self.page.prose.append((_BREAK, True, None))
        if tag == "table" and not self._inside({"table"}):
            self.page.tables.append([])
        elif tag == "tr" and self.page.tables and self._inside({"table"}):
            self.page.tables[-1].append([])
        elif tag in ("td", "th") and self._inside({"table"}) and self.page.tables[-1]:
            self.cell = Cell(header=tag == "th", titled=bool(attributes.get("title")))
            self.page.tables[-1][-1].append(self.cell)
        elif self.cell is not None and attributes.get("title"):
            self.cell.titled = True
        if tag not in _VOID:
            self.open.append((tag, attributes))

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.cell = None
        if tag in _BLOCKS:
            self.page.prose.append((_BREAK, True, None))
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index][0] == tag:
                del self.open[index:]
                break

    def handle_data(self, data):
        if not self._inside({"article"}) or self._inside(_NOT_PROSE):
            return
        if self.cell is not None:
            self.cell.text += data
        elif self._inside({"table"}):  # between a table's cells: no text of its own
            return
        has_title = any(attributes.get("title") for _, attributes in self.open)
        link = next((attributes.get("href") for tag, attributes in reversed(self.open) if tag == "a"), None)
        self.page.prose.append((data, has_title, link))


def read_built(html: str) -> BuiltPage:
    reader = _ArticleReader()
    reader.feed(html)
    reader.close()
    return reader.page


@dataclass(frozen=True)
class ProseInterval:
    text: str
    titled: bool
    link: str | None


def prose_intervals(page: BuiltPage) -> list[ProseInterval]:
    """Each interval in the page's text, table cells included, in document order: whether every piece
    of it has a title around it, and the link it is in."""
    text = "".join(piece for piece, _, _ in page.prose)
    starts, position = [], 0
    for piece, _, _ in page.prose:
        starts.append(position)
        position += len(piece)
    found = []
    for one in find_intervals(text):
        pieces = [page.prose[index] for index, start in enumerate(starts)
                  if start < one.end and start + len(page.prose[index][0]) > one.start]
        found.append(ProseInterval(one.text, all(has_title for _, has_title, _ in pieces), pieces[0][2]))
    return found


def untitled_columns(page: BuiltPage) -> list[str]:
    """The header of each table column whose cells hold an interval but whose header has no title."""
    missing = []
    for table in page.tables:
        if not table or not all(cell.header for cell in table[0]):
            continue
        holding = {column for row in table[1:] for column, cell in enumerate(row)
                   if not cell.header and column < len(table[0]) and any(True for _ in find_intervals(cell.text))}
        if len(holding) >= tooltips.GRID_COLUMNS and 0 not in holding and table[0][0].titled:
            continue  # a grid: its first header explains every column's intervals
        missing += [" ".join(table[0][column].text.split()) or f"column {column + 1}"
                    for column in holding if not table[0][column].titled]
    return sorted(set(missing))


def is_note_link(href: str | None, page: Path) -> bool:
    return href is not None and (href.endswith(f"fair-timing/#{forms.NOTE_ANCHOR}")
                                 or (page.parent.name == "fair-timing" and href == f"#{forms.NOTE_ANCHOR}"))


def built_pages(site: Path) -> list[Path]:
    return [page for page in sorted(site.rglob("index.html")) if not {"search", "assets"} & set(page.parts)]


def test_the_reader_finds_a_bare_interval_a_titled_one_and_an_untitled_column():
    page = read_built("<article><p>It ran <a href='../fair-timing/#how-to-read-an-interval'><abbr title='t'>"
                      "[1.9–2.1×]</abbr></a>, then [2.9–3.1×].</p><pre>[0.1–0.2×]</pre>"
                      "<table><tr><th>Case</th><th title='t'>Speed-up</th><th>Change</th></tr>"
                      "<tr><td>a</td><td>2.0× faster <abbr title='t'>[1.9–2.1×]</abbr></td>"
                      "<td>the same within 3%</td></tr></table></article>")
    assert prose_intervals(page) == [ProseInterval("[1.9–2.1×]", True, "../fair-timing/#how-to-read-an-interval"),
                                     ProseInterval("[2.9–3.1×]", False, None),
                                     ProseInterval("[1.9–2.1×]", True, None),
                                     ProseInterval("the same within 3%", False, None)]
    assert untitled_columns(page) == ["Change"]


def test_every_interval_of_every_page_in_prose_or_a_table_cell_has_its_tooltip(committed_site):
    bare = [f"{page.relative_to(committed_site).parent}: {found.text!r}"
            for page in built_pages(committed_site)
            for found in prose_intervals(read_built(page.read_text(encoding="utf-8"))) if not found.titled]
    assert not bare, bare[:20]


def test_every_table_column_of_intervals_has_a_header_with_its_tooltip(committed_site):
    missing = [f"{page.relative_to(committed_site).parent}: {header}"
               for page in built_pages(committed_site)
               for header in untitled_columns(read_built(page.read_text(encoding="utf-8")))]
    assert not missing, missing[:20]


def test_each_pages_first_interval_in_document_order_links_to_the_note(committed_site):
    """The first a reader meets: in the answer box, a table cell or prose, whichever comes first."""
    unlinked, pages_with_intervals = [], 0
    for page in built_pages(committed_site):
        found = [one for one in prose_intervals(read_built(page.read_text(encoding="utf-8")))
                 if one.link is None or is_note_link(one.link, page)]  # one in another link cannot be linked
        if found:
            pages_with_intervals += 1
            if not is_note_link(found[0].link, page):
                unlinked.append(f"{page.relative_to(committed_site).parent}: {found[0].text!r}")
    assert pages_with_intervals >= 10 and not unlinked, unlinked
    note = (committed_site / "fair-timing" / "index.html").read_text(encoding="utf-8")
    assert f'id="{forms.NOTE_ANCHOR}"' in note
