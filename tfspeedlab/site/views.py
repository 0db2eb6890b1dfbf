"""The one place that picks how a results file is shown: its layout decides the table and the chart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.spec.layout import Grid, OpLayers, Sweep
from tfspeedlab.core.stats.memory_growth import followed_memory
from tfspeedlab.memory import charts as memory_charts
from tfspeedlab.render import charts
from tfspeedlab.site import bar_charts, grid_charts, matrix_charts, split_grid_charts, tables


@dataclass(frozen=True)
class View:
    table: Callable[[ResultsFile], str]
    chart: Callable[[ResultsFile, str], str]  # (results, theme name) → SVG
    shows: str = "time per call"  # what the chart draws, for its alternative text


def view_for(results: ResultsFile) -> View:
    """Lines for a sweep, panels for a grid or op layers (a matrix of speed-ups for a grid too large for
    panels), memory over calls for a followed loop, stacked
    host layers for a profiled file, else bars."""
    if isinstance(results.layout, Sweep):
        return View(tables.sweep_table, charts.sweep_svg)
    if isinstance(results.layout, OpLayers):
        return View(tables.op_layers_table, charts.op_layers_svg)
    if isinstance(results.layout, Grid):
        if results.layout.split:
            return View(tables.grid_table, split_grid_charts.split_grid_svg)
        if matrix_charts.uses_matrix(results):
            return View(tables.grid_table, matrix_charts.speedup_matrix_svg,
                        f"speed-up over {results.layout.baseline}")
        return View(tables.grid_table, grid_charts.grid_svg)
    if followed_memory(results):
        return View(tables.cases_table, memory_charts.memory_over_calls_svg, "resident memory over calls")
    if charts.has_host_layers(results):
        return View(tables.cases_table, charts.host_layers_svg)
    return View(tables.cases_table, bar_charts.time_per_call_svg)


def chart_svg(results: ResultsFile, theme_name: str) -> str:
    return view_for(results).chart(results, theme_name)
