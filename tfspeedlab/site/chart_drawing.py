"""Charts drawn beside the pages: a cold build's charts in worker processes while the pages render.

Drawing every chart (matplotlib) was a third of a cold build, and nothing on a page waits for a
chart: a page names its SVG's URL, and MkDocs copies the file only after every page is rendered. So
each chart that is not in the build cache goes to a pool of worker processes (forked from the build,
which has imported matplotlib and loaded the results already), which write it where the cache keeps
it; the plugin waits for them before MkDocs copies the files (``finish``). A worker draws a chart once
and recolours it for the other theme where it can (``charts.drawn_in_themes``). On a platform that
does not fork, and in ``mkdocs serve``'s rebuilds (a server's threads and ``fork`` do not mix), a
chart is drawn at once, as before.

The pool leaves one core to the build itself: on two cores, one worker draws while the build renders.
Whatever draws it, a chart's SVG is the same (``tests/test_build_cache.py`` compares them).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from tfspeedlab.core.results.store import write_text_atomic
from tfspeedlab.render import charts


class Drawing:
    """The open pool of this build, if any, and the charts sent to it."""

    pool: ProcessPoolExecutor | None = None
    pending: list[Future] = []


def workers() -> int:
    """Worker processes for a build: every core but one, for the build's own work."""
    return max(1, (os.cpu_count() or 1) - 1)


def start(enabled: bool) -> None:
    """Draw in worker processes from now on, where ``enabled`` and the platform forks."""
    finish()
    if enabled and sys.platform.startswith("linux"):
        Drawing.pool = ProcessPoolExecutor(max_workers=workers(), mp_context=multiprocessing.get_context("fork"))


def _draw_to(paths: dict[str, Path], draw: Callable[..., str], args: tuple) -> None:
    for theme, svg in charts.drawn_in_themes(draw, args, tuple(paths)).items():
        write_text_atomic(paths[theme], svg)


def draw(paths: dict[str, Path], draw_svg: Callable[..., str], args: tuple) -> None:
    """``draw_svg(*args, theme_name=theme)`` written to ``paths[theme]``: by a worker when a pool is open
    (done by ``finish``), else now."""
    if Drawing.pool is None:
        _draw_to(paths, draw_svg, args)
    else:
        Drawing.pending.append(Drawing.pool.submit(_draw_to, paths, draw_svg, args))


def finish(cancel: bool = False) -> None:
    """Wait for every chart sent to the pool (a worker's exception is raised here), and close it."""
    pending, Drawing.pending = Drawing.pending, []
    pool, Drawing.pool = Drawing.pool, None
    try:
        if not cancel:
            for future in pending:
                future.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=cancel)
