"""Reading a built site: each page's article text, a line per block, as a reader sees it."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

_BLOCKS = frozenset({"p", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "summary", "figcaption", "dt", "dd"})


class _ArticleText(HTMLParser):
    """The text inside ``<article>``, a line per block element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.lines: list[str] = []
        self.current: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self.depth += 1
        elif self.depth and tag == "img":
            self.current.append(f"[img {dict(attrs).get('alt', '')} → {dict(attrs).get('src', '')}]")
        elif self.depth and tag == "a" and dict(attrs).get("href"):
            self.current.append(f"[→ {dict(attrs)['href']}] ")

    def handle_endtag(self, tag):
        if tag == "article":
            self.depth -= 1
        if self.depth and tag in _BLOCKS:
            self._flush()

    def handle_data(self, data):
        if self.depth:
            self.current.append(data)

    def _flush(self) -> None:
        line = " ".join("".join(self.current).split())
        if line:
            self.lines.append(line)
        self.current = []


def article_lines(page: Path) -> list[str]:
    parser = _ArticleText()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    parser._flush()
    return parser.lines


def pages(site_dir: Path) -> list[Path]:
    """Every built page under ``site_dir``, relative to it."""
    return sorted(page.relative_to(site_dir) for page in Path(site_dir).rglob("*.html"))
