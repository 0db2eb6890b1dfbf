"""What a site build computes once and keeps under ``.cache/tfspeedlab/`` for the next build: bootstrap
intervals and resamples, charts, each page's directive expansion, each page's search entries, each
notebook page's headings, which built pages were found free of unrendered directives, and each results
file's freshness verdict.

A build spends most of its time on these, and ``mkdocs serve`` rebuilds the whole site after every
save. Every entry is keyed by what it was computed from — the samples of both cases for an interval, the
results and theme for a chart, a page's text and everything its directives read, by content, for its
expansion (``page_expansions``), a page's HTML and TOC for its search entries, the measured commit and
today's measuring files for a freshness verdict — so a changed results file never meets a stale entry:
its new samples have a new key. The whole cache is also tied to the package's own source
(``code_version``): a change to how anything is computed or drawn starts afresh. An entry no build has
used for ``KEEP_BUILDS`` builds is dropped, so what a changed file made obsolete does not pile up, while
builds from two results trees in turn (the published one and a reader's) both stay warm.

Nothing here changes a figure: a build with an empty cache, a full one or none (``open_cache`` not
called, as in the unit tests) writes the same pages. A kept chart is published only if it is still
nothing but a drawing (``chart_check``): one planted in the cache is drawn again from its results.
Kept search entries and headings are used only if they are what Material and a page's HTML could
give (``search_entries.replayable``, ``notebook_pages.notebook_headings``), and a kept expansion only
if it holds one Markdown for each of its page's directives; any other kept value that is not of its
kind is ignored and computed again.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import hashlib
import importlib.metadata
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import numpy as np

from tfspeedlab.core.memo import Memo
from tfspeedlab.core.results import provenance
from tfspeedlab.core.results.schema import ResultsFile, to_dict
from tfspeedlab.core.results.store import write_text_atomic
from tfspeedlab.core.stats import intervals
from tfspeedlab.render import charts
from tfspeedlab.site import chart_check, chart_drawing, notebook_pages, page_expansions, search_entries, unrendered

CACHE_VARIABLE = "TFSPEEDLAB_CACHE"
CACHE_DIR = Path(".cache") / "tfspeedlab"
INDEX_FILE = "index.json"
CHARTS_DIR = "charts"
# Builds an entry survives unused: enough for a handful of results trees built in turn.
KEEP_BUILDS = 20
PACKAGE = Path(__file__).resolve().parents[1]


@functools.cache
def code_version() -> str:
    """A digest of the package's source and templates, and of matplotlib's version (it draws the charts;
    asked of its metadata, as a warm build imports no matplotlib)."""
    digest = hashlib.sha256(importlib.metadata.version("matplotlib").encode())
    for path in sorted(PACKAGE.rglob("*.py")) + sorted(PACKAGE.rglob("*.j2")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class BuildCache:
    """The open cache of this build (one per process: a build runs one at a time)."""

    folder: Path | None = None
    build = 0
    last_asked: dict[str, dict[str, int]] = {}  # a kept memo's name → key → the last build that asked for it
    chart_builds: dict[str, int] = {}


@dataclass(frozen=True)
class KeptMemo:
    """A memo whose values the index keeps under ``name``, each beside the last build that asked for it."""

    name: str
    memo: Memo
    # A value as JSON holds it, and back; ``decoded`` gives None for anything it could not have written.
    encoded: Callable[[Any], Any]
    decoded: Callable[[Any], Any]


def _interval(kept: Any) -> tuple[float, float] | None:
    if (isinstance(kept, list) and len(kept) == 2 and all(isinstance(end, float) and math.isfinite(end) for end in kept)
            and kept[0] <= kept[1]):
        return kept[0], kept[1]
    return None


def _resamples_text(estimates: np.ndarray) -> str:
    """An array of resampled estimates as text: its float64 bytes in Base64 (JSON's numbers would take
    three times the room and ten times the time)."""
    return base64.b64encode(np.ascontiguousarray(estimates, dtype="<f8").tobytes()).decode("ascii")


def _resamples(kept: Any) -> np.ndarray | None:
    try:
        raw = base64.b64decode(kept, validate=True) if isinstance(kept, str) else b""
    except (binascii.Error, ValueError):
        return None
    if not raw or len(raw) % 8:
        return None
    estimates = np.frombuffer(raw, dtype="<f8").astype(np.float64)
    estimates.flags.writeable = False  # shared by every caller, as ``resampled_estimates`` makes them
    return estimates


def _text(kept: Any) -> str | None:
    return kept if isinstance(kept, str) else None


def _flag(kept: Any) -> bool | None:
    return kept if isinstance(kept, bool) else None


def _headings_list(found: tuple[notebook_pages.Heading, ...]) -> list:
    return [[heading.level, heading.id, heading.title] for heading in found]


def _headings(kept: Any) -> tuple[notebook_pages.Heading, ...] | None:
    if not isinstance(kept, list) or not all(
            isinstance(item, list) and len(item) == 3 and item[0] in range(1, 7) and type(item[0]) is int
            and isinstance(item[1], str) and isinstance(item[2], str) for item in kept):
        return None
    return tuple(notebook_pages.Heading(*item) for item in kept)


KEPT_MEMOS = (
    KeptMemo("intervals", intervals.INTERVAL_CACHE, list, _interval),
    KeptMemo("resamples", intervals.RESAMPLED_CACHE, _resamples_text, _resamples),
    KeptMemo("expansions", page_expansions.EXPANSIONS, page_expansions.encoded, page_expansions.decoded),
    KeptMemo("search", search_entries.SEARCH_ENTRIES, str, _text),
    KeptMemo("headings", notebook_pages.NOTEBOOK_HEADINGS, _headings_list, _headings),
    KeptMemo("clean_pages", unrendered.CLEAN_PAGES, bool, _flag),
    KeptMemo("freshness", provenance.FRESHNESS_CACHE, lambda verdict: list(dataclasses.astuple(verdict)),
             provenance.kept_freshness),
)


def open_cache(root: Path) -> None:
    """Use ``$TFSPEEDLAB_CACHE`` or ``root/.cache/tfspeedlab/`` for this build: load what earlier builds kept."""
    BuildCache.folder = Path(os.environ.get(CACHE_VARIABLE) or Path(root) / CACHE_DIR)
    stored = _read_index(BuildCache.folder / INDEX_FILE)
    BuildCache.build = (stored["build"] if isinstance(stored.get("build"), int) else 0) + 1
    for kept in KEPT_MEMOS:
        values, last_asked = {}, {}
        found = stored.get(kept.name)
        for key, item in found.items() if isinstance(found, dict) else ():
            # [value, the last build that asked for it]; anything else is a corrupt entry, ignored.
            if isinstance(item, list) and len(item) == 2 and isinstance(item[1], int):
                if (value := kept.decoded(item[0])) is not None:
                    values[key], last_asked[key] = value, item[1]
        kept.memo.load(values)
        kept.memo.forget_asked()
        BuildCache.last_asked[kept.name] = last_asked
    BuildCache.chart_builds = dict(stored.get("charts", {}))


def _read_index(path: Path) -> dict[str, Any]:
    """The kept index; nothing when it is missing, unreadable or from other code."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stored if isinstance(stored, dict) and stored.get("code") == code_version() else {}


