"""Characters that change how text reads without being seen, shown as what they are wherever text from
a file reaches a page or a chart.

A right-to-left override (U+202E) turns the rest of a label around ("eager" reads as "regae"), and a
zero-width space makes two labels that look alike differ. The loaders refuse them in what they read;
this is the second wall, where text leaves for a page or a chart: each is shown as ``⟨U+202E⟩``, so a
reader sees that something is there and what. Mathematical angle brackets, not ``<…>`` or ``[…]``:
they mean nothing to Markdown, HTML or SVG, so the same text is safe in prose, a code block or a chart.
"""

from __future__ import annotations

import re

# Bidirectional controls (Arabic letter mark, LRM/RLM, embeddings, overrides and isolates) and the
# characters that take no width (zero-width space and joiners, word joiner and invisible operators,
# the byte-order mark, the Mongolian vowel separator, the soft hyphen).
HIDDEN = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def shown(text: str) -> str:
    """``text`` with every hidden character written out as ``⟨U+XXXX⟩``."""
    return HIDDEN.sub(lambda match: f"\u27e8U+{ord(match[0]):04X}\u27e9", text)
