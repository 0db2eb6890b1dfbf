"""The value axis of every bar chart, and the whisker each bar carries.

Where a chart's values span at most ``LOG_FROM`` times, its axis is linear from zero. Past that, the
axis is logarithmic: a 52× bar and a 4.7× bar then differ in length by their factor, where a linear
axis shrank every bar near the baseline to a sliver. No bar is cut short. On a log axis equal
lengths are equal factors, so a whisker drawn from a ratio's interval reads as that ratio.

A whisker is the 95% interval the bar's label states: a time's interval where the label is a time,
or the interval of the verdict against the baseline where the label gives one. That verdict's
interval is a ratio; it is drawn at the baseline's time times its ends. A case timed in one process
has no interval between processes, so its bar draws none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.units import UNIT_SPACE, format_significant, format_time, select_unit

# A chart whose largest value is more than this many times its smallest gets a log axis. At 8×, the
# shortest bar on a linear axis is an eighth of the longest: still a bar, and its end still reads.
LOG_FROM = 8.0
# Tick values within a decade, densest first: an axis takes the first whose labels do not collide.
TICK_STEPS = ((1.0, 2.0, 5.0), (1.0, 3.0), (1.0,))
# Between two tick labels, at least this share of the text's size.
TICK_GAP_EM = 0.8
# The smallest bar on a log axis stands this many times its axis's start: a visible length.
LOG_FLOOR_MARGIN = 1.25
# The SVG groups of bars and whiskers are named by these and their panel and place: a test (or a
# reader of the SVG) can pair every bar with its whisker.
BAR_ID = "bar"
WHISKER_ID = "whisker"
# Whiskers: the line and its caps.
WHISKER_STYLE = {"capsize": 3.5, "linewidth": 1.2, "capthick": 1.2}
# On a linear axis, a whisker shorter than this share of the panel's furthest reach is hidden under
# its caps (the kernel's 459 ns bar on a 0–60 µs axis): the label beside its bar states the interval.
SHORTEST_WHISKER = 0.02


@dataclass(frozen=True)
class Whisker:
    """A bar's 95% interval, in seconds."""

    low_s: float
    high_s: float


def time_whisker(case: CaseResult) -> Whisker | None:
    """The 95% interval of a case's time (its hierarchical bootstrap); none from one process."""
    if len(case.runs) < 2:
        return None
    found = intervals.estimate_of(case.measurement.per_call_s, intervals.resampled_estimates(case))
    return Whisker(found.low, found.high)


def ratio_whisker(found: intervals.Ratio, reference_s: float) -> Whisker | None:
    """The interval of a time ÷ a reference's (a verdict's), drawn as times: the reference's time ×
    each end. None where either side was timed in one process: that comparison has no verdict."""
    if found.one_process:
        return None
    return Whisker(reference_s * found.low, reference_s * found.high)


def too_short_to_see(whisker: Whisker | None, furthest_s: float, scale: Scale) -> bool:
    """Whether a whisker drawn on ``scale`` is too short to see beside bars that reach ``furthest_s``."""
    return (whisker is not None and not scale.log
            and whisker.high_s - whisker.low_s < SHORTEST_WHISKER * furthest_s)


def time_label(time_s: float, whisker: Whisker | None, furthest_s: float, scale: Scale, always: bool = False) -> str:
    """The time beside a bar; with its interval written out, in the time's unit, where its whisker is
    too short to see (or ``always``, for a chart whose rule is to write every one): ``459 ns [386–557 ns]``."""
    if whisker is None or not (always or too_short_to_see(whisker, furthest_s, scale)):
        return format_time(time_s)
    unit, seconds = select_unit(time_s)
    ends = "–".join(format_significant(end / seconds, 3) for end in (whisker.low_s, whisker.high_s))
    return f"{format_time(time_s)} [{ends}{UNIT_SPACE}{unit}]"


def needs_log(values: list[float]) -> bool:
    """Whether values (all positive) span more than ``LOG_FROM`` times."""
    return max(values) > LOG_FROM * min(values)


