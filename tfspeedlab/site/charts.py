"""SVG charts of a results file, one per colour scheme of the site."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")  # no display on CI machines or docs builders
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

from tfspeedlab.analysis import op_layers, sweeps  # noqa: E402
from tfspeedlab.analysis.grid import pivot  # noqa: E402
from tfspeedlab.profiling import HOST_LAYER_LABELS, HOST_LAYERS  # noqa: E402
from tfspeedlab.results.schema import ResultsFile  # noqa: E402
from tfspeedlab.units import format_time, select_unit  # noqa: E402

# Switch the time axis to log scale when the slowest case is this many times
# the fastest: on a linear axis the fast bars would shrink to slivers.
LOG_SCALE_SPREAD = 20.0


@dataclass(frozen=True)
class Theme:
    name: str
    text: str
    grid: str
    bars: tuple[str, ...]


# Colours checked against Material's default (white) and slate (dark) page
# backgrounds; the chart background stays transparent so it sits on either.
THEMES = {
    "light": Theme("light", text="#1f2328", grid="#d0d7de", bars=("#c2410c", "#1d4ed8", "#047857", "#7e22ce")),
    "dark": Theme("dark", text="#e6edf3", grid="#3d444d", bars=("#fb923c", "#60a5fa", "#34d399", "#c084fc")),
}


def caption(results: ResultsFile) -> str:
    env = results.environment
    device = ", ".join(gpu["name"] for gpu in env["gpus"]) or f"{env['cpu_model']} ({env['logical_cores']} cores)"
    size = "quick run" if results.quick else "full run"
    return (f"runner: {results.runner} · {device} · TensorFlow {env['tensorflow']} · "
            f"{size} · {env['utc_time'][:10]}")


def time_per_call_svg(results: ResultsFile, theme_name: str) -> str:
    """Horizontal bars of median time per call, whiskers from first to third quartile."""
    theme = THEMES[theme_name]
    cases = list(results.cases)
    medians = [case.measurement.median_s for case in cases]
    unit_name, scale = select_unit(min(medians))
    log_scale = max(medians) / min(medians) >= LOG_SCALE_SPREAD

    with _style(theme):
        figure, axes = plt.subplots(figsize=(7.5, 0.7 * len(cases) + 1.6))
        positions = range(len(cases))[::-1]  # first case on top, as in the table
        lows = [(case.measurement.median_s - case.measurement.quartiles_s[0]) / scale for case in cases]
        highs = [(case.measurement.quartiles_s[1] - case.measurement.median_s) / scale for case in cases]
        colours = [theme.bars[i % len(theme.bars)] for i in range(len(cases))]
        axes.barh(list(positions), [m / scale for m in medians], color=colours, height=0.6,
                  xerr=[lows, highs], error_kw={"ecolor": theme.text, "capsize": 4, "linewidth": 1.2})
        axes.set_yticks(list(positions), [case.label for case in cases])
        for position, case, median in zip(positions, cases, medians):
            axes.annotate(format_time(median), (case.measurement.quartiles_s[1] / scale, position),
                          xytext=(8, 0), textcoords="offset points",
                          va="center", ha="left", color=theme.text, fontsize=10)
        if log_scale:
            axes.set_xscale("log")
            _plain_log_ticks(axes.xaxis)
        axes.set_xlim(right=axes.get_xlim()[1] * (3 if log_scale else 1.25))
        axes.set_xlabel(f"time per call ({unit_name}, {'log scale, ' if log_scale else ''}"
                        "median; whiskers: interquartile range)")
        axes.grid(axis="x", color=theme.grid, linewidth=0.6)
        _finish_axes(figure, axes, results)
        return _svg(figure)


def sweep_svg(results: ResultsFile, theme_name: str) -> str:
    """Median time per call against the swept parameter, one line per mode, log-log."""
    theme = THEMES[theme_name]
    x_name = sweeps.sweep_parameter(results)
    all_medians = [case.measurement.median_s for case in results.cases]
    unit_name, scale = select_unit(min(all_medians))
    with _style(theme):
        figure, axes = plt.subplots(figsize=(7.5, 4.6))
        for index, mode in enumerate(sweeps.modes(results)):
            points = sweeps.sweep(results, mode)
            xs = [x for x, _ in points]
            colour = theme.bars[index % len(theme.bars)]
            axes.plot(xs, [m.median_s / scale for _, m in points], marker="o", color=colour,
                      label=mode, linewidth=1.8, markersize=5)
            axes.fill_between(xs, [m.quartiles_s[0] / scale for _, m in points],
                              [m.quartiles_s[1] / scale for _, m in points], color=colour, alpha=0.2, linewidth=0)
        axes.set_xscale("log")
        axes.set_yscale("log")
        _plain_log_ticks(axes.xaxis)
        _plain_log_ticks(axes.yaxis)
        axes.set_xticks(sorted({x for case in results.cases for x in [case.params[x_name]]}))
        axes.set_xlabel(x_name.replace("_", " ") + " (log scale)")
        axes.set_ylabel(f"time per call ({unit_name}, log scale)")
        axes.grid(which="major", color=theme.grid, linewidth=0.6)
        axes.legend(frameon=False, labelcolor=theme.text)
        _finish_axes(figure, axes, results)
        return _svg(figure)


def _style(theme: Theme):
    return plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tfspeedlab", "font.size": 11,
                           "font.family": "sans-serif", "text.color": theme.text,
                           "axes.labelcolor": theme.text, "xtick.color": theme.text,
                           "ytick.color": theme.text, "axes.edgecolor": theme.grid})


def _plain_log_ticks(axis, decades: float = 0.0) -> None:
    # Plain numbers at 1-2-5 steps read better than powers of ten; over many
    # decades they would collide, so only the powers of ten are labelled.
    axis.set_major_locator(ticker.LogLocator(subs=(1.0,) if decades > 2.5 else (1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def _open_frame(axes) -> None:
    # No top or right border; grid lines behind the bars.
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    axes.set_axisbelow(True)


def _finish_axes(figure, axes, results: ResultsFile) -> None:
    _open_frame(axes)
    axes.set_title(results.title, loc="left", fontsize=12)
    figure.text(0.01, 0.01, caption(results), fontsize=8.5, alpha=0.85)
    figure.tight_layout(rect=(0, 0.05, 1, 1))


def _svg(figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", transparent=True, metadata={"Date": None})
    plt.close(figure)
    return buffer.getvalue()


def has_host_layers(results: ResultsFile) -> bool:
    return all(f"{layer}_fraction" in case.metrics for case in results.cases for layer in HOST_LAYERS)


def host_layers_svg(results: ResultsFile, theme_name: str) -> str:
    """Stacked bars: each case's median time per call split by its profiled layer fractions."""
    theme = THEMES[theme_name]
    cases = list(results.cases)
    unit_name, scale = select_unit(min(case.measurement.median_s for case in cases))
    with _style(theme):
        figure, axes = plt.subplots(figsize=(7.5, 0.7 * len(cases) + 2.0))
        positions = list(range(len(cases))[::-1])
        left = [0.0] * len(cases)
        for index, layer in enumerate(HOST_LAYERS):
            widths = [case.measurement.median_s * case.metrics[f"{layer}_fraction"] / scale for case in cases]
            axes.barh(positions, widths, left=left, height=0.6, color=theme.bars[index], label=HOST_LAYER_LABELS[layer])
            left = [a + b for a, b in zip(left, widths)]
        for position, case, end in zip(positions, cases, left):
            axes.annotate(format_time(case.measurement.median_s), (end, position), xytext=(6, 0),
                          textcoords="offset points", va="center", fontsize=10)
        axes.set_yticks(positions, [case.label for case in cases])
        axes.set_xlim(right=max(left) * 1.18)
        axes.set_xlabel(f"time per call ({unit_name}; median, split by profiled share)")
        axes.grid(axis="x", color=theme.grid, linewidth=0.6)
        axes.legend(frameon=False, loc="lower right", labelcolor=theme.text)
        _finish_axes(figure, axes, results)
        return _svg(figure)


