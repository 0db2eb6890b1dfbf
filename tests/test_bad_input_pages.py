"""Bad input on the pages: whatever string a directive writes, from a results file or a saved
diagnosis, reaches the page as text, never as the page's own syntax: not a snippet line that
includes a file, not a character that turns the text around unseen. Each test is named by the
behaviour it holds the code to."""

from __future__ import annotations

import html
import json
import shutil

import markdown as python_markdown
import pytest

from conftest import REPO
from tfspeedlab.diagnosis.report import function_report
from tfspeedlab.diagnosis.saved import load as load_diagnosis
from tfspeedlab.render import markdown
from tfspeedlab.render.registry import REGISTRY, directive
from tfspeedlab.site.markdown_ext import DirectiveBuildError

# The Markdown extensions of mkdocs.yml that read lines as syntax, in its order.
EXTENSIONS = ["tfspeedlab.site.markdown_ext", "admonition", "attr_list", "md_in_html", "tables",
              "pymdownx.superfences", "pymdownx.tabbed", "pymdownx.snippets"]


def page_html(page: str, snippets_base) -> str:
    """``page`` rendered as the site renders it, snippets read from ``snippets_base`` (a missing one
    fails, as ``check_paths`` makes it in mkdocs.yml)."""
    return python_markdown.markdown(page, extensions=EXTENSIONS, extension_configs={
        "pymdownx.tabbed": {"alternate_style": True},
        "pymdownx.snippets": {"base_path": [str(snippets_base)], "check_paths": True}})


@pytest.fixture
def scratch():
    """Directives registered by a test, removed after it: the registry is the site's own."""
    before = dict(REGISTRY)
    yield
    REGISTRY.clear()
    REGISTRY.update(before)


@pytest.fixture
def empty_results(tmp_path, monkeypatch):
    """A results tree with nothing measured, which the build reads."""
    root = tmp_path / "results"
    for runner in ("cpu", "gpu"):
        (root / runner).mkdir(parents=True)
    monkeypatch.setenv("TFSPEEDLAB_RESULTS", str(root))
    return root


# Every form pymdownx.snippets reads: a file, a block of files, a section marker (its line is dropped),
# the shortest marker, and an escaped line (shown without its ";").
SNIPPET_SYNTAX = ['--8<-- "secret.txt"', "--8<--", "secret.txt", "--8<--", "a line --8<-- [start:part] kept",
                  '-8<- "secret.txt"', ';--8<-- "secret.txt"']


def test_a_line_a_directive_writes_is_never_read_as_a_snippet_line(scratch, empty_results, tmp_path):
    # A file under results/ whose content nothing checks (a trace) would close the code block and publish HTML.
    (tmp_path / "secret.txt").write_text("SECRET\n```\n\n<img src=x onerror=alert(1)>\n")
    (tmp_path / "included.md").write_text("Included as the page asked.\n")

    @directive("test_hostile_block", "A test directive.")
    def hostile(context) -> str:
        return "```text\n" + "\n".join(SNIPPET_SYNTAX) + "\n```"

    page = page_html('{{ test_hostile_block }}\n\n--8<-- "included.md"\n', tmp_path)
    assert "SECRET" not in page and "<img" not in page
    assert "\n".join(SNIPPET_SYNTAX) in html.unescape(page)  # every line shown as the directive wrote it
    assert "<p>Included as the page asked.</p>" in page  # the page's own snippet line still includes


def test_a_directive_on_a_line_snippets_takes_for_its_own_stops_the_build_naming_it(scratch, empty_results, tmp_path):
    @directive("test_plain", "A test directive.")
    def plain(context) -> str:
        return "figure"

    # pymdownx.snippets drops a section marker's line: the directive on it would vanish unseen.
    with pytest.raises(DirectiveBuildError, match=r"index\.md: '\{\{ test_plain \}\}' sits on a line pymdownx"):
        page_html("Before --8<-- [start:part] {{ test_plain }}\n", tmp_path)


def test_a_saved_diagnosis_cannot_include_a_file_into_the_diagnose_page(tmp_path, monkeypatch):
    """The issue's case without a line break: a reason long enough that the report's wrapping puts
    ``--8<-- "pyproject.toml"`` on a line of its own, inside the page's code block."""
    root = tmp_path / "results"
    shutil.copytree(REPO / "results" / "cpu" / "diagnose", root / "cpu" / "diagnose")
    (root / "gpu").mkdir()
    path = root / "cpu" / "diagnose" / "small_ops.json"
    data = json.loads(path.read_text())
    data["diagnosis"]["skipped"] = {"host split": "x" * 75 + ' --8<-- "pyproject.toml" ' + "y" * 70}
    path.write_text(json.dumps(data))
    monkeypatch.setenv("TFSPEEDLAB_RESULTS", str(root))
    # What the terminal printed holds the snippet line as written (two spaces in, as a wrapped line).
    assert '  --8<-- "pyproject.toml"' in function_report(load_diagnosis(path).diagnosis).body.splitlines()
    page = page_html("{{ diagnosis small_ops }}", REPO)
    assert "setuptools.build_meta" not in page  # pyproject.toml's content
    assert '\n  --8<-- "pyproject.toml"\n' in html.unescape(page)


def test_a_bidirectional_or_zero_width_character_reaches_the_page_written_out(scratch, empty_results, tmp_path):
    label = "gra\u202eph\u200b"

    @directive("test_label", "A test directive.")
    def label_everywhere(context) -> str:
        return f"A label: {markdown.text(label)}; as code: {markdown.code(label)}\n\n```text\n{label}\n```"

    page = page_html("{{ test_label }}", tmp_path)
    assert "\u202e" not in page and "\u200b" not in page
    # In prose, a code span and a code block alike.
    assert html.unescape(page).count("gra\u27e8U+202E\u27e9ph\u27e8U+200B\u27e9") == 3