# A chart as MkDocs gets it: the SVG itself (no cache open), or the cached file it is (or will be) drawn to.
ChartSource = Union[str, Path]


def _kept(path: Path) -> bool:
    """Whether an earlier build's chart is at ``path`` and may be published."""
    if not path.exists():
        return False
    # A kept chart is published only if it is a drawing (``chart_check``): anything planted in the
    # cache is drawn again, and the clean drawing kept for the next build.
    try:
        kept = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        kept = None
    if kept is not None and chart_check.problem(kept) is None:
        return True
    path.unlink(missing_ok=True)
    return False


def _cached_svgs(key_parts: tuple, draw: Callable[..., str], args: tuple) -> dict[str, ChartSource]:
    """Each theme's ``draw(*args, theme_name=theme)``: kept from an earlier build, or drawn (the themes
    a build lacks, together: ``charts.drawn_in_themes``)."""
    if BuildCache.folder is None:
        return dict(charts.drawn_in_themes(draw, args))
    paths = {}
    for theme in charts.THEMES:
        key = _key(*key_parts, theme)
        BuildCache.chart_builds[key] = BuildCache.build
        paths[theme] = BuildCache.folder / CHARTS_DIR / f"{key}.svg"
    missing = {theme: path for theme, path in paths.items() if not _kept(path)}
    if missing:
        chart_drawing.draw(missing, draw, args)
    return dict(paths)


def _key(*parts: object) -> str:
    return hashlib.sha256(repr((code_version(), *parts)).encode()).hexdigest()


def results_charts(draw: Callable[..., str], results: ResultsFile) -> dict[str, ChartSource]:
    """``draw(results, theme_name=theme)`` in each theme, or the SVGs an earlier build drew from the same
    results."""
    return _cached_svgs(("results", json.dumps(to_dict(results), sort_keys=True)), draw, (results,))


def trend_charts(draw: Callable[..., str], *args: Any) -> dict[str, ChartSource]:
    """``draw(*args, theme_name=theme)`` for a release-history chart in each theme, or the SVGs an earlier
    build drew from the same data."""
    return _cached_svgs(("trend", *args), draw, args)


def svg(source: ChartSource) -> str:
    """The SVG of a chart, once drawn (``build_workers.finish`` has returned)."""
    return source.read_text(encoding="utf-8") if isinstance(source, Path) else source


def save() -> None:
    """Keep what this build and the last ``KEEP_BUILDS`` used for the next one; drop the rest. The build
    is over: until the next ``open_cache``, charts are drawn afresh and nothing is kept."""
    if BuildCache.folder is None:
        return
    build = BuildCache.build

    def recent(last: int) -> bool:
        return build - last < KEEP_BUILDS

    kept_memos = {}
    for kept in KEPT_MEMOS:
        last_asked = BuildCache.last_asked.get(kept.name, {})
        last_asked.update(dict.fromkeys(kept.memo.asked, build))
        values = kept.memo.saved()
        kept_memos[kept.name] = {key: [kept.encoded(values[key]), last] for key, last in last_asked.items()
                                 if recent(last) and key in values}
    kept_charts = {key: last for key, last in BuildCache.chart_builds.items() if recent(last)}
    charts = BuildCache.folder / CHARTS_DIR
    for drawn in charts.glob("*.svg") if charts.is_dir() else ():
        if drawn.stem not in kept_charts:
            drawn.unlink(missing_ok=True)
    write_text_atomic(BuildCache.folder / INDEX_FILE, json.dumps({
        "code": code_version(), "build": build, **kept_memos, "charts": kept_charts,
    }))
    BuildCache.folder = None
