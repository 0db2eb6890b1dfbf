"""Trend charts of the release history: one chart per workload, a line per mode across releases."""

from __future__ import annotations

import textwrap

from tfspeedlab.core.results.history import ReleaseResults
from tfspeedlab.core.spec.releases import KERAS_3_FROM, Release
from tfspeedlab.core.units import select_unit
from tfspeedlab.history import trends
from tfspeedlab.render.charts import (FIGURE_WIDTH_IN, LINE_IN, TEXT_PT, THEMES, TIME_INTERVAL_NOTE, TITLE_PT,
                                      chart_style, figure_svg, line_chars, open_frame, plain_log_ticks,
                                      pyplot, wrap_at_separators)

# A line whose slowest release is this many times its fastest gets a log axis.
LOG_SPREAD = 8.0
# The longest line of a legend entry in one column (a chart's width at its text size).
LEGEND_CHARS = 50
# The longest entry of a legend in two columns: half the width, less the line drawn beside it.
LEGEND_COLUMN_CHARS = 24
# The most lines a panel draws: past about five, lines of near colours cross and hide each other.
MAX_SERIES = 5


# How a line of one pass is named: a chart of a history measured in several passes (``history
# --passes 2``, pooled) draws each apart. "Pass", as the pages and the passes table say.
SITTING_SEPARATOR = " · pass "
SITTING_LINE = "{mode}" + SITTING_SEPARATOR + "{number}"
SITTING_STYLES = ("-", "--", ":")
# What a start-up case's time is, by the startup example's ``kind``: each block is a fresh process
# started and timed to its end, a cold start, not a call. The y axis says so.
COLD_STARTS = {"import": "cold start: import time", "first prediction": "cold start to first prediction"}


def trend_series(history: list[ReleaseResults], example: str, workload: str) -> dict[str, list[trends.TrendPoint]]:
    """Each mode of ``workload`` (named as tables name it) and its points, oldest release first. The
    cases an example re-measures on every release, where each release was measured in several
    sittings, get a line per sitting instead: a machine that sped up during one sitting then shows
    as one line stepping while the other stays flat, not as a change of the releases."""
    group = trends.workload_groups(history, example)[workload]
    if workload == trends.HISTORY_GROUP:
        by_sitting = {mode: trends.sitting_trends(history, example, label) for mode, label in group.items()}
        if all(by_sitting.values()):
            return {SITTING_LINE.format(mode=mode, number=number): points
                    for mode, sittings in by_sitting.items()
                    for number, points in enumerate(sittings, start=1)}
    return {trends.mode_label(history, example, label, mode): trends.trend(history, example, label)
            for mode, label in group.items()}


def trend_quantities(history: list[ReleaseResults], example: str, workload: str) -> dict[str, str]:
    """What each mode's time of ``workload`` is, by its name in ``trend_series``: a cold start where the
    case is one (``COLD_STARTS``), else a time per call, or per step where the mode's time is."""
    found = {}
    for mode, label in trends.workload_groups(history, example)[workload].items():
        kind = next((case.params.get("kind") for item in reversed(history) if example in item.results
                     for case in item.results[example].cases if case.label == label), None)
        name = trends.mode_label(history, example, label, mode)
        found[mode if workload == trends.HISTORY_GROUP else name] = COLD_STARTS.get(
            kind, "time per step" if name.endswith("(per step)") else "time per call")
    return found


def _quantity(names: list[str], quantities: dict[str, str]) -> str:
    """The y axis's words for a panel of these lines: what their times are, where they agree."""
    found = {quantities.get(name.rpartition(SITTING_SEPARATOR)[0] or name, quantities.get(name, "time per call"))
             for name in names}
    if len(found) == 1:
        return found.pop()
    return "time per call or step" if found <= {"time per call", "time per step"} else "time"


