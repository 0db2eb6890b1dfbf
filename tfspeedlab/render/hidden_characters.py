"""Characters that change how text reads without being seen, shown as what they are wherever text from
a file reaches a page or a chart.

A right-to-left override (U+202E) turns the rest of a label around ("eager" reads as "regae"), and a
zero-width space makes two labels that look alike differ. The loaders refuse them in what they read;
this is the second wall, where text leaves for a page or a chart: each is shown as ``⟨U+202E⟩``, so a
reader sees that something is there and what. Mathematical angle brackets, not ``<…>`` or ``[…]``:
they mean nothing to Markdown, HTML or SVG, so the same text is safe in prose, a code block or a chart.
"""

from __future__ import annotations

from tfspeedlab.core.results.checks import INVISIBLE


def shown(text: str) -> str:
    """``text`` with every hidden character written out as ``⟨U+XXXX⟩``."""
    return INVISIBLE.sub(lambda match: f"\u27e8U+{ord(match[0]):04X}\u27e9", text)
