"""Each page's directive expansion, kept by everything it was made from, in this process and (through
``site.build_cache``) for the next build: a warm build in a new process expands no page whose inputs
are unchanged, and ``mkdocs serve`` expands again only the page that was saved.

What a page's directives read is the package (the whole build cache is tied to its code), the page's
text and where it is served, the repository's URL, and what a load of the data digests by content
(``site_data.SiteData.inputs``: the results tree's and the examples folder's files, and git). A kept
expansion is the Markdown each directive wrote and the figures the page claimed: the Markdown
extension states those claims again, so the build's cross-page check (``ClaimsLedger``) sees every
page's figures whether its expansion was made or kept.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfspeedlab.core.memo import Memo
from tfspeedlab.render import hidden_characters

# What else writes a directive's Markdown: Python (number formatting), NumPy (the intervals), Jinja.
LIBRARIES = (sys.version, np.__version__, importlib.metadata.version("jinja2"))

Claim = tuple[tuple[str, ...], str]


@dataclass(frozen=True)
class KeptExpansion:
    """One page's expansion as kept: each directive's Markdown, in page order, and what the page claimed."""

    outputs: tuple[str, ...]
    claims: tuple[Claim, ...]


# Each page's expansion by ``key``: kept between builds by ``site.build_cache``.
EXPANSIONS: Memo[str, KeptExpansion] = Memo()


def key(inputs: str, page_uri: str, page_url: str, repo_url: str | None, text: str) -> str:
    """A digest of everything a page's expansion is made from (see the module docstring)."""
    return hashlib.sha256(repr((LIBRARIES, inputs, page_uri, page_url, repo_url, text)).encode()).hexdigest()


def encoded(kept: KeptExpansion) -> list | None:
    """The JSON form ``decoded`` reads; None (read as nothing kept) for claims JSON would not give back."""
    if not all(isinstance(figure, str) and all(isinstance(part, str) for part in what) for what, figure in kept.claims):
        return None
    return [list(kept.outputs), [[list(what), figure] for what, figure in kept.claims]]


def decoded(kept: Any) -> KeptExpansion | None:
    """An expansion from its JSON form, or None for anything a build could not have written."""
    if not (isinstance(kept, list) and len(kept) == 2 and isinstance(kept[0], list) and isinstance(kept[1], list)):
        return None
    outputs, claims = kept
    # A directive's Markdown has every hidden character written out (``hidden_characters.shown``).
    if not all(isinstance(output, str) and hidden_characters.shown(output) == output for output in outputs):
        return None
    if not all(isinstance(claim, list) and len(claim) == 2 and isinstance(claim[0], list) and claim[0]
               and all(isinstance(part, str) for part in claim[0]) and isinstance(claim[1], str) for claim in claims):
        return None
    return KeptExpansion(tuple(outputs), tuple((tuple(what), figure) for what, figure in claims))

