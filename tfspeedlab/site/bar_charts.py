"""Bars of time per call: a results file's cases, or a panel of a grid's. Each bar has its name above
it, its time and verdict beside it, and the 95% interval that label comes from as a whisker
(``bar_scale``). With names above the bars, the bars and their labels get the figure's full width."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from tfspeedlab.core.results.schema import CaseResult, ResultsFile
from tfspeedlab.core.stats import intervals, summary
from tfspeedlab.core.units import format_time
from tfspeedlab.core.wording import ONE_PROCESS, time_ratio_word
from tfspeedlab.render import bar_scale
from tfspeedlab.render.charts import (FIGURE_WIDTH_IN, LINE_IN, TEXT_PT, THEMES, TIME_INTERVAL_NOTE, TITLE_PT, Theme,
                                      add_caption, caption_height_in, chart_style, figure_svg, line_chars, open_frame,
                                      pyplot, unplaced_empty_labels, wrapped_title)

# Beside the time of a bar whose training case did not train.
UNTRAINED_MARK = "did not train"
# A bar's row, in inches: its name's line above it and the bar itself.
ROW_IN = 0.5
# A bar's thickness, as a share of its row.
BAR_SHARE = 0.42
# The most characters of a name on one line above its bar (the figure's width, less a margin).
NAME_CHARS = line_chars(TEXT_PT) - 4


@dataclass(frozen=True)
class BarRow:
    """One bar: what it is, its time, its whisker (None: timed in one process), its label's words."""

    name: str
    time_s: float
    whisker: bar_scale.Whisker | None
    label: str
    colour: str
    hatched: bool = False


def case_rows(cases: list[CaseResult], reference: CaseResult | None, theme: Theme,
              untrained: set[str] = frozenset()) -> tuple[list[BarRow], bool]:
    """A bar per case, and whether every comparison in them was timed in one process (then no label
    says so: the chart says it once). Against a reference, each label gives the table's verdict and
    each whisker that verdict's interval; without one, each whisker is the time's own interval."""
    if reference is None:
        whiskers = [bar_scale.time_whisker(case) for case in cases]
        ratios = {}
    else:  # the reference's own whisker: its time against a fresh run of itself
        found = [intervals.ratio(case, reference) for case in cases]
        whiskers = [bar_scale.ratio_whisker(ratio, reference.measurement.per_call_s) for ratio in found]
        ratios = {case.label: ratio for case, ratio in zip(cases, found) if case is not reference}
    all_one_process = all(whisker is None for whisker in whiskers)
    rows = []
    for case, whisker in zip(cases, whiskers):
        words = format_time(case.measurement.per_call_s)
        if case.label in untrained:
            words += f" · {UNTRAINED_MARK}"
        elif case.label in ratios and not all_one_process:
            words += f" · {time_ratio_word(ratios[case.label])}"
        colour = theme.bars[0] if reference is None or case is reference else theme.bars[1]
        rows.append(BarRow(case.label, case.measurement.per_call_s, whisker, words, colour, case.label in untrained))
    return rows, all_one_process


def extent(rows: list[BarRow]) -> tuple[list[float], list[float], list[float]]:
    """The bars' times, and their lower and upper reaches (each time and whisker end), in seconds."""
    times = [row.time_s for row in rows]
    return (times, times + [row.whisker.low_s for row in rows if row.whisker],
            times + [row.whisker.high_s for row in rows if row.whisker])


def name_lines(name: str) -> list[str]:
    return textwrap.wrap(name, NAME_CHARS, break_long_words=False) or [name]


def rows_in(rows: list[BarRow]) -> float:
    """The height a panel of these bars takes, in inches (a long name takes a second line)."""
    return sum(ROW_IN + (len(name_lines(row.name)) - 1) * LINE_IN for row in rows)


