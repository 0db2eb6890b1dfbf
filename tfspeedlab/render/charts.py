"""SVG charts of a results file, one per colour scheme of the site."""

from __future__ import annotations

import functools
import io
import math
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from tfspeedlab.core.profiling import HOST_LAYER_LABELS, HOST_LAYERS
from tfspeedlab.core.results.cpu import cpu_name
from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats import op_layers, sweeps
from tfspeedlab.core.units import select_unit
from tfspeedlab.render import bar_scale, hidden_characters


@functools.cache
def pyplot():
    """matplotlib's pyplot, drawing to files (Agg: no display on CI machines or docs builders).

    matplotlib is imported the first time a chart is drawn, not with the modules that draw them: a warm
    site build draws no chart, and importing it was a twentieth of that build. A cold build's workers,
    which draw them, import it each (``site.chart_drawing``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt

# A chart is drawn at a phone's density and shown at its natural size on a
# wider screen. On a phone (a 390 px window leaves a 358 px column) the browser
# scales it down to the column, and its text with it: to keep every text at
# 10 px or more there, a figure FIGURE_WIDTH_IN wide needs text of at least
# 10 px × FIGURE_WIDTH_IN × 72 pt/in ÷ 358 px ≈ 10.5 pt. On a laptop the
# same chart is 499 px wide with 14.7 px text, a little under the body text.
PHONE_COLUMN_PX = 358
FIGURE_WIDTH_IN = 5.2
TEXT_PT = 11.0  # every tick, label, value, legend entry and the caption
TITLE_PT = 12.5
# Room for one line of text, in inches: its size and the space between lines.
LINE_IN = TEXT_PT * 1.3 / 72
# Space under the caption and between it and what is above it, in inches.
CAPTION_PAD_IN = 0.1


@dataclass(frozen=True)
class Theme:
    name: str
    text: str
    grid: str
    bars: tuple[str, ...]
    # Charts with many lines need more colours than bars do: the bar colours first.
    more_lines: tuple[str, ...] = ()

    @property
    def lines(self) -> tuple[str, ...]:
        return self.bars + self.more_lines


# Colours checked against Material's default (white) and slate (dark) page
# backgrounds; the chart background stays transparent so it sits on either.
THEMES = {
    "light": Theme("light", text="#1f2328", grid="#d0d7de", bars=("#c2410c", "#1d4ed8", "#047857", "#7e22ce"),
                   more_lines=("#be123c", "#57534e", "#4d7c0f", "#0e7490")),
    "dark": Theme("dark", text="#e6edf3", grid="#3d444d", bars=("#fb923c", "#60a5fa", "#34d399", "#c084fc"),
                  more_lines=("#fb7185", "#d6d3d1", "#a3e635", "#22d3ee")),
}


# Drawing is most of a cold build, and the themes differ only in their colours: a chart is drawn in the
# light theme and each other theme's SVG made by swapping every theme colour for its counterpart
# (``recoloured``). A chart with a colour no theme names (a colour map's shades, an embedded image)
# may hold a shade that depends on the theme, so it is drawn in each theme instead.
_FILL_OR_STROKE = re.compile(r'((?:fill|stroke)(?::\s*|="))(#[0-9a-f]{6})(?![0-9A-Za-z])')
_ANY_COLOUR = re.compile(r"#[0-9A-Fa-f]{6}(?![0-9A-Za-z])")
# matplotlib's default blue: the fill of a line marker ("|"), which has no area to show it.
_THEME_FREE = frozenset({"#1f77b4"})


def _colours(theme: Theme) -> tuple[str, ...]:
    return (theme.text, theme.grid, *theme.lines)


def recoloured(light_svg: str, theme_name: str) -> str | None:
    """The light theme's SVG in ``theme_name``'s colours, or None where it holds a colour that could
    depend on the theme, or a colour anywhere but a fill or a stroke."""
    counterpart = dict(zip(_colours(THEMES["light"]), _colours(THEMES[theme_name])))
    found = [match[2] for match in _FILL_OR_STROKE.finditer(light_svg)]
    if ("<image" in light_svg or len(found) != len(_ANY_COLOUR.findall(light_svg))
            or not set(found) <= counterpart.keys() | _THEME_FREE):
        return None
    return _FILL_OR_STROKE.sub(lambda match: match[1] + counterpart.get(match[2], match[2]), light_svg)


def drawn_in_themes(draw: Callable[..., str], args: tuple, themes=tuple(THEMES)) -> dict[str, str]:
    """``draw(*args, theme_name=theme)`` for each of ``themes``: drawn once in the light theme, the
    others recoloured from it where they can be."""
    light = draw(*args, theme_name="light")
    return {theme: light if theme == "light" else recoloured(light, theme) or draw(*args, theme_name=theme)
            for theme in themes}


# Under every chart whose whiskers or bands are a time's 95% interval: readers took an interval that
# sits mostly above its point for a drawing error. The time is a 10th percentile, near the fastest
# blocks, and a resample that draws the slower of three processes more often raises it; one that
# draws the faster cannot lower it much (on the committed files, 87% of time whiskers reach further
# up than down, the median three times as far). "Often", not "mostly": a reader met one below its
# point (time_breakdown's eager bar) under a caption that said "mostly".
TIME_INTERVAL_NOTE = "Time intervals often lie above the time: resamples of slower processes raise the 10th percentile."
# Under a chart of stacked layers: one rule for every bar's label, said once. Its whiskers are a few
# pixels long beside the longest bar, so each label writes its interval out.
LAYERS_NOTE = f"Beside each bar: its time and that time's 95% interval. {TIME_INTERVAL_NOTE}"


def caption(results: ResultsFile) -> str:
    """The chart's foot: the runner, the machine (its CPU by the name the tables give it), the release,
    the kind of run and the date."""
    env = results.environment
    device = ", ".join(gpu["name"] for gpu in env["gpus"]) or f"{cpu_name(env)}, {env['logical_cores']} logical cores"
    size = "quick run" if results.quick else "full run"
    return (f"runner: {results.runner} · {device} · TensorFlow {env['tensorflow']} · "
            f"{size} · {env['utc_time'][:10]}")


def line_chars(size_pt: float) -> int:
    """About how many characters of ``size_pt`` text fit across a figure: DejaVu Sans
    averages 0.55 em a character in these labels; a little more leaves a margin."""
    return int(FIGURE_WIDTH_IN * 72 / (size_pt * 0.56))


def wrap_at_separators(text: str, separator: str = " · ", width: int = line_chars(TEXT_PT)) -> list[str]:
    """Lines of at most ``width`` characters where possible, broken only between the parts ``separator`` joins."""
    lines: list[str] = []
    for part in text.split(separator):
        if lines and len(lines[-1]) + len(separator) + len(part) <= width:
            lines[-1] += separator + part
        else:
            lines.append(part)
    return lines


def sweep_svg(results: ResultsFile, theme_name: str) -> str:
    """Time per call against the swept parameter, one line per mode, its 95% interval as a band edged
    in the line's colour (where two bands overlap, each keeps its outline); log-log."""
    from matplotlib.patches import Patch

    theme = THEMES[theme_name]
    x_name = sweeps.sweep_parameter(results)
    with chart_style(theme):
        height = 4.4 + caption_height_in(results, TIME_INTERVAL_NOTE)
        figure, axes = pyplot().subplots(figsize=(FIGURE_WIDTH_IN, height))
        for index, mode in enumerate(sweeps.modes(results)):
            points = sweeps.sweep_cases(results, mode)
            xs = [x for x, _ in points]
            spans = [bar_scale.time_whisker(case) or bar_scale.Whisker(*(2 * (case.measurement.per_call_s,)))
                     for _, case in points]
            colour = theme.lines[index % len(theme.lines)]
            axes.fill_between(xs, [span.low_s for span in spans], [span.high_s for span in spans],
                              color=colour, alpha=BAND_ALPHA, linewidth=0)
            for edge in ([span.low_s for span in spans], [span.high_s for span in spans]):
                axes.plot(xs, edge, color=colour, linewidth=0.8, linestyle=(0, (3, 2)), alpha=0.9)
            axes.plot(xs, [case.measurement.per_call_s for _, case in points], marker="o", color=colour,
                      label=mode, linewidth=1.8, markersize=5)
        axes.set_xscale("log")
        axes.set_yscale("log")
        plain_log_ticks(axes.xaxis, compact_number)
        plain_log_ticks(axes.yaxis, bar_scale.short_time)
        axes.set_xticks(_spaced_ticks(sorted({case.params[x_name] for case in results.cases})))
        axes.set_xlabel(x_name.replace("_", " ") + " (log scale)")
        axes.set_ylabel("time per call (log scale)")
        axes.grid(which="major", color=theme.grid, linewidth=0.6)
        handles, _ = axes.get_legend_handles_labels()
        band = Patch(facecolor=theme.text, alpha=0.25, linewidth=0)  # the legend's entry for every band
        # Above the plot, where it covers no line or band.
        axes.legend(handles + [band], [handle.get_label() for handle in handles] + [BAND_LABEL],
                    frameon=False, labelcolor=theme.text, loc="lower left", bbox_to_anchor=(0, 1.02), ncols=2,
                    borderaxespad=0)
        _finish_axes(figure, axes, results, TIME_INTERVAL_NOTE)
        return figure_svg(figure)


