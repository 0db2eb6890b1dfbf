"""An interval in a table cell kept on one line: ``[9.78–12.0×]`` wraps, on a phone, after its en dash
(a line-break opportunity in Unicode's rules), leaving ``[9.78–`` on one line and ``12.0×]`` on the
next. Each bracketed interval in a table cell of a built page is wrapped in a span that CSS keeps
whole (``.tfsl-interval``, in ``pages.css``); the page's text is unchanged."""

from __future__ import annotations

import re

# A cell of a built table, and a bracketed interval inside it (two ends around an en dash).
_CELL = re.compile(r"(<td[^>]*>)(.*?)(</td>)", re.DOTALL)
_INTERVAL = re.compile(r"\[[^\[\]<>]*–[^\[\]<>]*\]")


def keep_intervals_whole(html: str) -> str:
    """``html`` with every bracketed interval inside a table cell wrapped in ``<span class="tfsl-interval">``."""
    def cell(found: re.Match) -> str:
        inner = _INTERVAL.sub(lambda interval: f'<span class="tfsl-interval">{interval[0]}</span>', found[2])
        return found[1] + inner + found[3]

    return _CELL.sub(cell, html)
