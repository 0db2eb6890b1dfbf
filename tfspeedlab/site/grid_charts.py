"""A grid's chart: a panel per column (per model, say), a bar per row (per mode), and beside each bar
its time and the grid table's verdict against the column's baseline, that verdict's interval as its
whisker."""

from __future__ import annotations

from dataclasses import replace

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats.grid import pivot
from tfspeedlab.core.wording import ONE_PROCESS
from tfspeedlab.render import bar_scale
from tfspeedlab.render.charts import THEMES
from tfspeedlab.site.bar_charts import Panel, bar_figure, case_rows, extent, whisker_note


def grid_svg(results: ResultsFile, theme_name: str) -> str:
    """One panel per column value (e.g. per model), bars per row value (e.g. per mode); beside each
    bar its time and, against the column's baseline, the table's verdict, whose interval is its
    whisker. Where one panel's bars span past ``bar_scale.LOG_FROM``, every panel is on a log axis."""
    theme = THEMES[theme_name]
    grid = pivot(results)
    baseline, per = grid.layout.baseline, grid.layout.time_per  # per: what one timed call is
    panels = []
    for column in grid.column_values:
        present = [row for row in grid.row_values if (row, column) in grid.cells]
        reference = grid.baseline(column)
        rows, one_process = case_rows([grid.cells[(row, column)] for row in present], reference, theme)
        panels.append((column, [replace(bar, name=str(row)) for bar, row in zip(rows, present)], one_process,
                       reference.measurement.per_call_s if reference is not None else None))
    scales = bar_scale.scales([extent(rows) for _, rows, _, _ in panels])
    # A panel timed in one process says so in its title; a bar of one among others, under the chart.
    note = whisker_note(baseline, any(row.whisker is None and not alone
                                      for _, rows, alone, _ in panels for row in rows))
    if scales[0].log:
        note += " Time axes: log scale."
    return bar_figure(results, [
        Panel(f"{column} — time per {per}" + (f"; {ONE_PROCESS}, no whisker" if one_process else ""), rows, scale,
              reference_s=reference_s)
        for scale, (column, rows, one_process, reference_s) in zip(scales, panels)], note, theme)
