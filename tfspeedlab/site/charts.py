"""SVG charts of a results file, one per colour scheme of the site."""

from __future__ import annotations

import io
import math
import textwrap
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")  # no display on CI machines or docs builders
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

from tfspeedlab.analysis import intervals, memory_growth, op_layers, summary, sweeps  # noqa: E402
from tfspeedlab.analysis.grid import pivots  # noqa: E402
from tfspeedlab.analysis.wording import NO_GROWTH_BYTES_PER_CALL, time_ratio_word  # noqa: E402
from tfspeedlab.profiling import HOST_LAYER_LABELS, HOST_LAYERS  # noqa: E402
from tfspeedlab.results.schema import ResultsFile  # noqa: E402
from tfspeedlab.site import bar_cuts  # noqa: E402
from tfspeedlab.units import format_bytes, format_time, select_unit  # noqa: E402

# Bar charts keep a linear time axis whatever the spread: their point is how many times one bar
# is another, which a log axis hides (a 10× gap looks like 3×); the values are written beside the
# bars, so a sliver of a bar still reads. Sweeps, whose x spans decades, are log-log and say so.

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
# Height kept for a stacked figure's title above its first panel (and that panel's own title).
TITLE_BAND_IN = 0.5


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


def caption(results: ResultsFile) -> str:
    env = results.environment
    family = f"family {env['cpu_family']}, model {env['cpu_model_number']}, " if env.get("cpu_family") is not None else ""
    device = ", ".join(gpu["name"] for gpu in env["gpus"]) or f"{env['cpu_model']} ({family}{env['logical_cores']} logical cores)"
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


def _interval_s(case) -> tuple[float, float]:
    """The 95% interval of a case's time per call (its hierarchical bootstrap), in seconds."""
    found = intervals.estimate_of(case.measurement.per_call_s, intervals.resampled_estimates(case))
    return found.low, found.high


# At most this share of a panel's width goes to the label beside a bar: a longer label may run past
# the axes rather than squeeze its bar to a sliver.
_MOST_LABEL_SHARE = 0.9


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


# Beside the time of a bar whose training case did not train.
UNTRAINED_MARK = "did not train"


