"""Material's conventions a reader expects, on the built site: an edit button to each page's source,
back to top, search suggestions, and a glossary whose terms carry their definition as a tooltip.

The glossary is ``docs/includes/glossary.md``: Python-Markdown's ``abbr`` definitions, appended to every
page by ``pymdownx.snippets`` and shown by Material's ``content.tooltips``; no page of its own.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as etree
from html.parser import HTMLParser
from pathlib import Path

import markdown
import yaml

from conftest import REPO
from tfspeedlab.site import notebook_pages

GLOSSARY = REPO / "docs" / "includes" / "glossary.md"
DEFINITION = re.compile(r"\*\[(?P<term>[^\]]+)\]: (?P<title>\S.*)")
EDIT_BUTTON = re.compile(r'<a href="(?P<href>[^"]+)" title="[^"]*" class="md-content__button md-icon" rel="edit">')


def glossary() -> dict[str, str]:
    return {found["term"]: found["title"] for found in map(DEFINITION.fullmatch, GLOSSARY.read_text().splitlines())}


def config() -> dict:
    return yaml.load((REPO / "mkdocs.yml").read_text(), Loader=_Loader)


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's own tags (``!relative``) read as plain values."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


class _Abbreviations(HTMLParser):
    """Each ``<abbr title=…>`` of a page: its title and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []
        self._open: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "abbr":
            self._open.append([dict(attrs).get("title") or "", ""])

    def handle_endtag(self, tag):
        if tag == "abbr" and self._open:
            title, text = self._open.pop()
            self.found.append((title, text))

    def handle_data(self, data):
        for opened in self._open:
            opened[1] += data


def abbreviations(page: Path) -> list[tuple[str, str]]:
    parser = _Abbreviations()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.found


def guide_pages(site: Path) -> list[Path]:
    return [page for page in sorted(site.rglob("index.html"))
            if not {"search", "assets", "notebooks"} & set(page.relative_to(site).parts)]


def test_the_glossary_holds_definitions_only_and_is_appended_to_every_page():
    lines = GLOSSARY.read_text().splitlines()
    assert lines and all(DEFINITION.fullmatch(line) for line in lines), [l for l in lines if not DEFINITION.fullmatch(l)]
    assert {"XLA", "oneDNN", "Grappler", "AutoGraph", "95% interval"} <= set(glossary())
    extensions = config()["markdown_extensions"]
    names = [next(iter(item)) if isinstance(item, dict) else item for item in extensions]
    # After the figures' extension, whose interval tooltips come first (see tooltips.GlossaryInsideTitles).
    assert names.index("abbr") > names.index("tfspeedlab.site.markdown_ext")
    snippets = next(item["pymdownx.snippets"] for item in extensions if isinstance(item, dict) and "pymdownx.snippets" in item)
    assert snippets["auto_append"] == [GLOSSARY.relative_to(REPO).as_posix()]


def test_every_page_has_an_edit_button_to_its_source(committed_site):
    repo, edit_uri = config()["repo_url"], config()["edit_uri"]
    pages = guide_pages(committed_site)
    assert len(pages) >= 20
    for page in pages:
        source = "index.md" if page.parent == committed_site else f"{page.parent.relative_to(committed_site)}.md"
        assert [found["href"] for found in EDIT_BUTTON.finditer(page.read_text())] == [f"{repo}/{edit_uri}{source}"], page
    # A notebook is made from its example script (scripts/notebooks.py): that is what to edit.
    notebook = (committed_site / "notebooks" / "small_ops" / "index.html").read_text()
    assert [found["href"] for found in EDIT_BUTTON.finditer(notebook)] == [f"{repo}/edit/main/examples/small_ops.py"]


def test_a_notebook_pages_edit_url_follows_the_branch_edit_uri_names():
    assert notebook_pages.edit_url("https://github.com/o/r/", "edit/dev/docs/", "matmul") == \
        "https://github.com/o/r/edit/dev/examples/matmul.py"
    assert notebook_pages.edit_url("https://github.com/o/r", "", "matmul") is None


def test_every_page_has_back_to_top_and_search_suggestions(committed_site):
    for page in guide_pages(committed_site):
        html = page.read_text()
        assert '<button type="button" class="md-top md-icon" data-md-component="top" hidden>' in html, page
        assert 'data-md-component="search-suggest"' in html, page
        features = json.loads(re.search(r'<script id="__config" type="application/json">(.*?)</script>', html,
                                        re.DOTALL)[1])["features"]
        assert {"content.action.edit", "navigation.top", "search.suggest", "content.tooltips"} <= set(features)


def test_every_glossary_term_has_its_tooltip_where_a_reader_meets_it(committed_site):
    terms = glossary()
    by_title = {title: term for term, title in terms.items()}
    met = {term: 0 for term in terms}
    for page in guide_pages(committed_site):
        for title, text in abbreviations(page):
            if title in by_title:  # a term inside another tooltip keeps that one instead (tooltips.py)
                assert text == by_title[title], (page, text, title)
                met[text] += 1
        assert "*[" not in page.read_text(), f"{page}: a glossary definition left as text"
    assert all(met.values()), [term for term, count in met.items() if not count]
    xla = abbreviations(committed_site / "xla" / "index.html")
    assert (terms["XLA"], "XLA") in xla
    assert not (committed_site / "includes").exists()


def test_a_term_inside_a_tooltip_keeps_the_outer_one():
    """'95% interval' in the header of a column of intervals: the header's tooltip says what the column
    holds, and the term's would cover it."""
    page = ("| Case | Speed-up (95% interval) |\n| --- | --- |\n| a | 2.0× faster [1.9–2.1×] |\n\n"
            "Each speed-up has a 95% interval.\n\n"
            "*[95% interval]: The range.\n")
    html = markdown.markdown(page, extensions=["tfspeedlab.site.markdown_ext", "abbr", "tables"])
    root = etree.fromstring(f"<root>{html}</root>")
    header = root.find(".//th[2]")
    assert [abbr.get("title") for abbr in header.iter("abbr")] != [] and len(list(header.iter("abbr"))) == 1
    assert header.find("abbr").get("title") != "The range." and "".join(header.itertext()) == "Speed-up (95% interval)"
    assert '<abbr title="The range.">95% interval</abbr>' in html  # in prose, the term has its own


def test_a_term_keeps_its_tooltip_once_where_it_is_first_met_in_prose():
    """Not in a link, not in a tab's label, not as the start of a version number; then once only."""
    page = ("[XLA pays](x.md) when the op is big.\n\n"
            "=== \"Before: XLA off\"\n\n    Text.\n\n"
            "Keras 3.15.1 is the release. XLA fuses ops, and Keras 3 runs on it.\n\n"
            "XLA again, and Keras 3 again.\n\n"
            "*[XLA]: A compiler.\n*[Keras 3]: The Keras.\n")
    html = markdown.markdown(page, extensions=["tfspeedlab.site.markdown_ext", "abbr", "pymdownx.tabbed"])
    root = etree.fromstring(f"<root>{html}</root>")
    kept = [(abbr.text, abbr.get("title")) for abbr in root.iter("abbr")]
    assert kept == [("XLA", "A compiler."), ("Keras 3", "The Keras.")]
    assert not list(root.find(".//a").iter("abbr")) and not list(root.find(".//label").iter("abbr"))
    assert "Keras 3.15.1 is the release. <abbr" in html  # the version number whole, the term's tooltip after it
