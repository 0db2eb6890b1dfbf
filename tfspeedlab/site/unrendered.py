"""The check that a built page holds no directive left unrendered, whatever built it.

A generator that ignores the Markdown extension (or a plugin that never ran) would publish
``{{ time small_ops eager }}`` as text, and its build would pass. This reads the built HTML:
any ``{{`` or ``}}`` outside code (``<code>``, ``<pre>``, ``<script>``, ``<style>``, and the plain
copy of a notebook cell's source that mkdocs-jupyter keeps for its copy button) — in text or in an
attribute — fails it. Run over a whole built site::

    python -m tfspeedlab.site.unrendered site/
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

from tfspeedlab.core.memo import Memo, text_key

_CODE = frozenset({"code", "pre", "script", "style", "textarea"})
_MARKS = ("{{", "}}")
# mkdocs-jupyter puts each code cell's source, unhighlighted, in this hidden <div> for its copy button.
_CELL_SOURCE_COPY = "clipboard-copy-txt"
# A <script> or <style> block, to its first closing tag: no page text, as the parser reads it too.
# Nearly every page holds a mark in one (a theme's scripts, a notebook's CSS), and the parse of a
# whole page found nothing there, once per page per build.
_SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b[^>]*>.*?</\1\b[^>]*>", re.DOTALL | re.IGNORECASE)


class _Finder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside_code = 0
        self.inside_cell_copy = False  # the copy <div> holds text only: its first </div> closes it
        self.found: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag in _CODE:
            self.inside_code += 1
        elif tag == "div" and _CELL_SOURCE_COPY in (dict(attrs).get("class") or "").split():
            self.inside_code += 1
            self.inside_cell_copy = True
        elif not self.inside_code:
            for name, value in attrs:
                if value and any(mark in value for mark in _MARKS):
                    self._note(f"<{tag} {name}={value[:80]!r}>")

    def handle_endtag(self, tag):
        if (tag in _CODE or (tag == "div" and self.inside_cell_copy)) and self.inside_code:
            self.inside_code -= 1
            self.inside_cell_copy = self.inside_cell_copy and tag != "div"

    def handle_data(self, data):
        if not self.inside_code and any(mark in data for mark in _MARKS):
            at = min(data.find(mark) for mark in _MARKS if mark in data)
            self._note(repr(data[max(0, at - 40):at + 80].strip()))

    def _note(self, where: str) -> None:
        if self.found is None:
            self.found = where


def first_unrendered(page_html: str) -> str | None:
    """Where the page still holds ``{{``/``}}`` outside code, or None when it holds none."""
    if not any(mark in page_html for mark in _MARKS):
        return None
    outside_scripts = _SCRIPT_OR_STYLE.sub("", page_html)
    if not any(mark in outside_scripts for mark in _MARKS):  # most pages: nothing to parse for
        return None
    finder = _Finder()
    finder.feed(page_html)
    finder.close()
    return None if finder.found is None else f"an unrendered directive in the built page: {finder.found}"


# Whether a built page holds no unrendered directive, by the SHA-256 of its HTML: the check read the
# whole of every page (a notebook page is most of a megabyte) on every build, a tenth of a warm one,
# while a page's HTML is the same from build to build. A site build keeps them (``build_cache``).
CLEAN_PAGES: Memo[str, bool] = Memo()


def kept_first_unrendered(page_html: str) -> str | None:
    """``first_unrendered(page_html)``, read only once for a page found clean."""
    key = text_key(page_html)
    if CLEAN_PAGES.get(key, lambda: first_unrendered(page_html) is None):
        return None
    return first_unrendered(page_html)


def check_site(site_dir: Path) -> list[str]:
    """Every built page under ``site_dir`` that still holds a directive, with where."""
    problems = []
    for page in sorted(Path(site_dir).rglob("*.html")):
        if (problem := first_unrendered(page.read_text(encoding="utf-8", errors="replace"))) is not None:
            problems.append(f"{page.relative_to(site_dir)}: {problem}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python -m tfspeedlab.site.unrendered SITE_DIR", file=sys.stderr)
        return 2
    problems = check_site(Path(args[0]))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
