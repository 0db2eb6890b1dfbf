"""A grid's chart: a panel per column (per model, say), a bar per row (per mode), and beside each bar
its time and the grid table's verdict against the column's baseline."""

from __future__ import annotations

import matplotlib.pyplot as plt

from tfspeedlab.analysis import intervals
from tfspeedlab.analysis.grid import pivot
from tfspeedlab.analysis.wording import ONE_PROCESS, time_ratio_word
from tfspeedlab.results.schema import ResultsFile
from tfspeedlab.site.charts import (
    FIGURE_WIDTH_IN,
    LINE_IN,
    THEMES,
    TITLE_BAND_IN,
    _add_caption,
    _caption_in,
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
        cut_any = False
        for axes, column in zip(panels[:, 0], column_values):
            present = [row for row in row_values if (row, column) in cells]
            times = [cells[(row, column)].measurement.per_call_s for row in present]
            # One unit per panel, for its axis and its bars' labels alike: the longest bar's, so
            # that no label reads "1.2 ms" on an axis counted in µs.
            # A panel whose bars span more than OFF_SCALE_FROM times its baseline is drawn to CUT_AT
            # times it: the bars near the baseline are the comparisons a reader acts on, and beside a
            # 40× bar they were slivers. A longer bar is cut there, hatched, and keeps its time.
            reference = grid.baseline(column)
            cut = (CUT_AT * reference.measurement.per_call_s
                   if reference is not None and max(times) > OFF_SCALE_FROM * reference.measurement.per_call_s
                   else None)
            shown = [time if cut is None else min(time, cut) for time in times]
            unit = select_unit(max(shown))
            unit_name, scale = unit
            positions = list(range(len(present))[::-1])
            colours = [theme.bars[0] if row == baseline else theme.bars[1] for row in present]
            bars = axes.barh(positions, [m / scale for m in shown], color=colours, height=0.65)
            for bar, time in zip(bars, times):
                if cut is not None and time > cut:
                    bar.set_hatch("///")
                    bar.set_edgecolor(theme.text)
                    bar.set_alpha(0.6)
                    cut_any = True
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
        if cut_any:
            note += f"\nHatched: a bar past {CUT_AT:g}× its panel's {baseline}, cut there."
        figure.text(0.01, caption_share, note, va="bottom", linespacing=1.2)
        lines = note.count("\n") + 1
        figure.tight_layout(rect=(0, caption_share + lines * LINE_IN / figure.get_figheight(), 1, 1 - band))
        _make_room_for_labels(figure, placed)
        return _svg(figure)


# A panel is cut where its longest bar passes OFF_SCALE_FROM × its baseline, at CUT_AT × it.
OFF_SCALE_FROM = 8.0
CUT_AT = 4.0


def _make_room_for_labels(figure, placed: dict) -> None:
    """Run each panel's axis far enough that the label beside every bar ends inside it: a label
    that takes a share f of the axes' width beside a bar of value v needs an axis to v ÷ (1 − f).
    Measured on the laid-out figure, as the labels' widths depend on the font and the axes' on the
    tick labels beside them."""
    renderer = figure.canvas.get_renderer()
    for axes, labels in placed.items():
        # (The labels were left out of the layout: fitted around them, the axes shrank to a strip.)
        width = axes.get_window_extent(renderer).width
        ends = [value / (1 - min(annotation.get_window_extent(renderer).width / width + 0.04, _MOST_LABEL_SHARE))
                for annotation, value in labels]
        axes.set_xlim(0, max(ends))


def _verdict_beside(grid, row, column) -> str:
    """`` · 1.42× faster`` or `` · no clear difference`` for a bar against its column's baseline (the
    grid table's verdict, in its fewest words); nothing beside the baseline itself."""
    reference = grid.baseline(column)
    if row == grid.layout.baseline or reference is None:
        return ""
    return f" · {time_ratio_word(intervals.ratio(grid.cells[(row, column)], reference))}"


# At most this share of a panel's width goes to the label beside a bar: a longer label may run past
# the axes rather than squeeze its bar to a sliver.
_MOST_LABEL_SHARE = 0.9