# A line's 95% interval: a band of its colour, this opaque, edged with a dashed line of it.
BAND_ALPHA = 0.16
BAND_LABEL = "shaded: each line's 95% interval"


def compact_number(value: float) -> str:
    """A tick's count: ``100``, ``1,024``, ``99.9k``, ``1M``."""
    if value >= 1e6:
        return f"{value / 1e6:.3g}M"
    if value >= 1e4:
        return f"{value / 1e3:.3g}k"
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def chart_style(theme: Theme):
    # Every text drawn as the text it is: matplotlib reads "$…$" in a label as a formula ("cost $x^{99}$"
    # drawn as a power; "$\frac{1}{$" stopped the build), and labels come from results files.
    return pyplot().rc_context({"text.parse_math": False, "text.usetex": False,
                                "svg.fonttype": "none", "svg.hashsalt": "tfspeedlab", "font.size": TEXT_PT,
                                "axes.titlesize": TEXT_PT, "figure.titlesize": TITLE_PT, "legend.fontsize": TEXT_PT,
                                "font.family": "sans-serif", "text.color": theme.text,
                                "axes.labelcolor": theme.text, "xtick.color": theme.text,
                                "ytick.color": theme.text, "axes.edgecolor": theme.grid})


# The most decades a log axis labels at 1-2-5 steps. A figure's width holds
# about seven labels at TEXT_PT, its height (4 in or so) about twelve.
_DECADES_AT_1_2_5 = {"x": 1.5, "y": 3.5}


