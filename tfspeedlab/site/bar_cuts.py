"""Bars cut short: a chart whose longest bar passes ``OFF_SCALE_FROM`` times its baseline is drawn to
``CUT_AT`` times it. The bars near the baseline are the comparisons a reader acts on, and beside a 40×
bar they were slivers; a longer bar is cut there, hatched, and keeps its time in its label."""

from __future__ import annotations

from matplotlib import ticker

# A chart is cut where its longest bar passes OFF_SCALE_FROM × its baseline, at CUT_AT × it.
OFF_SCALE_FROM = 8.0
CUT_AT = 4.0


def cut_for(times: list[float], baseline_s: float | None) -> float | None:
    """Where to cut bars of ``times`` (seconds), or None where nothing passes the threshold."""
    if baseline_s is None or max(times) <= OFF_SCALE_FROM * baseline_s:
        return None
    return CUT_AT * baseline_s


def shown(times: list[float], cut: float | None) -> list[float]:
    """Each bar's drawn length: its time, or the cut where it passes it."""
    return [time if cut is None else min(time, cut) for time in times]


def hatch_cut_bars(bars, times: list[float], cut: float | None, theme) -> bool:
    """Hatch the bars cut short, so that they read as cut; whether any was."""
    cut_any = False
    for bar, time in zip(bars, times):
        if cut is not None and time > cut:
            bar.set_hatch("///")
            bar.set_edgecolor(theme.text)
            bar.set_alpha(0.6)
            cut_any = True
    return cut_any


def stop_the_scale_at(axes, cut: float, theme) -> None:
    """A cut chart's axis runs on past the cut, for the labels' room; its ticks and grid stop at the
    cut, marked by a dashed line, so that no cut bar's end is read against a tick it never reached."""
    steps = ticker.MaxNLocator(nbins=2, steps=[1, 2, 5, 10]).tick_values(0, cut)
    axes.set_xticks([tick for tick in steps if 0 <= tick <= cut * 1.0001])
    axes.axvline(cut, color=theme.text, linestyle=(0, (2, 2)), linewidth=0.8)
