"""A split grid's chart (one table per model, say): time per call on a log axis against the grid's
column, a line or point per row. A panel shows at most ``MAX_SERIES`` series, so that every line can
be told from the others: rows past that are split into groups, each drawn in panels of its own."""

from __future__ import annotations

import math
import textwrap

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats.grid import pivots
from tfspeedlab.render import bar_scale
from tfspeedlab.render.charts import (FIGURE_WIDTH_IN, LINE_IN, TEXT_PT, THEMES, TITLE_PT, Theme, add_caption,
                                      caption_height_in, chart_style, figure_svg, open_frame, panel_title_at_top,
                                      plain_log_ticks, pyplot, wrapped_title)

# The most series a panel draws: past about five, lines of near colours cross and hide each other.
MAX_SERIES = 5
# Rows named "<setting> · <variant>" with exactly these many variants (jit off, jit on) are drawn as
# one series per setting: a filled and a hollow point joined by a line (a dumbbell).
DUMBBELL_VARIANTS = 2
# A panel's plot area, in inches, and the room its column labels take below it.
PANEL_IN = 2.0
NUMBER_LABELS_IN = 0.55
# Where a grid's columns are names (fit, predict · batch 1), their labels are wrapped to this many
# characters and stand upright below the panel.
NAME_LABEL_CHARS = 14


def series_groups(rows: list) -> list[tuple[str | None, list]]:
    """The rows in groups of at most ``MAX_SERIES``, each with its title (or None), rows in order.

    A row named "<prefix> <other row>" (``tf_keras predict`` beside ``predict``) goes with the other
    rows of its prefix, titled by it; the rest form one group. A group still too large is cut into
    as few nearly equal runs as keep each within ``MAX_SERIES``."""
    if len(rows) <= MAX_SERIES:
        return [(None, list(rows))]
    by_prefix: dict[str | None, list] = {}
    for row in rows:
        twin = next((other for other in rows if other != row and str(row).endswith(f" {other}")), None)
        by_prefix.setdefault(None if twin is None else str(row)[: -len(str(twin)) - 1], []).append(row)
    groups = []
    for prefix, members in by_prefix.items():
        runs = math.ceil(len(members) / MAX_SERIES)
        size = math.ceil(len(members) / runs)
        groups += [(prefix, members[start:start + size]) for start in range(0, len(members), size)]
    return groups


def dumbbell_settings(rows: list) -> tuple[list[str], list[str]] | None:
    """(settings, variants) where every row is "<setting> · <variant>", each setting has every one of
    ``DUMBBELL_VARIANTS`` variants, and the settings fit one panel; else None."""
    if not all(" · " in str(row) for row in rows):
        return None
    pairs = [tuple(str(row).rsplit(" · ", 1)) for row in rows]
    settings = list(dict.fromkeys(setting for setting, _ in pairs))
    variants = list(dict.fromkeys(variant for _, variant in pairs))
    if len(variants) != DUMBBELL_VARIANTS or len(settings) > MAX_SERIES or len(pairs) != len(settings) * len(variants):
        return None
    return settings, variants


def line_styles(rows: list, theme: Theme) -> dict:
    """A colour and dash per row. A row named "<prefix> <other row>" is the same call made another
    way: it takes that row's colour, dashed, in whichever panel each is drawn."""
    styles, colours = {}, iter(theme.lines * 2)
    twins = {row: next((other for other in rows if other != row and str(row).endswith(f" {other}")), None)
             for row in rows}
    for row in rows:
        if twins[row] is None:
            styles[row] = (next(colours), "-")
    for row in rows:
        if twins[row] is not None:
            styles[row] = (styles[twins[row]][0], "--")
    return styles