def plain_log_ticks(axis, label=lambda value: f"{value:g}") -> None:
    """Call once the axis's limits are set: how many decades they span picks the ticks, ``label``
    words each."""
    from matplotlib import ticker

    # Plain numbers at 1-2-5 steps read better than powers of ten; over many
    # decades they would collide, so only the powers of ten are labelled.
    low, high = getattr(axis.axes, f"get_{axis.axis_name}lim")()
    decades = math.log10(high / low)
    steps = (1.0, 2.0, 5.0) if decades <= _DECADES_AT_1_2_5[axis.axis_name] else (1.0,)
    axis.set_major_locator(ticker.LogLocator(subs=steps))
    axis.set_major_formatter(ticker.FuncFormatter(lambda value, _: label(value)))
    axis.set_minor_locator(in_view_locator()(axis.get_minor_locator()))
    axis.set_minor_formatter(ticker.NullFormatter())


@functools.cache
def in_view_locator() -> type:
    """The ``InView`` tick locator: a class of matplotlib's, made the first time a chart needs it (``pyplot``)."""
    from matplotlib import ticker

    class InView(ticker.Locator):
        """``locator``'s ticks that fall within the axis's limits (a hair beyond, as matplotlib draws a tick
        within 1e-10 of the axis's span of its end). A log axis's minor locator gives a decade of ticks
        past either end, which no drawing shows; but matplotlib makes a tick object for each (a quarter
        of a split grid chart's time went to making ticks) and moves it at every layout pass and draw."""

        # Kept: a tick within this share of a decade past an end, more than matplotlib draws.
        SLACK = 1e-6

        def __init__(self, locator: ticker.Locator):
            self.locator = locator

        def set_axis(self, axis) -> None:
            super().set_axis(axis)
            self.locator.set_axis(axis)

        def __call__(self):
            low, high = sorted(self.axis.get_view_interval())
            return self.tick_values(low, high)

        def tick_values(self, vmin: float, vmax: float):
            low, high = sorted((vmin, vmax))
            return [tick for tick in self.locator.tick_values(vmin, vmax)
                    if low * 10 ** -self.SLACK <= tick <= high * 10 ** self.SLACK]

    return InView