def grid_svg(results: ResultsFile, theme_name: str) -> str:
    """One panel per column value (e.g. per model), bars per row value (e.g. per mode)."""
    theme = THEMES[theme_name]
    grid = pivot(results)
    row_values, column_values, cells = grid.row_values, grid.column_values, grid.cells
    baseline, per = grid.layout.baseline, grid.layout.time_per  # per: what one timed call is
    with _style(theme):
        figure, panels = plt.subplots(len(column_values), 1, figsize=(7.5, 0.32 * len(row_values) * len(column_values) + 2.2),
                                      squeeze=False)
        for axes, column in zip(panels[:, 0], column_values):
            present = [row for row in row_values if (row, column) in cells]
            medians = [cells[(row, column)].measurement.median_s for row in present]
            unit_name, scale = select_unit(min(medians))
            positions = list(range(len(present))[::-1])
            colours = [theme.bars[0] if row == baseline else theme.bars[1] for row in present]
            axes.barh(positions, [m / scale for m in medians], color=colours, height=0.65)
            for position, median in zip(positions, medians):
                axes.annotate(format_time(median), (median / scale, position), xytext=(5, 0),
                              textcoords="offset points", va="center", fontsize=8.5)
            axes.set_yticks(positions, present, fontsize=9)
            log_scale = max(medians) / min(medians) >= LOG_SCALE_SPREAD
            if log_scale:  # microsecond bars beside millisecond ones would vanish on a linear axis
                axes.set_xscale("log")
                left, right = min(medians) / scale / 2, max(medians) / scale * 6
                _plain_log_ticks(axes.xaxis, decades=math.log10(right / left))
                axes.set_xlim(left=left, right=right)
            else:
                axes.set_xlim(right=max(medians) / scale * 1.3)
            scale_note = ", log scale" if log_scale else ""
            axes.set_title(f"{column} — time per {per} ({unit_name}{scale_note})", loc="left", fontsize=10.5)
            axes.grid(axis="x", color=theme.grid, linewidth=0.6)
            _open_frame(axes)
        figure.suptitle(results.title, x=0.01, ha="left", fontsize=12)
        figure.text(0.01, 0.005, caption(results), fontsize=8.5, alpha=0.85)
        figure.tight_layout(rect=(0, 0.03, 1, 0.98))
        return _svg(figure)


