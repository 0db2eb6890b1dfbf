"""A grid's chart: a panel per column (per model, say), a bar per row (per mode), and beside each bar
its time and the grid table's verdict against the column's baseline."""

from __future__ import annotations

import matplotlib.pyplot as plt

from tfspeedlab.analysis import intervals
from tfspeedlab.analysis.grid import pivot
from tfspeedlab.analysis.wording import ONE_PROCESS, time_ratio_word
from tfspeedlab.results.schema import ResultsFile
from tfspeedlab.site import bar_cuts
from tfspeedlab.site.charts import (
    FIGURE_WIDTH_IN,
    LINE_IN,
    THEMES,
    TITLE_BAND_IN,
    _add_caption,
    _caption_in,
    _make_room_for_labels,
    _open_frame,
    _panel_title,
    _style,
    _svg,
    _title,
)
from tfspeedlab.units import format_time, select_unit


def grid_svg(results: ResultsFile, theme_name: str) -> str:
    """One panel per column value (e.g. per model), bars per row value (e.g. per mode); beside each
    bar its time and, against the column's baseline, the table's verdict."""
    theme = THEMES[theme_name]
    grid = pivot(results)
    row_values, column_values, cells = grid.row_values, grid.column_values, grid.cells
    baseline, per = grid.layout.baseline, grid.layout.time_per  # per: what one timed call is
    with _style(theme):
        height = (0.3 * len(row_values) * len(column_values) + 0.7 * len(column_values) + TITLE_BAND_IN
                  + 3 * LINE_IN + _caption_in(results))
        figure, panels = plt.subplots(len(column_values), 1, figsize=(FIGURE_WIDTH_IN, height), squeeze=False)
        placed = {}  # each panel's labels, with the value of the bar each sits beside
        cuts = {}  # each cut panel's cut, in its axis's unit
        for axes, column in zip(panels[:, 0], column_values):
            present = [row for row in row_values if (row, column) in cells]
            times = [cells[(row, column)].measurement.per_call_s for row in present]
            # One unit per panel, for its axis and its bars' labels alike: the longest bar's, so
            # that no label reads "1.2 ms" on an axis counted in µs.
            # A panel whose bars pass far beyond its baseline is cut (bar_cuts).
            reference = grid.baseline(column)
            cut = bar_cuts.cut_for(times, reference.measurement.per_call_s if reference is not None else None)
            shown = bar_cuts.shown(times, cut)
            unit = select_unit(max(shown))
            unit_name, scale = unit
            positions = list(range(len(present))[::-1])
            colours = [theme.bars[0] if row == baseline else theme.bars[1] for row in present]
            bars = axes.barh(positions, [m / scale for m in shown], color=colours, height=0.65)
            if bar_cuts.hatch_cut_bars(bars, times, cut, theme):
                cuts[axes] = cut / scale
            # The words are the table's, from the speed-up's interval (which covers the drift
            # between processes), not a whisker per time: two intervals of different things beside
            # one bar read as a contradiction where they disagree.
            verdicts = [_verdict_beside(grid, row, column) for row in present]
            # A panel timed in one process per case has no verdict anywhere: said once, in its title.
            no_verdict = all(not word or word.endswith(ONE_PROCESS) for word in verdicts) and any(verdicts)
            labels = [format_time(time, unit) + ("" if no_verdict else word) for time, word in zip(times, verdicts)]
            placed[axes] = [(axes.annotate(label, (end / scale, position), xytext=(4, 0), textcoords="offset points",
                                           va="center", in_layout=False), end / scale)
                            for position, end, label in zip(positions, shown, labels)]
            axes.set_yticks(positions, present)
            _panel_title(axes, f"{column} — time per {per} ({unit_name})" + (f"; {ONE_PROCESS}" if no_verdict else ""))
            axes.grid(axis="x", color=theme.grid, linewidth=0.6)
            _open_frame(axes)
        # The title in a band of its own at the top: in a figure this tall, the default place
        # (a share of the height from the top) fell on the first panel's bars.
        band = TITLE_BAND_IN / figure.get_figheight()
        figure.suptitle(_title(results), x=0.01, y=1 - 0.3 * band, ha="left", va="top")
        caption_share = _add_caption(figure, results)
        note = f"Beside each bar: its time and, against {baseline},\nthe table's verdict (from its 95% interval)."
        if cuts:
            note += f"\nHatched: a bar past {bar_cuts.CUT_AT:g}× its panel's {baseline}, cut there."
        figure.text(0.01, caption_share, note, va="bottom", linespacing=1.2)
        lines = note.count("\n") + 1
        figure.tight_layout(rect=(0, caption_share + lines * LINE_IN / figure.get_figheight(), 1, 1 - band))
        _make_room_for_labels(figure, placed)
        for axes, cut in cuts.items():
            bar_cuts.stop_the_scale_at(axes, cut, theme)
        return _svg(figure)




def _verdict_beside(grid, row, column) -> str:
    """`` · 1.42× faster`` or `` · no clear difference`` for a bar against its column's baseline (the
    grid table's verdict, in its fewest words); nothing beside the baseline itself."""
    reference = grid.baseline(column)
    if row == grid.layout.baseline or reference is None:
        return ""
    return f" · {time_ratio_word(intervals.ratio(grid.cells[(row, column)], reference))}"