def _line_style(index: int, name: str, modes: list[str], theme) -> tuple[str, str]:
    """A line's colour and dash: one colour per mode, one dash per sitting where lines are sittings."""
    mode, _, sitting = name.rpartition(SITTING_SEPARATOR)
    if mode and sitting.isdigit():
        return (theme.lines[modes.index(mode) % len(theme.lines)],
                SITTING_STYLES[(int(sitting) - 1) % len(SITTING_STYLES)])
    return theme.lines[index % len(theme.lines)], "-"


def _legend_title(example: str, workload: str, sittings: bool, cold: bool = False) -> str:
    """A workload names its own chart; the group of an example's history cases is named by what its
    cases are where they are cold starts, else by the example."""
    if workload != trends.HISTORY_GROUP:
        return workload
    head = "Start-up on every release" if cold else f"{example}, on every release"
    return head + (": a line per case and pass" if sittings else "")


def trend_groups(series: dict[str, list]) -> list[list[str]]:
    """The lines in panels of at most ``MAX_SERIES``, a mode's sittings kept in one panel, in order."""
    if len(series) <= MAX_SERIES:
        return [list(series)]
    by_mode: dict[str, list[str]] = {}
    for name in series:
        by_mode.setdefault(name.rpartition(SITTING_SEPARATOR)[0] or name, []).append(name)
    panels: list[list[str]] = []
    per_panel = max(len(names) for names in by_mode.values())
    modes_per_panel = max(MAX_SERIES // per_panel, 1)
    count = -(-len(by_mode) // modes_per_panel)
    modes = list(by_mode)
    size = -(-len(modes) // count)  # as even as it goes: 4 modes in 2 panels of 2, not 3 and 1
    for start in range(0, len(modes), size):
        panels.append([name for mode in modes[start:start + size] for name in by_mode[mode]])
    return panels


def _legend_columns(names: list[str]) -> int:
    """Two columns where every name fits half the figure's width beside its line, else one."""
    return 2 if max(len(name) for name in names) <= LEGEND_COLUMN_CHARS else 1


def trend_svg(series: dict[str, list[trends.TrendPoint]], releases: list[Release], example: str, workload: str,
              theme_name: str, quantities: dict[str, str] | None = None) -> str:
    """Time per call of each mode of ``workload`` on every release, with 95% intervals; the
    release that made Keras 3 ``tf.keras`` marked. More than ``MAX_SERIES`` lines go in several
    panels, on one time axis, each labelled by what its times are (``quantities``, by mode:
    ``trend_quantities``; a time per call where not given)."""
    from matplotlib import ticker

    quantities = quantities or {}
    theme = THEMES[theme_name]
    estimates = [point.estimate_s for points in series.values() for point in points]
    # The unit of the middle of the range (geometric): "50000 µs" ticks read badly.
    unit_name, scale = select_unit((min(estimates) * max(estimates)) ** 0.5)
    log_scale = max(estimates) / min(estimates) >= LOG_SPREAD
    sittings = any(SITTING_SEPARATOR in name for name in series)
    cold = any(quantity.startswith("cold start") for quantity in quantities.values())
    # Cold starts: the title already names the chart (``_legend_title``), so the caption leads with what
    # a line is, not the example's name.
    if sittings and cold:
        caption = ("a line per pass: the 10th percentile of its cold starts · each cold start a fresh process"
                   " · no interval")
    elif sittings:
        caption = f"{example} · a line per pass: the 10th percentile of its blocks · no interval"
    else:
        caption = f"{example} · 10th percentile of all blocks · bars: 95% interval, with the drift between sittings"
    # A part longer than the figure's width is wrapped too, so that no caption runs past the figure's edge.
    caption_lines = [line for part in wrap_at_separators(caption) for line in textwrap.wrap(part, line_chars(TEXT_PT))]
    caption_lines += [] if sittings else textwrap.wrap(TIME_INTERVAL_NOTE, line_chars(TEXT_PT))
    # A long name is broken between its parts (" · "), so that a sitting's number stays in view.
    legend_names = {name: "\n".join(line for part in wrap_at_separators(name, width=LEGEND_CHARS)
                                    for line in textwrap.wrap(part, LEGEND_CHARS)) for name in series}
    groups = trend_groups(series)
    modes = list(dict.fromkeys(name.rpartition(SITTING_SEPARATOR)[0] or name for name in series))
    legend_in = [0.3 * sum(legend_names[name].count("\n") + 1 for name in group) / _legend_columns(group) + 0.1
                 for group in groups]
    panel_in = [3.2 + legend for legend in legend_in]
    title_in = 0.35
    low = min(point.low_s for points in series.values() for point in points) / scale
    high = max(point.high_s for points in series.values() for point in points) / scale
    with chart_style(theme):
        height = title_in + sum(panel_in) + LINE_IN * len(caption_lines) + 0.1
        figure = pyplot().figure(figsize=(FIGURE_WIDTH_IN, height), layout="constrained")
        heads, *panels = figure.subfigures(len(groups) + 1, 1, height_ratios=[title_in] + panel_in)
        heads.text(0.01, 0.5, _legend_title(example, workload, sittings, cold), va="center", ha="left", size=TITLE_PT)
        for subfigure, group in zip(panels, groups):
            axes = subfigure.subplots()
            _draw_trend(axes, {name: series[name] for name in group}, releases, modes, legend_names, scale, theme)
            if log_scale:
                axes.set_yscale("log")
                axes.set_ylim(low / 1.6, high * 1.6)
                plain_log_ticks(axes.yaxis)
            else:
                axes.set_ylim(bottom=0, top=high * 1.15)
                axes.yaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
            axes.set_ylabel(f"{_quantity(group, quantities)} ({unit_name}{', log scale' if log_scale else ''})")
            subfigure.legend(loc="outside upper left", ncols=_legend_columns(group), frameon=False,
                             labelcolor=theme.text, alignment="left")
        figure.text(0.01, 0.005, "\n".join(caption_lines), va="bottom", alpha=0.85, linespacing=1.2)
        caption_share = LINE_IN * len(caption_lines) / height + 0.01
        figure.get_layout_engine().set(rect=(0, caption_share, 1, 1 - caption_share))  # left, bottom, width, height
        return figure_svg(figure)


def _draw_trend(axes, series: dict, releases: list[Release], modes: list[str], legend_names: dict, scale: float,
                theme) -> None:
    positions = {release: index for index, release in enumerate(releases)}
    for index, (mode, points) in enumerate(series.items()):
        colour, dash = _line_style(modes.index(mode) if mode in modes else index, mode, modes, theme)
        xs = [positions[point.release] for point in points]
        ys = [point.estimate_s / scale for point in points]
        errors = [[(point.estimate_s - point.low_s) / scale for point in points],
                  [(point.high_s - point.estimate_s) / scale for point in points]]
        if any(point.low_s < point.high_s for point in points):
            axes.errorbar(xs, ys, yerr=errors, color=colour, linestyle=dash, marker="o", markersize=4,
                          linewidth=1.6, capsize=2.5, label=legend_names[mode])
        else:  # a line without intervals (a sitting's): no whisker caps in its legend entry either
            axes.plot(xs, ys, color=colour, linestyle=dash, marker="o", markersize=4, linewidth=1.6,
                      label=legend_names[mode])
    switch = next((positions[r] for r in releases if (r.major, r.minor) >= KERAS_3_FROM), None)
    if switch is not None and switch > 0:
        axes.axvline(switch - 0.5, color=theme.text, linestyle=":", linewidth=1)
        axes.annotate("Keras 3 →", xy=(switch - 0.45, 1), xycoords=("data", "axes fraction"),
                      ha="left", va="top", alpha=0.85)
    axes.set_xticks(range(len(releases)), [release.name for release in releases])
    axes.set_xlim(-0.5, len(releases) - 0.5)
    axes.set_xlabel("TensorFlow release")
    axes.grid(axis="y", color=theme.grid, linewidth=0.6)
    open_frame(axes)