def time_per_call_svg(results: ResultsFile, theme_name: str) -> str:
    """Horizontal bars of time per call; beside each, its time and, where the table has a baseline,
    the table's verdict against it (no whisker per time: the verdict's interval is the speed-up's)."""
    theme = THEMES[theme_name]
    cases = list(results.cases)
    times = [case.measurement.per_call_s for case in cases]
    # The middle case's unit: over decades, the smallest one's gives ticks like "100000".
    unit_name, scale = select_unit(sorted(times)[len(times) // 2])
    per = "step" if any(case.params.get("steps_per_call", 1) != 1 for case in cases) else "call"

    with _style(theme):
        figure, axes = plt.subplots(figsize=(FIGURE_WIDTH_IN, 0.5 * len(cases) + 1.6 + _caption_in(results)))
        positions = range(len(cases))[::-1]  # first case on top, as in the table
        reference = next((case for case in cases if case.label == results.baseline), None)
        if reference is None:  # nothing to set the bars against: each time's own interval instead
            spans = [_interval_s(case) for case in cases]
            whiskers = {"xerr": [[max(time - low, 0.0) / scale for time, (low, _) in zip(times, spans)],
                                 [max(high - time, 0.0) / scale for time, (_, high) in zip(times, spans)]],
                        "error_kw": {"ecolor": theme.text, "capsize": 4, "linewidth": 1.2}}
        else:
            spans, whiskers = [(time, 0.0) for time in times], {}  # no whisker: a label sits at its bar's end
        # The baseline in the first colour, every bar set against it in the second, as in a grid's chart.
        colours = [theme.bars[0] if reference is None or case is reference else theme.bars[1] for case in cases]
        # A training case that left its weights where they were is fast because it did nothing:
        # its bar is hatched and says so, as its table row does.
        untrained = summary.untrained_cases(results)
        cut = bar_cuts.cut_for(times, reference.measurement.per_call_s if reference is not None else None)
        drawn = bar_cuts.shown(times, cut)
        bars = axes.barh(list(positions), [t / scale for t in drawn], color=colours, height=0.6, **whiskers)
        cut_any = bar_cuts.hatch_cut_bars(bars, times, cut, theme)
        for bar, case in zip(bars, cases):
            if case.label in untrained:
                bar.set_hatch("///")
                bar.set_edgecolor(theme.text)
                bar.set_alpha(0.5)
        axes.set_yticks(list(positions), [_wrapped_label(case.label) for case in cases])
        labels = []
        for position, time, (_, high), case, end in zip(positions, times, spans, cases, drawn):
            if case.label in untrained:
                word = f" · {UNTRAINED_MARK}"
            elif reference is None or case is reference:
                word = ""
            else:
                word = f" · {time_ratio_word(intervals.ratio(case, reference))}"
            labels.append((axes.annotate(format_time(time) + word, (max(high, end) / scale, position),
                                         xytext=(6, 0), textcoords="offset points", va="center", ha="left",
                                         color=theme.text, in_layout=False), max(high, end) / scale))
        # Three short lines: the axes are narrower than the figure where the case labels are long,
        # and a label wider than its axes is cut at the figure's edge.
        beside = ("whiskers: its 95% interval" if reference is None
                  else f"beside each bar: against\n{_short(reference.label)}, the table's verdict")
        if cut_any:
            beside += f";\nhatched: past {bar_cuts.CUT_AT:g}× it, cut there"
        axes.set_xlabel(f"time per {per} ({unit_name})\n10th percentile of all blocks;\n{beside}")
        axes.grid(axis="x", color=theme.grid, linewidth=0.6)
        _finish_axes(figure, axes, results)
        _make_room_for_labels(figure, {axes: labels})
        if cut_any:
            bar_cuts.stop_the_scale_at(axes, cut / scale, theme)
        return _svg(figure)


def _short(label: str) -> str:
    """A baseline's name for an axis label: cut at the width of a case label, as the y axis shows it."""
    return label if len(label) <= 2 * _LABEL_CHARS else label[: 2 * _LABEL_CHARS - 1] + "…"


# Case labels longer than this go on two lines: one long label would squeeze every bar.
_LABEL_CHARS = 24


def _wrapped_label(label: str) -> str:
    return "\n".join(textwrap.wrap(label, _LABEL_CHARS, break_long_words=False)) if len(label) > _LABEL_CHARS else label


def sweep_svg(results: ResultsFile, theme_name: str) -> str:
    """Time per call against the swept parameter, one line per mode, its 95% interval as a band; log-log."""
    theme = THEMES[theme_name]
    x_name = sweeps.sweep_parameter(results)
    unit_name, scale = select_unit(min(case.measurement.per_call_s for case in results.cases))
    with _style(theme):
        figure, axes = plt.subplots(figsize=(FIGURE_WIDTH_IN, 4.2 + _caption_in(results)))
        for index, mode in enumerate(sweeps.modes(results)):
            points = sweeps.sweep_cases(results, mode)
            xs = [x for x, _ in points]
            spans = [_interval_s(case) for _, case in points]
            colour = theme.bars[index % len(theme.bars)]
            axes.plot(xs, [case.measurement.per_call_s / scale for _, case in points], marker="o", color=colour,
                      label=mode, linewidth=1.8, markersize=5)
            axes.fill_between(xs, [low / scale for low, _ in spans], [high / scale for _, high in spans],
                              color=colour, alpha=0.2, linewidth=0)
        axes.set_xscale("log")
        axes.set_yscale("log")
        _plain_log_ticks(axes.xaxis)
        _plain_log_ticks(axes.yaxis)
        axes.set_xticks(_spaced_ticks(sorted({case.params[x_name] for case in results.cases})))
        axes.set_xlabel(x_name.replace("_", " ") + " (log scale)")
        axes.set_ylabel(f"time per call ({unit_name}, log scale)")
        axes.grid(which="major", color=theme.grid, linewidth=0.6)
        axes.legend(frameon=False, labelcolor=theme.text)
        _finish_axes(figure, axes, results)
        return _svg(figure)


def _style(theme: Theme):
    return plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tfspeedlab", "font.size": TEXT_PT,
                           "axes.titlesize": TEXT_PT, "figure.titlesize": TITLE_PT, "legend.fontsize": TEXT_PT,
                           "font.family": "sans-serif", "text.color": theme.text,
                           "axes.labelcolor": theme.text, "xtick.color": theme.text,
                           "ytick.color": theme.text, "axes.edgecolor": theme.grid})


# The most decades a log axis labels at 1-2-5 steps. A figure's width holds
# about seven labels at TEXT_PT, its height (4 in or so) about twelve.
_DECADES_AT_1_2_5 = {"x": 1.5, "y": 3.5}