def split_grid_svg(results: ResultsFile, theme_name: str) -> str:
    """A split grid: time per call on a log axis against the column value, every panel on one time
    axis. A numeric column (batch size) is a log axis with a line per row; a column of names (the
    call: fit, predict) gives each name a place of its own, with a point per row there."""
    theme = THEMES[theme_name]
    grids = pivots(results)
    rows = list(dict.fromkeys(row for grid in grids for row in grid.row_values))
    numeric = all(isinstance(value, int | float) and not isinstance(value, bool)
                  for grid in grids for value in grid.column_values)
    dumbbell = None if numeric else dumbbell_settings(rows)
    groups = [(None, rows)] if dumbbell else series_groups(rows)
    # Panels side by side where each is one part of a group of lines: two parts fit across.
    across = len(grids) if numeric and len(groups) > 1 and len(grids) <= 2 else 1
    bands = ([(None, [(grid.part, grid, group) for grid in grids]) for _, group in groups] if across > 1 else
             [(title, [(grid.part if title is None else f"{grid.part} · {title}", grid, group)])
              for grid in grids for title, group in groups])
    shared_legend = len(groups) == 1
    styles = line_styles(rows, theme)
    times = [case.measurement.per_call_s for grid in grids for case in grid.cells.values()]
    with chart_style(theme):
        # Names along the axis are long: they stand under the last panel and over the first, not under each.
        column_in = NUMBER_LABELS_IN if numeric else 0.1
        band_in = [PANEL_IN + column_in + 0.35 + (0 if shared_legend else _legend_in(group))
                   for _, ((_, _, group), *_) in bands]
        if not numeric:
            band_in[0] += _name_labels_in(grids)
            band_in[-1] += _name_labels_in(grids)
        top_in = (wrapped_title(results).count("\n") + 1) * TITLE_PT * 1.3 / 72 + 0.2
        if shared_legend:
            top_in += _legend_in(dumbbell[0] + dumbbell[1] if dumbbell else rows)
        height = top_in + sum(band_in) + caption_height_in(results)
        figure = pyplot().figure(figsize=(FIGURE_WIDTH_IN, height), layout="constrained")
        caption_share = add_caption(figure, results)
        figure.get_layout_engine().set(rect=(0, caption_share, 1, 1 - caption_share))
        heads, *subfigures = figure.subfigures(len(bands) + 1, 1, height_ratios=[top_in] + band_in)
        everything = []
        for subfigure, (_, panels) in zip(subfigures, bands):
            axes_row = subfigure.subplots(1, across, squeeze=False)[0]
            for axes, (title, grid, group) in zip(axes_row, panels):
                if dumbbell:
                    _draw_dumbbells(axes, grid, *dumbbell, theme)
                else:
                    _draw_lines(axes, grid, group, numeric, styles)
                if numeric or everything:  # tick labels stand above the first panel of names only
                    panel_title_at_top(axes, str(title))
                else:
                    axes.set_title(str(title), loc="left")
                everything.append((axes, grid))
            if not shared_legend:
                subfigure.legend(*_legend_entries(list(axes_row)), loc="outside upper left", ncols=2,
                                 frameon=False, labelcolor=theme.text, handlelength=2.2, columnspacing=1.2,
                                 borderaxespad=0.2)
        low, high = min(times) / 1.5, max(times) * 1.5
        first, last = everything[0][0], everything[-1][0]
        for number, (axes, grid) in enumerate(everything):
            _finish_panel(axes, low, high, numeric, grid, theme, leftmost=number % across == 0)
            if not numeric:  # names under the last panel and over the first only
                axes.tick_params(axis="x", labelbottom=axes is last, labeltop=axes is first, top=axes is first)
        heads.text(0.01, 0.98, wrapped_title(results), va="top", ha="left", size=TITLE_PT)
        if shared_legend:
            handles = _dumbbell_legend(*dumbbell, theme) if dumbbell else _legend_entries([a for a, _ in everything])
            heads.legend(*handles, loc="lower left", ncols=2, frameon=False, labelcolor=theme.text,
                         handlelength=2.2, columnspacing=1.2, borderaxespad=0.2)
        return figure_svg(figure)


def _legend_in(group: list) -> float:
    """A legend's height: two entries a line."""
    return math.ceil(len(group) / 2) * LINE_IN * 1.2 + 0.1


def _name_labels_in(grids) -> float:
    """The height of upright column labels wrapped to ``NAME_LABEL_CHARS``."""
    longest = max(min(len(str(value)), NAME_LABEL_CHARS) for grid in grids for value in grid.column_values)
    return longest * 0.56 * TEXT_PT / 72 + 0.25


