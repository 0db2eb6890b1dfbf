"""A grid too large for a panel per column (CPU settings: twelve settings × twelve workloads, 144
bars, a chart 5,000 px tall) as one matrix: a cell per row and column, coloured by its speed-up over
the column's baseline, and left uncoloured where its 95% interval holds 1 (either side is possible).
The values are the table's beside it; the matrix is where a reader sees the pattern."""

from __future__ import annotations

import math
import textwrap

import numpy as np

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.grid import pivot
from tfspeedlab.core.wording import scale_mark
from tfspeedlab.render.charts import (FIGURE_WIDTH_IN, LINE_IN, TEXT_PT, THEMES, TITLE_PT, add_caption,
                                      caption_height_in, chart_style, figure_svg, line_chars, pyplot,
                                      unplaced_empty_labels, wrapped_title)

# From this many bars on, a grid is drawn as a matrix: at 0.3 in a bar, more would stand a chart
# several screens tall.
MATRIX_FROM_BARS = 60
# The colour scale's end, as a speed-up (its other end the same slow-down): the first of these
# that holds every clear cell, so that a grid of small differences still shows them.
SCALE_ENDS = (1.5, 2.0, 3.0, 4.0, 8.0)
# A cell's side, in inches: room for a column label's text height and no more.
CELL_IN = 0.26
# The neutral middle of the colour scale, on each scheme's page background.
NEUTRAL = {"light": "#f3f4f6", "dark": "#2d333b"}


def uses_matrix(results: ResultsFile) -> bool:
    """Whether a (not split) grid has too many bars for a panel per column."""
    grid = pivot(results)
    return len(grid.cells) >= MATRIX_FROM_BARS


def speedup_cells(results: ResultsFile) -> tuple[list, list, np.ndarray, np.ndarray]:
    """Rows (the baseline left out), columns, each cell's speed-up over its column's baseline (NaN
    where either was not measured), and whether its interval tells it from 1."""
    grid = pivot(results)
    rows = [row for row in grid.row_values if row != grid.layout.baseline]
    speedups = np.full((len(rows), len(grid.column_values)), np.nan)
    clear = np.zeros(speedups.shape, dtype=bool)
    for j, column in enumerate(grid.column_values):
        reference = grid.baseline(column)
        for i, row in enumerate(rows):
            case = grid.cells.get((row, column))
            if reference is None or case is None:
                continue
            found = intervals.ratio(reference, case)
            speedups[i, j] = found.value
            # Coloured where the whole interval lies on one side of 1 (from more than one process).
            clear[i, j] = not found.one_process and (found.above_one or found.below_one)
    return rows, list(grid.column_values), speedups, clear


