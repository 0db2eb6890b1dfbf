"""The memory chart: resident memory since a loop began against the calls it made, a row of panels
per kind of loop and a panel per Keras, a line per remedy in each (at most five, the allocators
example's malloc settings: every line can be told from the others)."""

from __future__ import annotations

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats import memory_growth
from tfspeedlab.core.units import format_bytes
from tfspeedlab.core.wording import NO_GROWTH_BYTES_PER_CALL
from tfspeedlab.memory.tables import keras_name, remedy_kind, remedy_of
from tfspeedlab.render.charts import (FIGURE_WIDTH_IN, LINE_IN, TEXT_PT, THEMES, TITLE_PT, add_caption,
                                      caption_height_in, chart_style, figure_svg, open_frame, panel_title_at_top,
                                      pyplot, wrapped_title)

# A dash per Keras (the memory page's text names them), as well as a panel each.
KERAS_DASHES = {"tf.keras": "-", "tf_keras": "--"}
# A row of panels, in inches: its title, the panels' titles, the plot and its tick labels.
ROW_IN = 2.45
# What the grey band in every panel is.
BAND_LABEL = f"shaded: steady, within ±{format_bytes(NO_GROWTH_BYTES_PER_CALL)} per call"


def _bytes_unit(largest: float) -> tuple[str, float]:
    """The binary unit an axis reading up to ``largest`` bytes is labelled in."""
    for name, size in (("GiB", 2**30), ("MiB", 2**20)):
        if largest >= size:
            return name, size
    return "KiB", 2**10


def memory_over_calls_svg(results: ResultsFile, theme_name: str) -> str:
    """A row per kind of loop, a panel per Keras: resident memory since the loop began against the
    calls made, a line per remedy (what runs after each call, or the malloc setting where a file
    compares those), each the mean over the case's processes; the band of growth too
    small to call growth shaded and named in the legend."""
    from matplotlib import ticker
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    theme = THEMES[theme_name]
    calls = list(dict.fromkeys(str(case.params["call"]) for case in results.cases))
    kerases = list(dict.fromkeys(str(case.params["keras"]) for case in results.cases))
    remedies = list(dict.fromkeys(remedy_of(case) for case in results.cases))
    colours = dict(zip(remedies, theme.lines))
    title = wrapped_title(results)
    top_in = (title.count("\n") + 1) * TITLE_PT * 1.3 / 72 + 0.25 + ((len(remedies) + 2) // 2 + 1) * LINE_IN * 1.2
    with chart_style(theme):
        height = top_in + ROW_IN * len(calls) + caption_height_in(results)
        figure = pyplot().figure(figsize=(FIGURE_WIDTH_IN, height), layout="constrained")
        caption_share = add_caption(figure, results)
        figure.get_layout_engine().set(rect=(0, caption_share, 1, 1 - caption_share))
        heads, *rows = figure.subfigures(len(calls) + 1, 1, height_ratios=[top_in] + [ROW_IN] * len(calls))
        for row, call in zip(rows, calls):
            cases = [case for case in results.cases if case.params["call"] == call]
            curves = {case.label: memory_growth.curve(case) for case in cases}
            last_call = max(max(found.calls) for found in curves.values())
            # The band within NO_GROWTH_BYTES_PER_CALL a call of flat, drawn so that a line inside it
            # reads as flat however the axis is scaled to its steps.
            band = NO_GROWTH_BYTES_PER_CALL * last_call
            unit_name, scale = _bytes_unit(max(band, *(max(abs(value) for value in found.bytes_since_start)
                                                       for found in curves.values())))
            noun = "models" if call == "new model" else "calls"
            row.suptitle(f"{call} — memory since the loop began ({unit_name}) over {noun}", x=0.01, ha="left",
                         size=TEXT_PT)
            panels = row.subplots(1, len(kerases), sharey=True, squeeze=False)[0]
            for axes, keras in zip(panels, kerases):
                axes.fill_between([0, last_call], [0, -band / scale], [0, band / scale], color=theme.grid,
                                  alpha=0.45, linewidth=0)
                for case in cases:
                    if str(case.params["keras"]) != keras:
                        continue
                    found = curves[case.label]
                    axes.plot(found.calls, [value / scale for value in found.bytes_since_start], marker="o",
                              markersize=3.5, color=colours[remedy_of(case)],
                              linestyle=KERAS_DASHES.get(keras, ":"))
                panel_title_at_top(axes, keras_name(keras, results))
                axes.axhline(0, color=theme.grid, linewidth=0.8)
                axes.xaxis.set_major_locator(ticker.MaxNLocator(nbins=4, integer=True))
                axes.grid(color=theme.grid, linewidth=0.6)
                open_frame(axes)
        heads.text(0.01, 0.97, title, va="top", ha="left", size=TITLE_PT)
        handles = [Line2D([], [], color=colours[remedy], marker="o", markersize=3.5) for remedy in remedies]
        handles.append(Patch(facecolor=theme.grid, alpha=0.45, linewidth=0))
        heads.legend(handles, [*remedies, BAND_LABEL], loc="lower left", ncols=2, frameon=False,
                     labelcolor=theme.text, handlelength=2.2, columnspacing=1.2, borderaxespad=0.2,
                     title=f"line: {remedy_kind(results)}", alignment="left")
        return figure_svg(figure)