def draw_bar_panel(axes, rows: list[BarRow], scale: bar_scale.Scale, theme: Theme,
                   reference_s: float | None, panel: str = "0") -> tuple[list, float]:
    """The bars, top to bottom in the order given, on ``scale``; returns each label beside a bar with
    how far its bar and whisker reach, and the furthest reach (both in the axis's unit)."""
    # A row is one unit tall, and a name on two lines takes a little more.
    heights = [1 + (len(name_lines(row.name)) - 1) * LINE_IN / ROW_IN for row in rows]
    positions, top = [], 0.0
    for height in reversed(heights):
        positions.insert(0, top + BAR_SHARE / 2 + 0.05)
        top += height
    ends = [row.time_s / scale.unit for row in rows]
    start = scale.start(*extent(rows)[1:])
    bars = axes.barh(positions, [end - start for end in ends], left=start, height=BAR_SHARE,
                     color=[row.colour for row in rows])
    for number, (bar, row) in enumerate(zip(bars, rows)):
        bar.set_gid(f"{bar_scale.BAR_ID}-{panel}-{number}")
        if row.hatched:  # a training case that did not train: fast because it did nothing
            bar.set_hatch("///")
            bar.set_edgecolor(theme.text)
            bar.set_alpha(0.5)
    reach = bar_scale.draw_whiskers(axes, ends, positions, [row.whisker for row in rows], scale, theme.text, panel)
    for position, row in zip(positions, rows):
        axes.annotate("\n".join(name_lines(row.name)), xy=(0, position + BAR_SHARE / 2),
                      xycoords=("axes fraction", "data"), xytext=(0, 2), textcoords="offset points",
                      ha="left", va="bottom", linespacing=1.1, in_layout=False)
    placed = [(axes.annotate(row.label, (far, position), xytext=(5, 0), textcoords="offset points", va="center",
                             ha="left", in_layout=False), far)
              for position, row, far in zip(positions, rows, reach)]
    if reference_s is not None:  # the reference's time, for every bar's end and whisker to be read against;
        # through each bar's row, not across the names above the bars
        reach_out = BAR_SHARE / 2 + 0.06
        axes.vlines([reference_s / scale.unit] * len(positions), [p - reach_out for p in positions],
                    [p + reach_out for p in positions], color=theme.text, linestyle=(0, (1.5, 2.5)),
                    linewidth=0.9, alpha=0.8, zorder=1.5, gid=REFERENCE_LINE)
    axes.set_ylim(0, top)
    axes.set_yticks([])
    if scale.log:
        axes.set_xscale("log")
    axes.set_xlim(left=start)
    axes.grid(axis="x", color=theme.grid, linewidth=0.6)
    open_frame(axes)
    return placed, max(reach)


# The id of a panel's dotted reference line (its segments through rows whose label it would cross
# are taken out once the labels are placed).
REFERENCE_LINE = "reference-time"


def _clear_reference_line(figure, axes, placed: list) -> None:
    """Take out the reference line's segment through each row whose label it would cross."""
    renderer = figure.canvas.get_renderer()
    for line in [found for found in axes.collections if found.get_gid() == REFERENCE_LINE]:
        kept = []
        for segment, (annotation, _) in zip(line.get_segments(), placed):
            x = axes.transData.transform(segment[0])[0]
            box = annotation.get_window_extent(renderer)
            if not box.x0 - 2 <= x <= box.x1 + 2:
                kept.append(segment)
        line.set_segments(kept)


def whisker_note(baseline: str | None, one_process: bool) -> str:
    """What the labels and whiskers of a bar chart are, said once under it."""
    if baseline is None:
        note = f"Whisker: the 95% interval of the time. {TIME_INTERVAL_NOTE}"
    else:
        note = (f"Beside each bar: its time and its verdict against {baseline}. Whisker: that verdict's 95% "
                f"interval, drawn as a time; on {baseline}, its own. Dotted line: {baseline}'s time.")
    if one_process:
        note += f" {ONE_PROCESS[0].upper()}{ONE_PROCESS[1:]}; no whisker either."
    return note


# Margins of a bar figure, in inches: beside the panels, and under a panel for its tick labels.
SIDE_IN = 0.08
TICKS_IN = 0.32
# Between a panel and the next one's title.
PANEL_GAP_IN = 0.2