# At most this many labelled ticks fit across a figure at TEXT_PT (values up to four digits).
_MAX_TICKS = 7


def _spaced_ticks(values: list) -> list:
    """Every swept value where they fit, else every second or third one: labels must not collide."""
    step = -(-len(values) // _MAX_TICKS)
    return values[::step]


def wrapped_title(results: ResultsFile) -> str:
    """The workload's title, on as many lines as it needs to stay inside the figure."""
    return textwrap.fill(results.title, line_chars(TITLE_PT))


def open_frame(axes) -> None:
    # No top or right border; grid lines behind the bars.
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    axes.set_axisbelow(True)


def caption_lines(results: ResultsFile, note: str | None = None) -> list[str]:
    """The caption's lines: ``note`` (a sentence, wrapped to the figure's width), then where and when
    the file was measured."""
    return (textwrap.wrap(note, line_chars(TEXT_PT)) if note else []) + wrap_at_separators(caption(results))


def caption_height_in(results: ResultsFile, note: str | None = None) -> float:
    """The height the caption takes at the foot of a figure, in inches."""
    return len(caption_lines(results, note)) * LINE_IN + CAPTION_PAD_IN


def add_caption(figure, results: ResultsFile, note: str | None = None) -> float:
    """Draw the caption (``note`` first) at the foot of the figure; return the share of its height it takes."""
    figure.text(0.01, CAPTION_PAD_IN / 2 / figure.get_figheight(), "\n".join(caption_lines(results, note)),
                va="bottom", alpha=0.85, linespacing=1.2)
    return caption_height_in(results, note) / figure.get_figheight()


def _finish_axes(figure, axes, results: ResultsFile, note: str | None = None) -> None:
    open_frame(axes)
    # From the figure's left edge: above the axes alone a long title would run off the right edge.
    figure.suptitle(wrapped_title(results), x=0.01, ha="left")
    figure.tight_layout(rect=(0, add_caption(figure, results, note), 1, 1))


def _panel_title(axes, title: str) -> None:
    """A panel's title from the figure's left edge: above the axes alone it would run off the
    figure's right edge, the axes starting after the longest bar label."""
    axes.annotate(title, xy=(0.01, 1), xycoords=("figure fraction", "axes fraction"), xytext=(0, 6),
                  textcoords="offset points", ha="left", va="bottom")


def panel_title_at_top(axes, title: str) -> None:
    """A panel's title from its left edge, at the top of an axes with nothing above it (no tick labels,
    no axis offset such as "1e6"): where matplotlib would place it itself, placed once. Left to place
    it, matplotlib measured the axes' ticks again at every layout pass and draw (a fifth of a split
    grid chart's time)."""
    axes.set_title(title, loc="left", y=1.0)


def unplaced_empty_labels(figure) -> None:
    """Leave every empty axis label of a figure without a layout engine where it is: matplotlib
    measured the axis's ticks again at every draw to place a label that draws nothing, and with no
    layout engine an empty label's place counts for nothing. Call once the labels are set."""
    if figure.get_layout_engine() is not None:  # it counts an empty label's place in the axes' extent
        return
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            if not axis.label.get_text():
                axis.set_label_coords(0, 0)


def whisker_handle(theme: Theme):
    """A legend's entry for the whiskers: a line between two caps."""
    from matplotlib.lines import Line2D

    return Line2D([], [], color=theme.text, marker="|", markersize=9, markeredgewidth=1.2, linewidth=1.2,
                  label=WHISKER_LABEL)


WHISKER_LABEL = "whisker: 95% interval"


def _legend_under_title(figure, results: ResultsFile, theme: Theme, whiskers: bool = False,
                        note: str | None = None) -> None:
    """Title, then the legend of the stacked layers (and of the whiskers), then the panels: inside a
    panel the legend would cover bars or their values; ``note`` opens the caption. For figures made
    with ``layout="constrained"``."""
    found = {}
    for axes in figure.axes:
        for handle, label in zip(*axes.get_legend_handles_labels()):
            found.setdefault(label, handle)
    handles, labels = list(found.values()), list(found)
    if whiskers:
        handles, labels = handles + [whisker_handle(theme)], labels + [WHISKER_LABEL]
    # The title heads the legend: constrained layout stacks no suptitle above an outside legend.
    figure.legend(handles, labels, numpoints=2, loc="outside upper left", ncols=2, frameon=False, labelcolor=theme.text, handlelength=2.2,
                  columnspacing=1.2, title=wrapped_title(results), alignment="left", borderaxespad=0.2,
                  title_fontproperties={"size": TITLE_PT})
    caption_share = add_caption(figure, results, note)
    figure.get_layout_engine().set(rect=(0, caption_share, 1, 1 - caption_share))


def figure_svg(figure) -> str:
    """The figure as SVG, its text as text (``svg.fonttype``), with any bidirectional or zero-width
    character a label brought written out (``hidden_characters``)."""
    laid_out_for_svg(figure)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", transparent=True, metadata={"Date": None})
    pyplot().close(figure)
    return hidden_characters.shown(buffer.getvalue())


def laid_out_for_svg(figure) -> None:
    """Run the figure's layout engine (constrained layout) as ``savefig`` runs it for an SVG, then
    unset the engine: the positions it set stay, and ``savefig`` draws the figure once. Given an
    engine, ``savefig`` draws the whole figure twice, the first time with nothing rendered, only to
    run the engine: that draw was a fifth of a chart's time. The engine sees what it saw there: an
    SVG canvas at 72 dpi (SVG's own), whose text measures as the saved file's does."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    engine = figure.get_layout_engine()
    if engine is None:
        return
    if figure.axes:  # as ``Figure.draw`` runs it
        canvas, dpi = figure.canvas, figure.dpi
        FigureCanvasSVG(figure)  # the figure's canvas until set back below
        try:
            figure.dpi = 72
            engine.execute(figure)
        finally:
            figure.set_canvas(canvas)
            figure.dpi = dpi
    figure.set_layout_engine(None)


def has_host_layers(results: ResultsFile) -> bool:
    return all(case.metrics.layer_fraction(layer) is not None for case in results.cases for layer in HOST_LAYERS)


def host_layers_svg(results: ResultsFile, theme_name: str) -> str:
    """Stacked bars: each case's time per call split by its profiled layer fractions, its time's 95%
    interval as a whisker. The axis stays linear whatever the spread: stacked parts add up along it,
    which a log axis would not show."""
    theme = THEMES[theme_name]
    cases = list(results.cases)
    unit_name, scale = select_unit(max(case.measurement.per_call_s for case in cases))  # short tick labels
    with chart_style(theme):
        figure, axes = pyplot().subplots(figsize=(FIGURE_WIDTH_IN, 0.5 * len(cases) + 2.6
                                                  + caption_height_in(results, LAYERS_NOTE)), layout="constrained")
        positions = list(range(len(cases))[::-1])
        left = [0.0] * len(cases)
        for index, layer in enumerate(HOST_LAYERS):
            widths = [case.measurement.per_call_s * case.metrics.layer_fraction(layer) / scale for case in cases]
            axes.barh(positions, widths, left=left, height=0.6, color=theme.bars[index], label=HOST_LAYER_LABELS[layer])
            left = [a + b for a, b in zip(left, widths)]
        unit = bar_scale.Scale(False, scale)
        totals = [case.measurement.per_call_s / scale for case in cases]
        whiskers = [bar_scale.time_whisker(case) for case in cases]
        reach = bar_scale.draw_whiskers(axes, totals, positions, whiskers, unit, theme.text, "0")
        # One rule for every bar (LAYERS_NOTE): its time and its interval, written out.
        placed = [(axes.annotate(bar_scale.time_label(case.measurement.per_call_s, whisker, 0.0, unit, always=True),
                                 (max(end, far), position), xytext=(6, 0), textcoords="offset points", va="center",
                                 in_layout=False), max(end, far))
                  for position, case, whisker, end, far in zip(positions, cases, whiskers, left, reach)]
        axes.set_yticks(positions, [case.label for case in cases])
        axes.set_xlim(0, max(max(left), *reach) * 1.05)
        axes.set_xlabel(f"time per call ({unit_name})\n10th percentile of all blocks,\nsplit by profiled share")
        axes.grid(axis="x", color=theme.grid, linewidth=0.6)
        open_frame(axes)
        _legend_under_title(figure, results, theme, whiskers=True, note=LAYERS_NOTE)
        # Lay the figure out (its engine alone: a whole draw rendered every pixel), then run the axis
        # far enough for every label.
        figure.get_layout_engine().execute(figure)
        bar_scale.make_room_for_labels(figure, {axes: placed}, {axes: unit})
        return figure_svg(figure)


def op_layers_svg(results: ResultsFile, theme_name: str) -> str:
    """One panel per tensor size: each entry point's time per add, stacked by the layers under it, its
    total's 95% interval as a whisker (linear, as stacked parts add up along the axis). At a size
    where the differences are no layer breakdown (``op_layers.is_breakdown``), the panel draws each
    entry's total alone, in one colour, and its title says why."""
    theme = THEMES[theme_name]
    sizes = op_layers.sizes(results)
    with chart_style(theme):
        height = 2.2 * len(sizes) + 1.2 + caption_height_in(results, TIME_INTERVAL_NOTE) + LINE_IN * sum(
            not op_layers.is_breakdown(results, size) for size in sizes)
        figure, panels = pyplot().subplots(len(sizes), 1, figsize=(FIGURE_WIDTH_IN, height), squeeze=False,
                                      layout="constrained")
        for axes, size in zip(panels[:, 0], sizes):
            rows = op_layers.entries(results, size)
            unit_name, scale = select_unit(max(row.total_s for row in rows))
            positions = list(range(len(rows))[::-1])
            split = op_layers.is_breakdown(results, size)
            if split:
                left = [0.0] * len(rows)
                for index, layer in enumerate(op_layers.STACK):
                    # A layer this run cannot tell from zero (its interval holds 0) is drawn as nothing.
                    widths = [0.0 if layer not in row.layers_s or row.layers_s[layer].holds_zero
                              else max(row.layers_s[layer].value, 0.0) / scale for row in rows]
                    axes.barh(positions, widths, left=left, height=0.62, color=theme.bars[index],
                              label=layer if size == sizes[0] else None)
                    left = [a + b for a, b in zip(left, widths)]
            else:  # totals only: no colour of a layer, which these differences are not
                left = [row.total_s / scale for row in rows]
                axes.barh(positions, left, height=0.62, color=theme.lines[TOTAL_COLOUR])
            whiskers = [_total_whisker(row) for row in rows]
            unit = bar_scale.Scale(False, scale)
            reach = bar_scale.draw_whiskers(axes, [row.total_s / scale for row in rows], positions, whiskers, unit,
                                            theme.text, str(size))
            furthest_s = max(max(left), *reach) * scale
            for position, row, whisker, end, far in zip(positions, rows, whiskers, left, reach):
                axes.annotate(bar_scale.time_label(row.total_s, whisker, furthest_s, unit), (max(end, far), position),
                              xytext=(4, 0), textcoords="offset points", va="center")
            axes.set_yticks(positions, [row.entry for row in rows])
            axes.set_xlim(right=max(max(left), *reach) * 1.35)
            title = "scalar" if size == 1 else f"{size:,} elements"
            _panel_title(axes, f"{title} — time per add ({unit_name})" if split else
                         f"{title} — total per add ({unit_name})\n{NOT_A_BREAKDOWN}")
            axes.grid(axis="x", color=theme.grid, linewidth=0.6)
            open_frame(axes)
        _legend_under_title(figure, results, theme, whiskers=True, note=TIME_INTERVAL_NOTE)
        return figure_svg(figure)


# A panel of totals alone: its bars in a grey no layer has (the theme's line colours past the bars':
# stone), so that no layer is read into them; and the line under its title that says why.
TOTAL_COLOUR = 5
NOT_A_BREAKDOWN = "totals only: at this size the rows are not a layer breakdown"


def _total_whisker(row: op_layers.EntryCost) -> bar_scale.Whisker | None:
    """An entry point's total time's interval: its case's, or the kernel's (a difference of two cases)."""
    if list(row.layers_s) != ["kernel"]:
        return bar_scale.time_whisker(row.source)
    kernel = row.layers_s["kernel"]
    return bar_scale.Whisker(kernel.low, kernel.high)
