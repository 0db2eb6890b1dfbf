"""Every interval a page prints explains itself where it is read: a tooltip on it, one on the header
of every table column that holds intervals, and a link from the page's first interval to the note
that says how to read one.

A Python-Markdown treeprocessor, registered by ``site.markdown_ext``. It runs after the inline
patterns, so it sees the page's final text, and before MkDocs' own ``relpath`` treeprocessor, which
turns the note's link (``fair-timing.md#…``, relative to the page's source) into the page's served
URL and checks that the heading is there. Material's ``content.tooltips`` shows each ``title`` as a
tooltip; without it a browser shows the title on hover.

Wherever a reader meets an interval, in prose (paragraphs, list items, admonitions, headings) or in a
table cell, it is wrapped in ``<abbr title="…">`` with its form's tooltip; code, preformatted text and
a title already given are left alone. The page's first interval in document order, in the answer box,
a table cell or prose alike, also links to the note: readers hovered the first bracket they saw,
often in a table. The header of a table column of intervals carries its family's tooltip too (in a
grid of three or more such columns, the first header carries it once, for all of them), and
the summary table's headers for the time per call, the median and spread, and the calls and blocks
say what those columns hold.

The class ``tfsl-interval`` keeps an interval on one line (``pages.css``): every interval in prose, and
a bracket in a table cell (``[9.78–`` and ``12.0×]`` must not part on a phone). A range in a cell
(``(1.25× slower to 1.10× faster)``) would widen its column past a phone's screen on one line: it
may break once, after its "to", each side kept whole in a span of that class, not at every space.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as etree
from collections.abc import Callable

import markdown
from markdown.treeprocessors import Treeprocessor, UnescapeTreeprocessor

from tfspeedlab.site.interval_forms import NOTE_ANCHOR, NOTE_PAGE, Family, column_title, find_intervals

# After the inline patterns (20) have made the text final, before MkDocs' relpath (0) rewrites links.
PRIORITY = 7
# After Python-Markdown's abbr (7, registered after this extension), before the TOC (5) reads headings.
GLOSSARY_PRIORITY = 6
# What the summary table's other columns hold, on their headers: said once under each page's first
# table before the how-to-read note moved to the fair-timing page.
COLUMN_TITLES = {
    "Per call": ("The 10th percentile of all timed blocks, every process pooled. Speed-ups divide these times, "
                 "so two rows' times divide to the speed-up between them."),
    "Median · spread": ("The median block, then the spread: the larger of the blocks' interquartile range within "
                        "a process and the spread between processes, as a share of the median."),
    "Calls × blocks": "The fewest calls a timed block held in any process, times the blocks timed over all processes.",
}
# A table with this many columns of intervals is a grid (a column per workload or setting): one
# tooltip on its first header explains them all.
GRID_COLUMNS = 3
GRID_TITLE_PREFIX = "In every column, each cell's "
# The class pages.css keeps on one line.
INTERVAL_CLASS = "tfsl-interval"
# The forms kept on one line in a table cell: a bracket is read as one figure; a longer phrase would
# widen its column past a phone's screen.
WHOLE_IN_CELLS = frozenset({"factor bracket", "amount bracket"})
# Table cells: their intervals get titles like any other, and the bracket ones the class.
_CELLS = frozenset({"td", "th"})
# Elements whose text is not prose, or already explained: left as they are.
_LEFT_ALONE = frozenset({"pre", "code", "kbd", "samp", "script", "style", "textarea", "abbr", "svg", "math"})


def _plain(text: str) -> str:
    """``text`` with Python-Markdown's backslash escapes restored: a table cell's ``\\[`` is still a
    placeholder here (``unescape`` runs last), and an interval is read as the page will show it."""
    return UnescapeTreeprocessor.RE.sub(lambda found: chr(int(found[1])), text)


def note_link(page_uri: str) -> str:
    """The note's link target, relative to the page's source file (``fair-timing.md#…`` beside it)."""
    if page_uri == NOTE_PAGE:
        return f"#{NOTE_ANCHOR}"
    return f"{posixpath.relpath(NOTE_PAGE, posixpath.dirname(page_uri) or '.')}#{NOTE_ANCHOR}"


class IntervalTooltips(Treeprocessor):
    """Titles on the intervals of one page, and a link to the note from its first."""

    def __init__(self, md: markdown.Markdown, page_uri: Callable[[], str]) -> None:
        super().__init__(md)
        self.page_uri = page_uri

    def run(self, root: etree.Element) -> None:
        self._href = note_link(self.page_uri())
        self._linked = False
        self._walk(root, in_link=False)

    def _walk(self, element: etree.Element, in_link: bool, in_cell: bool = False) -> None:
        if element.tag == "table":
            _title_columns(element)
        self._wrap(element, None, in_link, in_cell)
        for child in list(element):
            if child.tag not in _LEFT_ALONE and not child.get("title"):
                self._walk(child, in_link or child.tag == "a", in_cell or child.tag in _CELLS)
            self._wrap(element, child, in_link, in_cell)

    def _wrap(self, parent: etree.Element, child: etree.Element | None, in_link: bool, in_cell: bool) -> None:
        """The intervals in ``parent``'s text (``child`` None) or in ``child``'s tail, each put in an
        ``abbr`` with its form's title; the page's first outside a link also in a link to the note."""
        text = _plain((parent.text if child is None else child.tail) or "")
        found = list(find_intervals(text))
        if not found:
            return
        nodes = []
        for index, one in enumerate(found):
            # The class keeps it on one line: "[9.78–" and "12.0×]" must not part at the line's end.
            attributes = {"title": one.form.title}
            if not in_cell or one.form.name in WHOLE_IN_CELLS:
                attributes["class"] = INTERVAL_CLASS
            abbr = etree.Element("abbr", attributes)
            abbr.text = one.text
            if in_cell and "class" not in attributes:
                _break_once_after_to(abbr)
            node = abbr
            if not self._linked and not in_link:
                node = etree.Element("a", {"href": self._href})
                node.append(abbr)
                self._linked = True
            node.tail = text[one.end:found[index + 1].start] if index + 1 < len(found) else text[one.end:]
            nodes.append(node)
        head = text[:found[0].start]
        if child is None:
            parent.text, position = head, 0
        else:
            child.tail, position = head, list(parent).index(child) + 1
        for offset, node in enumerate(nodes):
            parent.insert(position + offset, node)


# A range's two sides: "(1.25× slower to" and "1.10× faster)", the space between them its one break.
_TO = re.compile(r"^(?P<first>.*?\sto)(?P<gap>\s+)(?P<second>\S.*)$", re.DOTALL)


def _break_once_after_to(abbr: etree.Element) -> None:
    """Put each side of the range in ``abbr`` in a span kept on one line, so that it breaks, if at
    all, only after its "to"; an interval with no "to" is left as it is."""
    found = _TO.match(abbr.text or "")
    if found is None:
        return
    abbr.text = None
    first = etree.SubElement(abbr, "span", {"class": INTERVAL_CLASS})
    first.text, first.tail = found["first"], found["gap"]
    second = etree.SubElement(abbr, "span", {"class": INTERVAL_CLASS})
    second.text = found["second"]


def _title_columns(table: etree.Element) -> None:
    """The header of each column whose cells hold intervals gets the tooltip of their family; a
    header named in ``COLUMN_TITLES`` gets its own."""
    rows = list(table.iter("tr"))
    if not rows:
        return
    headers = [cell for cell in rows[0] if cell.tag == "th"]
    for header in headers:
        if (title := COLUMN_TITLES.get(" ".join(_plain("".join(header.itertext())).split()))) is not None:
            _title_header(header, title)
    families: dict[int, set[Family]] = {}
    for row in rows[1:]:
        for column, cell in enumerate(row):
            if cell.tag == "td":
                found = {one.form.family for one in find_intervals(_plain("".join(cell.itertext())))}
                families.setdefault(column, set()).update(found)
    columns = {column: found for column, found in families.items() if found and 0 < column < len(headers)}
    if len(columns) >= GRID_COLUMNS and not families.get(0):
        # A grid: its headers name workloads, and a reader who hovers one wants the workload, not
        # statistics. The first header explains every column's intervals, once.
        _title_header(headers[0], GRID_TITLE_PREFIX + column_title(set().union(*columns.values())))
        return
    for column, found in families.items():
        if found and column < len(headers):
            _title_header(headers[column], column_title(found))


def _title_header(header: etree.Element, title: str) -> None:
    """``header``'s content wrapped in an ``abbr`` with ``title``; a header with no text takes the
    title itself; one that already has a title keeps it."""
    if header.get("title") or any(element.get("title") for element in header.iter("abbr")):
        return
    if not "".join(header.itertext()).strip():
        header.set("title", title)
        return
    abbr = etree.Element("abbr", {"title": title})
    abbr.text, header.text = header.text, None
    for child in list(header):
        header.remove(child)
        abbr.append(child)
    header.append(abbr)


class GlossaryInsideTitles(Treeprocessor):
    """A glossary term (Python-Markdown's ``abbr``, fed by ``docs/includes/glossary.md``) keeps its
    tooltip once per page, where a reader first meets it in prose: every later use, a use inside an
    element that already has a tooltip (two cannot show at once: "95% interval" in the header of a
    column of intervals says what that column holds), inside a link or a tab's label (the tooltip
    would cover what the click leads to), and a term that is the start of a version number ("Keras
    3" in "Keras 3.15.1") are plain text. Readers found a dotted underline under every use cluttered
    a page: one page held 37 of one term."""

    def run(self, root: etree.Element) -> None:
        terms = getattr(self.md.treeprocessors["abbr"], "abbrs", {}) if "abbr" in self.md.treeprocessors else {}
        if terms:
            self._walk(root, terms, seen=set(), plain=False)

    def _walk(self, parent: etree.Element, terms: dict, seen: set[str], plain: bool) -> None:
        for child in list(parent):
            if child.tag == "abbr" and child.text in terms and child.get("title") == terms[child.text]:
                if plain or child.text in seen or _VERSION_GOES_ON.match(child.tail or ""):
                    _unwrap(parent, child)
                else:
                    seen.add(child.text)
                continue
            self._walk(child, terms, seen, plain or child.tag in _NO_GLOSSARY or child.get("title") is not None)


# A term followed by this is part of a version number ("Keras 3" in "Keras 3.15.1").
_VERSION_GOES_ON = re.compile(r"\.\d")
# Elements whose text keeps no glossary tooltip: a link (the tooltip would cover where it leads) and a
# tab's label (pymdownx.tabbed's, a control).
_NO_GLOSSARY = frozenset({"a", "label"})


def _unwrap(parent: etree.Element, child: etree.Element) -> None:
    """``child`` (text only) replaced by its text, joined to what comes before it."""
    text = (child.text or "") + (child.tail or "")
    index = list(parent).index(child)
    if index:
        before = parent[index - 1]
        before.tail = (before.tail or "") + text
    else:
        parent.text = (parent.text or "") + text
    parent.remove(child)