@dataclass(frozen=True)
class Panel:
    """A panel of bars: its title (or None), bars, scale, axis label (or None) and reference time."""

    title: str | None
    rows: list[BarRow]
    scale: bar_scale.Scale
    axis_label: str | None = None
    reference_s: float | None = None


def _wrapped(text: str | None) -> list[str]:
    return textwrap.wrap(text, line_chars(TEXT_PT)) if text else []


def bar_figure(results: ResultsFile, panels: list[Panel], note: str, theme: Theme) -> str:
    """The figure's title, then each panel (its title, its bars, its ticks and axis label), then the
    note and the caption; every height in inches, so nothing is squeezed. Each panel's axis then runs
    far enough for its labels, and gets the ticks that fit (both measured on the drawn figure)."""
    heads = [_wrapped(panel.title) for panel in panels]
    feet = [TICKS_IN + len(_wrapped(panel.axis_label)) * LINE_IN for panel in panels]
    bodies = [rows_in(panel.rows) for panel in panels]
    notes = _wrapped(note)
    top_in = title_in(results)
    height = (top_in + sum(len(head) * LINE_IN + body + foot + PANEL_GAP_IN
                           for head, body, foot in zip(heads, bodies, feet))
              + len(notes) * LINE_IN + caption_height_in(results))
    with chart_style(theme):
        figure = pyplot().figure(figsize=(FIGURE_WIDTH_IN, height))
        figure.text(0.01, 1 - 0.06 / height, wrapped_title(results), va="top", ha="left", size=TITLE_PT)
        placed, scales, tops = {}, {}, {}
        y = height - top_in  # the top of what comes next, in inches from the foot
        for number, (panel, head, body, foot) in enumerate(zip(panels, heads, bodies, feet)):
            if head:
                figure.text(0.01, y / height, "\n".join(head), va="top", ha="left", linespacing=1.2)
                y -= len(head) * LINE_IN
            y -= body
            axes = figure.add_axes((SIDE_IN / FIGURE_WIDTH_IN, y / height, 1 - 2 * SIDE_IN / FIGURE_WIDTH_IN,
                                    body / height))
            placed[axes], tops[axes] = draw_bar_panel(axes, panel.rows, panel.scale, theme, panel.reference_s,
                                                      str(number))
            scales[axes] = panel.scale
            if panel.axis_label:
                axes.set_xlabel("\n".join(_wrapped(panel.axis_label)), loc="left")
            y -= foot + PANEL_GAP_IN
        caption_share = add_caption(figure, results)
        figure.text(0.01, caption_share, "\n".join(notes), va="bottom", linespacing=1.2)
        bar_scale.make_room_for_labels(figure, placed, scales)
        for axes, scale in scales.items():
            bar_scale.set_ticks(figure, axes, scale, tops[axes], TEXT_PT)
            _clear_reference_line(figure, axes, placed[axes])
        unplaced_empty_labels(figure)
        return figure_svg(figure)


def title_in(results: ResultsFile) -> float:
    """The band the figure's title takes at its top, in inches."""
    return (wrapped_title(results).count("\n") + 1) * TITLE_PT * 1.3 / 72 + 0.22


def time_per_call_svg(results: ResultsFile, theme_name: str) -> str:
    """A bar per case; beside each, its time and, where the table has a baseline, the table's verdict
    against it, with that verdict's interval as its whisker (else the time's own)."""
    theme = THEMES[theme_name]
    cases = list(results.cases)
    reference = next((case for case in cases if case.label == results.baseline), None)
    rows, _ = case_rows(cases, reference, theme, summary.untrained_cases(results))
    one_process = any(row.whisker is None for row in rows)  # said once, under the chart
    per = "step" if any(case.params.get("steps_per_call", 1) != 1 for case in cases) else "call"
    scale, = bar_scale.scales([extent(rows)])
    note = whisker_note(results.baseline if reference is not None else None, one_process)
    panel = Panel(None, rows, scale, scale.label(f"time per {per}, 10th percentile of all blocks"),
                  reference.measurement.per_call_s if reference is not None else None)
    return bar_figure(results, [panel], note, theme)