def _draw_lines(axes, grid, group: list, numeric: bool, styles: dict) -> None:
    place = {value: value if numeric else index for index, value in enumerate(grid.column_values)}
    for number, row in enumerate(group):
        points = grid.row(row)
        if not points:
            continue
        colour, dash = styles[row]
        # Named places: each row a little apart within its place, so that two rows of nearly one
        # time do not hide one another.
        nudge = 0.0 if numeric else 0.6 * (number / max(len(group) - 1, 1) - 0.5)
        axes.plot([place[column] + nudge for column, _ in points], [case.measurement.per_call_s for _, case in points],
                  color=colour, linestyle=dash if numeric else "none", marker="o", markersize=4 if numeric else 6,
                  linewidth=1.6, label=str(row))


def _draw_dumbbells(axes, grid, settings: list[str], variants: list[str], theme: Theme) -> None:
    """Per setting and column, its first variant as a filled point and its second as a hollow one,
    joined by a line: how far the variant moves the time, at a glance."""
    for number, setting in enumerate(settings):
        colour = theme.lines[number % len(theme.lines)]
        nudge = 0.64 * (number / max(len(settings) - 1, 1) - 0.5)
        for index, column in enumerate(grid.column_values):
            found = [grid.cells.get((f"{setting} · {variant}", column)) for variant in variants]
            times = [case.measurement.per_call_s if case is not None else None for case in found]
            if all(time is not None for time in times):
                axes.plot([index + nudge] * 2, times, color=colour, linewidth=1.4)
            for time, hollow in zip(times, (False, True)):
                if time is not None:
                    axes.plot([index + nudge], [time], linestyle="none", marker="o", markersize=5.5, color=colour,
                              markerfacecolor="none" if hollow else colour, markeredgewidth=1.4,
                              label=setting if not hollow and index == 0 else None)


def _dumbbell_legend(settings: list[str], variants: list[str], theme: Theme):
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colour, marker="o", linestyle="none", markersize=6)
               for colour in theme.lines[: len(settings)]]
    handles += [Line2D([], [], color=theme.text, marker="o", linestyle="none", markersize=6),
                Line2D([], [], color=theme.text, marker="o", markerfacecolor="none", linestyle="none", markersize=6)]
    return handles, settings + [f"filled: {variants[0]}", f"hollow: {variants[1]}, joined to it"]


def _legend_entries(axes_list) -> tuple[list, list]:
    found = {}
    for axes in axes_list:
        for handle, label in zip(*axes.get_legend_handles_labels()):
            found.setdefault(label, handle)
    return list(found.values()), list(found)


def _finish_panel(axes, low: float, high: float, numeric: bool, grid, theme: Theme, leftmost: bool) -> None:
    """One time axis for every panel, labelled on the leftmost of a row, and the column's values below each."""
    from matplotlib import ticker

    axes.set_yscale("log")
    axes.set_ylim(low, high)
    plain_log_ticks(axes.yaxis, bar_scale.short_time)
    if numeric:
        axes.set_xscale("log")
        plain_log_ticks(axes.xaxis)
        axes.set_xticks(grid.column_values, [f"{value:g}" for value in grid.column_values])
        axes.xaxis.set_minor_locator(ticker.NullLocator())
        axes.set_xlabel(grid.layout.columns.replace("_", " ") + " (log scale)")
    else:
        labels = ["\n".join(textwrap.wrap(str(value), NAME_LABEL_CHARS)) for value in grid.column_values]
        axes.set_xticks(range(len(labels)), labels, linespacing=1.0)
        axes.tick_params(axis="x", labelrotation=90)
        axes.set_xlim(-0.5, len(labels) - 0.5)
    if leftmost:
        axes.set_ylabel(f"time per {grid.layout.time_per} (log scale)")
    else:
        axes.tick_params(axis="y", labelleft=False)
    axes.grid(which="major", color=theme.grid, linewidth=0.6)
    open_frame(axes)