def _plain_log_ticks(axis) -> None:
    """Call once the axis's limits are set: how many decades they span picks the ticks."""
    # Plain numbers at 1-2-5 steps read better than powers of ten; over many
    # decades they would collide, so only the powers of ten are labelled.
    low, high = getattr(axis.axes, f"get_{axis.axis_name}lim")()
    decades = math.log10(high / low)
    steps = (1.0, 2.0, 5.0) if decades <= _DECADES_AT_1_2_5[axis.axis_name] else (1.0,)
    axis.set_major_locator(ticker.LogLocator(subs=steps))
    axis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


# At most this many labelled ticks fit across a figure at TEXT_PT (values up to four digits).
_MAX_TICKS = 7


def _spaced_ticks(values: list) -> list:
    """Every swept value where they fit, else every second or third one: labels must not collide."""
    step = -(-len(values) // _MAX_TICKS)
    return values[::step]


def _title(results: ResultsFile) -> str:
    """The workload's title, on as many lines as it needs to stay inside the figure."""
    return textwrap.fill(results.title, line_chars(TITLE_PT))


def _open_frame(axes) -> None:
    # No top or right border; grid lines behind the bars.
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    axes.set_axisbelow(True)


def _caption_in(results: ResultsFile) -> float:
    """The height the caption takes at the foot of a figure, in inches."""
    return len(wrap_at_separators(caption(results))) * LINE_IN + CAPTION_PAD_IN


def _add_caption(figure, results: ResultsFile) -> float:
    """Draw the caption at the foot of the figure; return the share of its height it takes."""
    figure.text(0.01, CAPTION_PAD_IN / 2 / figure.get_figheight(), "\n".join(wrap_at_separators(caption(results))),
                va="bottom", alpha=0.85, linespacing=1.2)
    return _caption_in(results) / figure.get_figheight()


def _finish_axes(figure, axes, results: ResultsFile) -> None:
    _open_frame(axes)
    # From the figure's left edge: above the axes alone a long title would run off the right edge.
    figure.suptitle(_title(results), x=0.01, ha="left")
    figure.tight_layout(rect=(0, _add_caption(figure, results), 1, 1))


def _panel_title(axes, title: str) -> None:
    """A panel's title from the figure's left edge: above the axes alone it would run off the
    figure's right edge, the axes starting after the longest bar label."""
    axes.annotate(title, xy=(0.01, 1), xycoords=("figure fraction", "axes fraction"), xytext=(0, 6),
                  textcoords="offset points", ha="left", va="bottom")


def _legend_under_title(figure, results: ResultsFile, theme: Theme) -> None:
    """Title, then the legend of the stacked layers, then the panels: inside a panel the legend
    would cover bars or their values. For figures made with ``layout="constrained"``."""
    # The title heads the legend: constrained layout stacks no suptitle above an outside legend.
    figure.legend(loc="outside upper left", ncols=2, frameon=False, labelcolor=theme.text, handlelength=2.2,
                  columnspacing=1.2, title=_title(results), alignment="left", borderaxespad=0.2,
                  title_fontproperties={"size": TITLE_PT})
    caption_share = _add_caption(figure, results)
    figure.get_layout_engine().set(rect=(0, caption_share, 1, 1 - caption_share))


def _svg(figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", transparent=True, metadata={"Date": None})
    plt.close(figure)
    return buffer.getvalue()


def has_host_layers(results: ResultsFile) -> bool:
    return all(f"{layer}_fraction" in case.metrics for case in results.cases for layer in HOST_LAYERS)


def host_layers_svg(results: ResultsFile, theme_name: str) -> str:
    """Stacked bars: each case's time per call split by its profiled layer fractions."""
    theme = THEMES[theme_name]
    cases = list(results.cases)
    unit_name, scale = select_unit(min(case.measurement.per_call_s for case in cases))
    with _style(theme):
        figure, axes = plt.subplots(figsize=(FIGURE_WIDTH_IN, 0.5 * len(cases) + 2.4 + _caption_in(results)),
                                    layout="constrained")
        positions = list(range(len(cases))[::-1])
        left = [0.0] * len(cases)
        for index, layer in enumerate(HOST_LAYERS):
            widths = [case.measurement.per_call_s * case.metrics[f"{layer}_fraction"] / scale for case in cases]
            axes.barh(positions, widths, left=left, height=0.6, color=theme.bars[index], label=HOST_LAYER_LABELS[layer])
            left = [a + b for a, b in zip(left, widths)]
        for position, case, end in zip(positions, cases, left):
            axes.annotate(format_time(case.measurement.per_call_s), (end, position), xytext=(6, 0),
                          textcoords="offset points", va="center")
        axes.set_yticks(positions, [case.label for case in cases])
        axes.set_xlim(right=max(left) * 1.3)
        axes.set_xlabel(f"time per call ({unit_name})\n10th percentile of all blocks,\nsplit by profiled share")
        axes.grid(axis="x", color=theme.grid, linewidth=0.6)
        _open_frame(axes)
        _legend_under_title(figure, results, theme)
        return _svg(figure)


def _line_styles(rows: list, theme: Theme) -> dict:
    """A colour and dash per row. A row named "<prefix> <other row>" (``tf_keras predict`` beside
    ``predict``) is the same call made another way: it takes that row's colour, dashed."""
    styles, colours = {}, iter(theme.lines * 2)
    for row in rows:
        twin = next((other for other in rows if other != row and str(row).endswith(f" {other}")), None)
        if twin is None:
            styles[row] = (next(colours), "-")
    for row in rows:
        if row not in styles:
            twin = next(other for other in rows if other != row and str(row).endswith(f" {other}"))
            styles[row] = (styles[twin][0], "--")
    return styles


def split_grid_svg(results: ResultsFile, theme_name: str) -> str:
    """A split grid: one panel per part, time per call on a log axis against the column value, one
    legend for all panels; a numeric column (batch size) on a log axis with a line per row, a
    column of names (the call: fit, predict) as places of their own with a point per row."""
    theme = THEMES[theme_name]
    grids = pivots(results)
    rows = list(dict.fromkeys(row for grid in grids for row in grid.row_values))
    styles = _line_styles(rows, theme)
    per = grids[0].layout.time_per
    with _style(theme):
        legend_lines = -(-len(rows) // 2)
        height = 3.1 * len(grids) + legend_lines * LINE_IN * 1.15 + 0.5 + _caption_in(results)
        figure, panels = plt.subplots(len(grids), 1, figsize=(FIGURE_WIDTH_IN, height), squeeze=False,
                                      layout="constrained")
        for axes, grid in zip(panels[:, 0], grids):
            times = sorted(case.measurement.per_call_s for case in grid.cells.values())
            unit_name, scale = select_unit(times[len(times) // 2])  # short tick labels for the middle
            # A column of names (fit, train_on_batch, predict) has no order to draw a line along:
            # each name gets a place of its own on the axis, and its rows' points stand apart there.
            numeric = all(isinstance(value, int | float) and not isinstance(value, bool) for value in grid.column_values)
            place = {value: value if numeric else index for index, value in enumerate(grid.column_values)}
            for number, row in enumerate(rows):
                points = grid.row(row)
                if not points:
                    continue
                colour, dash = styles[row]
                # Named places: each row a little apart within its place, so that two rows of
                # nearly one time (the baseline among them) do not hide one another.
                nudge = 0.0 if numeric else 0.6 * (number / max(len(rows) - 1, 1) - 0.5)
                axes.plot([place[column] + nudge for column, _ in points],
                          [case.measurement.per_call_s / scale for _, case in points],
                          color=colour, linestyle=dash if numeric else "none", marker="o",
                          markersize=4 if numeric else 6, linewidth=1.6, label=row if grid is grids[0] else None)
            axes.set_yscale("log")
            _plain_log_ticks(axes.yaxis)
            if numeric:
                axes.set_xscale("log")
                _plain_log_ticks(axes.xaxis)
                axes.set_xticks(grid.column_values)
                axes.set_xlabel(grid.layout.columns.replace("_", " ") + " (log scale)")
            else:
                axes.set_xticks(range(len(grid.column_values)),
                                [str(value) for value in grid.column_values], rotation=30, ha="right")
                axes.set_xlim(-0.5, len(grid.column_values) - 0.5)
            axes.set_ylabel(f"time per {per} ({unit_name}, log scale)")
            axes.set_title(str(grid.part), loc="left")
            axes.grid(which="major", color=theme.grid, linewidth=0.6)
            _open_frame(axes)
        _legend_under_title(figure, results, theme)
        return _svg(figure)


def op_layers_svg(results: ResultsFile, theme_name: str) -> str:
    """One panel per tensor size: each entry point's time per add, stacked by the layers under it."""
    theme = THEMES[theme_name]
    sizes = op_layers.sizes(results)
    with _style(theme):
        height = 2.2 * len(sizes) + 1.2 + _caption_in(results)
        figure, panels = plt.subplots(len(sizes), 1, figsize=(FIGURE_WIDTH_IN, height), squeeze=False,
                                      layout="constrained")
        for axes, size in zip(panels[:, 0], sizes):
            rows = op_layers.entries(results, size)
            unit_name, scale = select_unit(max(row.total_s for row in rows))
            positions = list(range(len(rows))[::-1])
            left = [0.0] * len(rows)
            for index, layer in enumerate(op_layers.STACK):
                # A layer this run cannot tell from zero (its interval holds 0) is drawn as nothing.
                widths = [0.0 if layer not in row.layers_s or row.layers_s[layer].holds_zero
                          else max(row.layers_s[layer].value, 0.0) / scale for row in rows]
                axes.barh(positions, widths, left=left, height=0.62, color=theme.bars[index],
                          label=layer if size == sizes[0] else None)
                left = [a + b for a, b in zip(left, widths)]
            for position, row, end in zip(positions, rows, left):
                axes.annotate(format_time(row.total_s), (end, position), xytext=(4, 0),
                              textcoords="offset points", va="center")
            axes.set_yticks(positions, [row.entry for row in rows])
            axes.set_xlim(right=max(left) * 1.35)
            title = "scalar" if size == 1 else f"{size:,} elements"
            _panel_title(axes, f"{title} — time per add ({unit_name})")
            axes.grid(axis="x", color=theme.grid, linewidth=0.6)
            _open_frame(axes)
        _legend_under_title(figure, results, theme)
        return _svg(figure)


# Lines of the memory chart: a colour per remedy, a dash per Keras.
_KERAS_DASHES = {"tf.keras": "-", "tf_keras": "--"}


def _bytes_unit(largest: float) -> tuple[str, float]:
    """The binary unit an axis reading up to ``largest`` bytes is labelled in."""
    for name, size in (("GiB", 2**30), ("MiB", 2**20)):
        if largest >= size:
            return name, size
    return "KiB", 2**10


def memory_over_calls_svg(results: ResultsFile, theme_name: str) -> str:
    """One panel per kind of loop: resident memory since the loop began against the calls made, a
    line per remedy (colour) and Keras (dash), each the mean over the case's processes."""
    theme = THEMES[theme_name]
    calls = list(dict.fromkeys(str(case.params["call"]) for case in results.cases))
    cleanups = list(dict.fromkeys(str(case.params["cleanup"]) for case in results.cases))
    colours = dict(zip(cleanups, theme.lines))
    with _style(theme):
        height = 2.0 * len(calls) + 1.6 + _caption_in(results)
        figure, panels = plt.subplots(len(calls), 1, figsize=(FIGURE_WIDTH_IN, height), squeeze=False,
                                      layout="constrained")
        for axes, call in zip(panels[:, 0], calls):
            cases = [case for case in results.cases if case.params["call"] == call]
            curves = {case.label: memory_growth.curve(case) for case in cases}
            last_call = max(max(found.calls) for found in curves.values())
            # The band the page calls "steady" (within 1 KiB a call of none), drawn so that a line
            # inside it reads as flat however the axis is scaled to its steps.
            band = NO_GROWTH_BYTES_PER_CALL * last_call
            unit_name, scale = _bytes_unit(max(band, *(max(abs(value) for value in found.bytes_since_start)
                                                       for found in curves.values())))
            axes.fill_between([0, last_call], [0, -band / scale], [0, band / scale], color=theme.grid, alpha=0.45,
                              linewidth=0, label=f"steady: within ±{format_bytes(NO_GROWTH_BYTES_PER_CALL)} per call"
                              if call == calls[0] else None)
            for case in cases:
                found = curves[case.label]
                keras, cleanup = str(case.params["keras"]), str(case.params["cleanup"])
                axes.plot(found.calls, [value / scale for value in found.bytes_since_start], marker="o",
                          markersize=3.5, color=colours[cleanup], linestyle=_KERAS_DASHES.get(keras, ":"),
                          label=f"{keras}, {cleanup}" if call == calls[0] else None)
            noun = "models" if call == "new model" else "calls"
            _panel_title(axes, f"{call} — memory since the loop began ({unit_name}) over {noun}")
            axes.axhline(0, color=theme.grid, linewidth=0.8)
            axes.grid(color=theme.grid, linewidth=0.6)
            _open_frame(axes)
        _legend_under_title(figure, results, theme)
        return _svg(figure)
