"""Charts drawn beside the pages: a cold build's charts in the build's worker processes while the pages render.

Drawing every chart (matplotlib) was a third of a cold build, and nothing on a page waits for a
chart: a page names its SVG's URL, and MkDocs copies the file only after every page is rendered. So
each chart that is not in the build cache goes to the build's workers (``build_workers``, forked from
the build; the first chart a worker draws imports matplotlib, ``charts.pyplot``), after the notebook
pages' work, and a worker writes it
where the cache keeps it. MkDocs copies its files once every page is rendered, then writes each
page's HTML (Material's search entries, the templates: some 3 s of a cold build); a chart being drawn
is a ``ChartFile``, copied after that (``copy_drawn``, at ``on_post_build``), so the pages' writing
and the last charts' drawing overlap. A worker draws a chart once and
recolours it for the other theme where it can (``charts.drawn_in_themes``). Where there is no pool
(a platform that does not fork, ``mkdocs serve``'s rebuilds), a chart is drawn at once, as before.

Whatever draws it, a chart's SVG is the same (``tests/test_build_cache.py`` compares them).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mkdocs.structure.files import File

from tfspeedlab.core.results.store import write_text_atomic
from tfspeedlab.render import charts
from tfspeedlab.site import build_workers


def _draw_to(paths: dict[str, Path], draw: Callable[..., str], args: tuple) -> None:
    for theme, svg in charts.drawn_in_themes(draw, args, tuple(paths)).items():
        write_text_atomic(paths[theme], svg)


def draw(paths: dict[str, Path], draw_svg: Callable[..., str], args: tuple) -> None:
    """``draw_svg(*args, theme_name=theme)`` written to ``paths[theme]``: by a worker when the build has
    them (done by ``build_workers.finish``), else now."""
    if build_workers.submit(_draw_to, paths, draw_svg, args) is None:
        _draw_to(paths, draw_svg, args)


class ChartFile(File):
    """A chart MkDocs publishes from the file it is drawn to: copied when MkDocs copies the site's files
    if no worker is still drawing, else once they are through (``copy_drawn``)."""

    def copy_file(self, dirty: bool = False) -> None:
        if build_workers.running():
            Deferred.copies.append((self, dirty))
        else:
            super().copy_file(dirty)


class Deferred:
    """The charts MkDocs would have copied while the workers were still drawing, with its ``dirty``."""

    copies: list[tuple[ChartFile, bool]] = []


def copy_drawn() -> None:
    """Wait for every worker's job (a job's exception is raised here), then copy the charts held back."""
    copies, Deferred.copies = Deferred.copies, []
    build_workers.finish()
    for chart, dirty in copies:
        File.copy_file(chart, dirty)


def drop_copies() -> None:
    """A build that failed: its held-back copies are not made."""
    Deferred.copies = []