def short_time(seconds: float) -> str:
    """A tick's time: ``500 µs``, ``1 ms``, ``2.5 s``; three significant figures at most."""
    if seconds == 0:
        return "0"
    name, scale = select_unit(seconds)
    return f"{float(format_significant(seconds / scale, 3)):g}\u00a0{name}"


@dataclass(frozen=True)
class Scale:
    """One panel's value axis: linear from zero or log, plotted in ``unit`` (seconds per unit). A log
    axis runs ``span`` times from its start to its furthest whisker, the same in every panel of a
    chart, so that one length is one factor in all of them."""

    log: bool
    unit: float
    span: float = 1.0

    def start(self, lows_s: list[float], highs_s: list[float]) -> float:
        """Where every bar starts, in the axis's unit: zero, or on a log axis a 1-2-5 value ``span``
        below the furthest whisker."""
        if not self.log:
            return 0.0
        return _nice_below(max(highs_s) / self.span) / self.unit

    def label(self, what: str) -> str:
        return f"{what}, log scale" if self.log else what

    def tick_label(self, value: float) -> str:
        return short_time(value * self.unit)


def scales(panels: list[tuple[list[float], list[float], list[float]]]) -> list[Scale]:
    """A scale per panel of a chart, from each panel's (times, lows, highs) in seconds, every bar's
    time among its lows and highs: log in every panel where any panel's times span past
    ``LOG_FROM``, and then the same span in all. Each panel's unit is its longest bar's."""
    log = any(needs_log(times) for times, _, _ in panels)
    span = max(max(highs) / min(lows) for _, lows, highs in panels) * LOG_FLOOR_MARGIN
    return [Scale(log, select_unit(max(times))[1], span) for times, _, _ in panels]


def _nice_below(value: float) -> float:
    """The largest 1-2-5 value at or below ``value``."""
    decade = 10 ** math.floor(math.log10(value))
    return max(step * decade for step in (1.0, 2.0, 5.0) if step * decade <= value * (1 + 1e-9))


def draw_whiskers(axes, ends: list[float], positions: list[float], whiskers: list[Whisker | None], scale: Scale,
                  colour: str, panel: str) -> list[float]:
    """Each bar's whisker, where it has one (its SVG group named ``whisker-<panel>-<bar>``); returns
    where each bar's right side ends (its whisker's top or its own end), in the axis's unit."""
    reach = []
    for number, (end, position, whisker) in enumerate(zip(ends, positions, whiskers)):
        if whisker is None:
            reach.append(end)
            continue
        low, high = whisker.low_s / scale.unit, whisker.high_s / scale.unit
        drawn = axes.errorbar([end], [position], xerr=[[max(end - low, 0.0)], [max(high - end, 0.0)]], fmt="none",
                              ecolor=colour, **WHISKER_STYLE)
        drawn.lines[2][0].set_gid(f"{WHISKER_ID}-{panel}-{number}")
        reach.append(max(high, end))
    return reach


# At most this share of a panel's width goes to the label beside a bar: a longer label may run past
# the axes rather than squeeze its bar to a sliver.
_MOST_LABEL_SHARE = 0.9


def make_room_for_labels(figure, placed: dict, scales: dict) -> None:
    """Run each panel's axis far enough that the label beside every bar ends inside it. A label taking
    a share f of the axes' width beside a bar reaching v needs the axis to run from its start s to
    s + (v − s) ÷ (1 − f), in the axis's own terms (logarithms on a log axis). Measured on the laid-out
    figure, as the labels' widths depend on the font."""
    renderer = figure.canvas.get_renderer()
    for axes, labels in placed.items():
        scale = scales[axes]
        width = axes.get_window_extent(renderer).width
        start = axes.get_xlim()[0]
        ends = []
        for annotation, reach in labels:
            share = min(annotation.get_window_extent(renderer).width / width + 0.03, _MOST_LABEL_SHARE)
            if scale.log:
                ends.append(start * (reach / start) ** (1 / (1 - share)))
            else:
                ends.append(reach / (1 - share))
        axes.set_xlim(start, max(ends))