def speedup_matrix_svg(results: ResultsFile, theme_name: str) -> str:
    """Rows × columns, each cell coloured by its speed-up over the column's baseline on a log scale
    (the theme's green for faster, its purple for slower: neither is the orange that marks a baseline
    bar on the same pages), hatched and uncoloured where unclear."""
    from matplotlib import colors

    plt = pyplot()
    theme = THEMES[theme_name]
    rows, columns, speedups, clear = speedup_cells(results)
    scale = colors.LinearSegmentedColormap.from_list(
        "speed-up", [theme.bars[3], NEUTRAL[theme_name], theme.bars[2]])
    end = scale_end(speedups[clear])
    norm = colors.LogNorm(1 / end, end)
    column_labels_in = max(len(str(column)) for column in columns) * 0.5 * TEXT_PT / 72 + 0.2
    title_in = (wrapped_title(results).count("\n") + 1) * TITLE_PT * 1.3 / 72 + 0.15
    top_in = title_in + len(_note(results.layout.baseline)) * LINE_IN + 0.15
    scale_in = 0.12 + 2 * LINE_IN  # the colour scale and its marks
    with chart_style(theme):
        height = top_in + len(rows) * CELL_IN + column_labels_in + scale_in + caption_height_in(results) + 0.1
        figure = plt.figure(figsize=(FIGURE_WIDTH_IN, height))
        caption_share = add_caption(figure, results)
        axes = figure.add_axes(_matrix_box(rows, columns, top_in, height))
        shown = np.where(clear, np.clip(speedups, 1 / end, end), np.nan)
        mesh = axes.pcolormesh(np.ma.masked_invalid(shown), cmap=scale, norm=norm, edgecolors=theme.grid,
                               linewidth=0.5)
        for i, j in zip(*np.nonzero(~clear)):
            if not math.isnan(speedups[i, j]):
                axes.add_patch(plt.Rectangle((j, i), 1, 1, fill=False, hatch="///", edgecolor=theme.grid,
                                             linewidth=0.0))
        axes.set_xlim(0, len(columns))
        axes.set_ylim(len(rows), 0)  # first row on top, as in the table
        axes.set_yticks([i + 0.5 for i in range(len(rows))], rows)
        axes.set_xticks([j + 0.5 for j in range(len(columns))], columns, rotation=90)
        axes.tick_params(length=0)
        for side in axes.spines.values():
            side.set_visible(False)
        figure.text(0.01, 1 - 0.1 / height, wrapped_title(results), va="top", ha="left", size=TITLE_PT)
        figure.text(0.01, 1 - title_in / height, "\n".join(_note(results.layout.baseline)), va="top", ha="left",
                    linespacing=1.2)
        bar_axes = figure.add_axes((0.08, caption_share + (2 * LINE_IN) / height, 0.84, 0.12 / height))
        bar = figure.colorbar(mesh, cax=bar_axes, orientation="horizontal")
        marks = scale_marks(end)
        bar.set_ticks(list(marks), labels=list(marks.values()))
        bar.ax.minorticks_off()
        bar.outline.set_visible(False)
        unplaced_empty_labels(figure)
        return figure_svg(figure)


def scale_end(clear_speedups: np.ndarray) -> float:
    """The colour scale's end: the first of ``SCALE_ENDS`` at or beyond every clear cell's speed-up
    or slow-down (the last where a cell goes further: it takes the end's colour)."""
    furthest = max((max(value, 1 / value) for value in clear_speedups.tolist()), default=1.0)
    return next((end for end in SCALE_ENDS if end >= furthest), SCALE_ENDS[-1])


def scale_marks(end: float) -> dict[float, str]:
    """The scale's marks, as speed-ups, and how they read (one voice: N× faster, N× slower)."""
    steps = [end] + ([2.0] if end >= 4 else [])  # more marks collide at TEXT_PT
    marks = {1.0: scale_mark(1.0)}
    for step in steps:
        marks[step] = scale_mark(step)
        marks[1 / step] = scale_mark(1 / step)
    return dict(sorted(marks.items()))


def _note(baseline: str) -> list[str]:
    """What a cell means, wrapped to the figure's width."""
    return textwrap.wrap(f"Each cell: the speed-up over {baseline} in its column. Hatched: its 95% interval "
                         f"holds 1×. Values: the table.", line_chars(TEXT_PT))


def _matrix_box(rows: list, columns: list, top_in: float, height: float) -> tuple[float, float, float, float]:
    """The matrix's place in figure fractions: right of the longest row label, ``top_in`` below the
    figure's top (under the title and the note), its column labels and the colour scale below it."""
    label_in = max(len(str(row)) for row in rows) * 0.56 * TEXT_PT / 72 + 0.15
    cell_width_in = min(CELL_IN * 1.6, (FIGURE_WIDTH_IN - label_in - 0.1) / len(columns))
    matrix_height_in = len(rows) * CELL_IN
    return (label_in / FIGURE_WIDTH_IN, (height - top_in - matrix_height_in) / height,
            cell_width_in * len(columns) / FIGURE_WIDTH_IN, matrix_height_in / height)
