"""Notebook pages (mkdocs-jupyter): the measured results under the last cell, and a table of contents that works.

mkdocs-jupyter shows a notebook as it is stored, unrun (the docs build never
measures), so its cells have no output. Under the last cell the page shows the
same workload's measurements from the results files the site is built from,
labelled as such: every figure on a notebook page comes from ``results/``,
never from a run of the docs build.

mkdocs-jupyter's table of contents comes from Python-Markdown's reading of the
cells, which leaves code spans out of a heading, while the headings' ids come
from nbconvert, which keeps them: the TOC of ``## JAX: op by op, and `jax.jit```
linked ``#jax-op-by-op-and`` while the heading was ``#jax-op-by-op-and-jaxjit``.
Here the TOC is read from the page's own rendered headings, so each link has
its target. (Its page titles, read the same way, lost their code too:
``mkdocs.yml`` sets ``ignore_h1_titles`` so that the nav's titles are used.)
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import PurePosixPath

from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from tfspeedlab.core.memo import Memo, text_key
from tfspeedlab.render import templating

NOTEBOOK_DIR = "notebooks"
# Material's search boost for a notebook page: below the guide's pages (1, and 2 for the questions).
SEARCH_BOOST = 0.5
# The ¶ permalinks: nbconvert's and Python-Markdown's. Not part of a heading's text.
_PERMALINK_CLASSES = frozenset({"anchor-link", "headerlink"})


def example_of(page: Page) -> str | None:
    """``notebooks/NAME.ipynb`` → ``NAME``; None for any other page."""
    path = PurePosixPath(page.file.src_uri)
    return path.stem if path.parent.as_posix() == NOTEBOOK_DIR and path.suffix == ".ipynb" else None


def edit_url(repo_url: str | None, edit_uri: str | None, example: str) -> str | None:
    """Where the edit button of a notebook page goes: its example script, which the notebook is made
    from (``scripts/notebooks.py``), not the ``.ipynb`` under ``docs/`` that MkDocs would name. The
    branch is the one ``edit_uri`` names (``edit/main/docs/`` → ``edit/main/examples/NAME.py``)."""
    if not repo_url or not edit_uri:
        return None
    branch = PurePosixPath(edit_uri.strip("/")).parent.as_posix()
    return f"{repo_url.rstrip('/')}/{branch}/examples/{example}.py"


def results_markdown(example: str) -> str:
    """The section under the last cell: what it is, then the example's results in runner tabs (a
    directive, which the page's own rendering expands with the page's links)."""
    return templating.render("notebook_results.md.j2", example=example, results=f"{{{{ results {example} }}}}")


def finish_page(notebook_html: str, page: Page, config, files, section: str) -> str:
    """The notebook's HTML with ``section`` (Markdown) under it; the page's TOC from the headings of both.

    ``section`` goes through MkDocs' own Markdown rendering (``Page.render``), so
    its links are checked and rewritten as on any page.
    """
    stored_markdown = page.markdown
    page.markdown = section
    Page.render(page, config, files)
    section_html = page.content
    page.markdown = stored_markdown
    found = notebook_headings(notebook_html) + headings(section_html)
    page.toc = get_toc(nest(found))
    page.present_anchor_ids = (page.present_anchor_ids or set()) | {heading.id for heading in found}
    return notebook_html + section_html


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    title: str  # plain text, as the heading reads


def headings(page_html: str) -> list[Heading]:
    """The ``<h1>``…``<h6>`` with an id, in page order, their text without the ¶ permalink."""
    parser = _HeadingParser()
    parser.feed(page_html)
    parser.close()
    return parser.found


# A notebook's headings by the SHA-256 of its HTML. mkdocs-jupyter's HTML of a notebook is most of a
# megabyte (its styles and highlighted code), the same from build to build while the notebook is, and
# reading it for a few headings was a tenth of a warm build: a site build keeps them (``build_cache``).
NOTEBOOK_HEADINGS: Memo[str, tuple[Heading, ...]] = Memo()


def notebook_headings(page_html: str) -> list[Heading]:
    """``headings(page_html)``, kept by the HTML's digest."""
    key = text_key(page_html)
    return list(NOTEBOOK_HEADINGS.get(key, lambda: tuple(headings(page_html)),
                                      usable=lambda kept: all(_anchored(heading, page_html) for heading in kept)))


def _anchored(heading: Heading, page_html: str) -> bool:
    """Whether a kept heading's id is one the page's HTML gives, as is: a TOC prints it into a link
    unescaped, so a kept id that is not plainly on the page (one planted in the cache) is read again."""
    return not _UNSAFE_ID.search(heading.id) and f' id="{heading.id}"' in page_html


# What a plain id holds none of (an id of the page that does is read from the page every build).
_UNSAFE_ID = re.compile(r'["\'<>&\s]')


def nest(found: list[Heading]) -> list[dict]:
    """MkDocs' TOC tokens: each heading under the last one of a higher level before it."""
    roots: list[dict] = []
    open_tokens: list[dict] = []
    for heading in found:
        # MkDocs templates print a TOC title as HTML.
        token = {"level": heading.level, "id": heading.id, "name": html.escape(heading.title), "children": []}
        while open_tokens and open_tokens[-1]["level"] >= heading.level:
            open_tokens.pop()
        (open_tokens[-1]["children"] if open_tokens else roots).append(token)
        open_tokens.append(token)
    return roots


class _HeadingParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[Heading] = []
        self._open: tuple[int, str] | None = None  # the heading being read: level, id
        self._text: list[str] = []
        self._skip_depth = 0  # inside a permalink

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if self._open is None:
            if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456" and attributes.get("id"):
                self._open, self._text = (int(tag[1]), attributes["id"]), []
        elif self._skip_depth or (tag == "a" and _PERMALINK_CLASSES & set((attributes.get("class") or "").split())):
            self._skip_depth += 1

    def handle_endtag(self, tag):
        if self._open is None:
            return
        if self._skip_depth:
            self._skip_depth -= 1
        elif tag == f"h{self._open[0]}":
            level, anchor = self._open
            self.found.append(Heading(level, anchor, " ".join("".join(self._text).split())))
            self._open = None

    def handle_data(self, data):
        if self._open is not None and not self._skip_depth:
            self._text.append(data)