def set_ticks(figure, axes, scale: Scale, top: float, size_pt: float) -> None:
    """Label the axis from its start up to the first tick at or past ``top`` (the furthest bar or
    whisker, in the axis's unit), densest steps first where their labels fit; the room beyond, kept
    for the bars' labels, has no ticks. Call after ``make_room_for_labels``."""
    from matplotlib import ticker  # where a chart is drawn (``charts.pyplot``)

    start, end = axes.get_xlim()
    for steps in TICK_STEPS if scale.log else ((1.0, 2.0, 2.5, 5.0),):
        ticks = _log_ticks(start, top, steps) if scale.log else _linear_ticks(top)
        ticks = [tick for tick in ticks if start <= tick <= end]
        if _labels_fit(figure, axes, ticks, [scale.tick_label(tick) for tick in ticks], size_pt):
            break
    else:  # the sparsest steps still collide: every other power of ten
        ticks = ticks[::2]
    ticks = _inside_figure(figure, axes, ticks, [scale.tick_label(tick) for tick in ticks], size_pt)
    axes.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    axes.xaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: scale.tick_label(value)))
    # On a log axis, unlabelled marks at 2…9 of each decade: where a bar ends between two labels.
    minor = [step * decade for decade in _decades(start, ticks[-1]) for step in range(2, 10)
             if start <= step * decade <= ticks[-1]] if scale.log else []
    axes.xaxis.set_minor_locator(ticker.FixedLocator(minor))
    axes.xaxis.set_minor_formatter(ticker.NullFormatter())


def _decades(start: float, end: float) -> list[float]:
    """The powers of ten from the one at or below ``start`` to the one at or below ``end``."""
    return [10.0 ** power for power in range(math.floor(math.log10(start)), math.floor(math.log10(end)) + 1)]


def _log_ticks(start: float, top: float, steps: tuple[float, ...]) -> list[float]:
    ticks, decade = [], 10 ** math.floor(math.log10(start))
    while not ticks or ticks[-1] < top * (1 - 1e-9):
        ticks += [step * decade for step in steps if step * decade >= start * (1 - 1e-9)]
        decade *= 10
    return ticks[: next(i for i, tick in enumerate(ticks) if tick >= top * (1 - 1e-9)) + 1]


def _linear_ticks(top: float) -> list[float]:
    from matplotlib import ticker

    found = [tick for tick in ticker.MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]).tick_values(0, top) if tick >= 0]
    return found[: next((i for i, tick in enumerate(found) if tick >= top), len(found) - 1) + 1]


def _inside_figure(figure, axes, ticks: list[float], labels: list[str], size_pt: float) -> list[float]:
    """The ticks whose labels, centred under them, stay inside the figure (the first tick of a
    panel at the figure's left edge would have half its label cut off)."""
    from matplotlib.font_manager import FontProperties

    renderer = figure.canvas.get_renderer()
    font = FontProperties(size=size_pt)
    right = figure.bbox.width
    kept = []
    for tick, label in zip(ticks, labels):
        x = axes.transData.transform((tick, 0))[0]
        half = renderer.get_text_width_height_descent(label, font, ismath=False)[0] / 2
        if x - half >= 0 and x + half <= right:
            kept.append(tick)
    return kept


def _labels_fit(figure, axes, ticks: list[float], labels: list[str], size_pt: float) -> bool:
    """Whether the tick labels, centred under their ticks, keep ``TICK_GAP_EM`` apart."""
    from matplotlib.font_manager import FontProperties

    renderer = figure.canvas.get_renderer()
    font = FontProperties(size=size_pt)
    xs = [axes.transData.transform((tick, 0))[0] for tick in ticks]
    widths = [renderer.get_text_width_height_descent(label, font, ismath=False)[0] for label in labels]
    gap = TICK_GAP_EM * size_pt * figure.dpi / 72
    return all(x2 - w2 / 2 - (x1 + w1 / 2) >= gap for x1, w1, x2, w2 in zip(xs, widths, xs[1:], widths[1:]))
