"""Trend charts of the release history: one chart per workload, a line per mode across releases."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib import ticker

from tfspeedlab.analysis import history as trends
from tfspeedlab.spec.releases import KERAS_3_FROM, Release
from tfspeedlab.results.history import ReleaseResults
from tfspeedlab.site.charts import (
    FIGURE_WIDTH_IN,
    LINE_IN,
    THEMES,
    _open_frame,
    _plain_log_ticks,
    _style,
    _svg,
    wrap_at_separators,
)
from tfspeedlab.units import select_unit

# A line whose slowest release is this many times its fastest gets a log axis.
LOG_SPREAD = 8.0



def trend_series(history: list[ReleaseResults], example: str, workload: str) -> dict[str, list[trends.TrendPoint]]:
    """Each mode of ``workload`` (named as tables name it) and its points, oldest release first."""
    return {trends.mode_label(history, example, label, mode): trends.trend(history, example, label)
            for mode, label in trends.workload_groups(history, example)[workload].items()}


def trend_svg(series: dict[str, list[trends.TrendPoint]], releases: list[Release], example: str, workload: str,
              theme_name: str) -> str:
    """Time per call of each mode of ``workload`` on every release, with 95% intervals; the
    release that made Keras 3 ``tf.keras`` marked."""
    theme = THEMES[theme_name]
    positions = {release: index for index, release in enumerate(releases)}
    estimates = [point.estimate_s for points in series.values() for point in points]
    # The unit of the middle of the range (geometric): "50000 µs" ticks read badly.
    unit_name, scale = select_unit((min(estimates) * max(estimates)) ** 0.5)
    log_scale = max(estimates) / min(estimates) >= LOG_SPREAD
    caption = f"{example} · 10th percentile of all blocks · bars: 95% interval"
    caption_lines = wrap_at_separators(caption)
    with _style(theme):
        height = 3.4 + 0.25 * len(series) + LINE_IN * len(caption_lines)
        figure, axes = plt.subplots(figsize=(FIGURE_WIDTH_IN, height), layout="constrained")
        for index, (mode, points) in enumerate(series.items()):
            colour = theme.lines[index % len(theme.lines)]
            xs = [positions[point.release] for point in points]
            ys = [point.estimate_s / scale for point in points]
            errors = [[(point.estimate_s - point.low_s) / scale for point in points],
                      [(point.high_s - point.estimate_s) / scale for point in points]]
            axes.errorbar(xs, ys, yerr=errors, color=colour, marker="o", markersize=4, linewidth=1.6,
                          capsize=2.5, label=mode)
        switch = next((positions[r] for r in releases if (r.major, r.minor) >= KERAS_3_FROM), None)
        if switch is not None and switch > 0:
            axes.axvline(switch - 0.5, color=theme.text, linestyle=":", linewidth=1)
            axes.annotate("Keras 3 →", xy=(switch - 0.45, 1), xycoords=("data", "axes fraction"),
                          ha="left", va="top", alpha=0.85)
        axes.set_xticks(range(len(releases)), [release.name for release in releases])
        axes.set_xlim(-0.5, len(releases) - 0.5)
        if log_scale:
            axes.set_yscale("log")
            low = min(point.low_s for points in series.values() for point in points) / scale
            high = max(point.high_s for points in series.values() for point in points) / scale
            axes.set_ylim(low / 1.6, high * 1.6)
            _plain_log_ticks(axes.yaxis)
        else:
            axes.set_ylim(bottom=0, top=max(point.high_s for points in series.values() for point in points)
                          / scale * 1.15)
            axes.yaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
        per = "call or step" if any(mode.endswith("(per step)") for mode in series) else "call"
        axes.set_ylabel(f"time per {per} ({unit_name}{', log scale' if log_scale else ''})")
        axes.set_xlabel("TensorFlow release")
        axes.grid(axis="y", color=theme.grid, linewidth=0.6)
        _open_frame(axes)
        figure.legend(loc="outside upper left", ncols=2, frameon=False, labelcolor=theme.text,
                      title=workload, alignment="left", title_fontproperties={"size": 12.5})
        figure.text(0.01, 0.005, "\n".join(caption_lines), va="bottom", alpha=0.85, linespacing=1.2)
        caption_share = LINE_IN * len(caption_lines) / height + 0.01
        figure.get_layout_engine().set(rect=(0, caption_share, 1, 1 - caption_share))  # left, bottom, width, height
        return _svg(figure)