def op_layers_svg(results: ResultsFile, theme_name: str) -> str:
    """One panel per tensor size: each entry point's time per add, stacked by the layers under it."""
    theme = THEMES[theme_name]
    sizes = op_layers.sizes(results)
    with _style(theme):
        figure, panels = plt.subplots(len(sizes), 1, figsize=(7.5, 2.1 * len(sizes) + 1.2), squeeze=False)
        for axes, size in zip(panels[:, 0], sizes):
            rows = op_layers.entries(results, size)
            unit_name, scale = select_unit(max(row.total_s for row in rows))
            positions = list(range(len(rows))[::-1])
            left = [0.0] * len(rows)
            for index, layer in enumerate(op_layers.STACK):
                # Noise can make a difference of equal layers negative: drawn as nothing.
                widths = [max(row.layers_s.get(layer, 0.0), 0.0) / scale for row in rows]
                axes.barh(positions, widths, left=left, height=0.62, color=theme.bars[index],
                          label=layer if size == sizes[0] else None)
                left = [a + b for a, b in zip(left, widths)]
            for position, row, end in zip(positions, rows, left):
                axes.annotate(format_time(row.total_s), (end, position), xytext=(4, 0),
                              textcoords="offset points", va="center", fontsize=8.5)
            axes.set_yticks(positions, [row.entry for row in rows], fontsize=9)
            axes.set_xlim(right=max(left) * 1.22)
            title = "scalar" if size == 1 else f"{size:,} elements"
            axes.set_title(f"{title} — time per add ({unit_name})", loc="left", fontsize=10.5)
            axes.grid(axis="x", color=theme.grid, linewidth=0.6)
            _open_frame(axes)
        figure.suptitle(results.title, x=0.01, y=0.995, ha="left", fontsize=12)
        # Under the title, above the first panel: nowhere does it cover a bar.
        figure.legend(loc="upper left", bbox_to_anchor=(0.01, 0.965), ncols=4, frameon=False, fontsize=9,
                      labelcolor=theme.text)
        figure.text(0.01, 0.005, caption(results), fontsize=8.5, alpha=0.85)
        figure.tight_layout(rect=(0, 0.03, 1, 0.93))
        return _svg(figure)
