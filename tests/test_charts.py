import html
import re
from dataclasses import replace

import pytest

from conftest import synthetic_results
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.profiling import HOST_LAYERS, HOST_LAYER_LABELS
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.spec.layout import Grid, OpLayers, Sweep
from tfspeedlab.core.stats import op_layers
from tfspeedlab.core.units import UNIT_SPACE, format_time
from tfspeedlab.core.wording import ONE_PROCESS
from tfspeedlab.render import charts
from tfspeedlab.site import bar_charts, chart_check, tables, views


def test_chart_has_caption_units_and_both_themes():
    results = synthetic_results()
    light = bar_charts.time_per_call_svg(results, "light")
    dark = bar_charts.time_per_call_svg(results, "dark")
    for svg in (light, dark):
        assert svg.lstrip().startswith("<?xml")
        assert "runner: cpu" in svg and "TensorFlow 2.99.0" in svg
        assert "time per call" in svg and f"10{UNIT_SPACE}ms" in svg  # each tick says its unit
    assert charts.THEMES["light"].text in light and charts.THEMES["dark"].text in dark


# ------------------------------------------------------------ one chart per layout


def texts(svg: str) -> list[str]:
    """Every text drawn in the chart (the charts keep text as text: svg.fonttype none)."""
    return [html.unescape(re.sub(r"<[^>]+>", "", found)).strip()
            for found in re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.DOTALL)]


def measured(seconds: float) -> Measurement:
    return Measurement((seconds * 0.98, seconds, seconds * 1.03), 10, seconds * 50, "test")


def with_cases(layout, cases, **changes):
    return replace(synthetic_results(), cases=tuple(cases), baseline=None, layout=layout, **changes)


def sweep_results():
    cases = [CaseResult(f"{mode} {n}", {"mode": mode, "n_ops": n}, measured(base + per_op * n))
             for mode, base, per_op in (("eager", 1e-6, 2e-6), ("graph", 4e-5, 1e-7)) for n in (1, 10, 100)]
    return with_cases(Sweep("n_ops"), cases)


def grid_results():
    cases = [CaseResult(f"{mode} · {model}", {"mode": mode, "model": model}, measured(seconds))
             for model, scale in (("tiny MLP", 1e-4), ("ResNet block", 1e-2), ("LSTM", 1e-3))
             for mode, seconds in (("eager", 3 * scale), ("graph", scale))]
    return with_cases(Grid(rows="mode", columns="model", baseline="eager"), cases, title="Training step grid")


OP_LAYERS = OpLayers(top_entries=("tf.add", "x + y"), wrapper="gen_math_ops.add_v2", fast_path="TFE_Py_FastPathExecute",
                     kernel="graph chain", empty_call="empty tf.function")


def op_layers_results():
    per_op = {"tf.add": 6e-6, "x + y": 6.5e-6, "gen_math_ops.add_v2": 4e-6, "TFE_Py_FastPathExecute": 2e-6,
              "graph chain": 1.2e-6, "empty tf.function": 2e-5}
    cases = []
    for elements, growth in ((1, 1.0), (1000, 1.5)):
        for entry, seconds in per_op.items():
            params = {"entry": entry, "elements": elements}
            if entry == "graph chain":
                params["chain"] = 100
            cases.append(CaseResult(f"{entry} @ {elements}", params, measured(seconds * growth)))
    return with_cases(OP_LAYERS, cases, title="One add, layer by layer")


def host_layers_results():
    shares = {"eager": (0.5, 0.3, 0.0, 0.2), "graph": (0.2, 0.1, 0.3, 0.4)}
    cases = [CaseResult(mode, {"mode": mode}, measured(seconds),
                        {**{f"{layer}_fraction": share for layer, share in zip(HOST_LAYERS, shares[mode])},
                         "profiled_call_s": seconds * 1.2})
             for mode, seconds in (("eager", 2e-3), ("graph", 5e-4))]
    return with_cases(synthetic_results().layout, cases, title="Where the time goes")


BAR_AXIS = "time per call, 10th percentile of all blocks"
HOST_AXIS = "split by profiled share"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_default_layout_draws_bars_of_every_case(theme):
    results = synthetic_results()
    found = texts(views.chart_svg(results, theme))
    assert any(BAR_AXIS in t for t in found)
    assert {"eager", "graph", "Demo workload"} <= set(found)
    assert not any(HOST_AXIS in t or "(log scale)" in t for t in found)
    # One process here: no bar carries a verdict, and the chart says why once.
    assert not any("×" in t for t in found)
    assert " ".join(found).count(ONE_PROCESS.capitalize()) == 1


def test_sweep_layout_draws_one_line_per_series_along_the_parameter():
    found = texts(views.chart_svg(sweep_results(), "light"))
    assert "n ops (log scale)" in found
    assert {"eager", "graph"} <= set(found)  # the legend
    assert not any(BAR_AXIS in t for t in found)
    # Ticks at the swept values.
    assert {"1", "10", "100"} <= set(found)


def test_grid_layout_draws_one_panel_per_column():
    found = texts(views.chart_svg(grid_results(), "light"))
    titles = [t for t in found if " — time per step" in t]
    assert [t.split(" — ")[0] for t in titles] == ["tiny MLP", "ResNet block", "LSTM"]
    assert "Training step grid" in found
    assert found.count("eager") == 3 and found.count("graph") == 3  # each panel's bars
    assert not any(BAR_AXIS in t for t in found)


def test_op_layers_layout_draws_a_panel_per_size_stacked_by_layer():
    results = op_layers_results()
    found = texts(views.chart_svg(results, "light"))
    titles = [t for t in found if " — time per add" in t]
    assert [t.split(" — ")[0] for t in titles] == ["scalar", "1,000 elements"]
    # Every entry point in each panel, the kernel named by its chain.
    for entry in ("tf.add", "x + y", "gen_math_ops.add_v2", "TFE_Py_FastPathExecute", "kernel (graph chain)"):
        assert found.count(entry) == 2, entry
    # A legend of the stack's layers, once.
    for layer in ("kernel", "C++ eager runtime", "generated wrapper", "API layer"):
        assert found.count(layer) == 1, layer
    assert "One add, layer by layer" in found
    # The kernel bar is the chain's time per add less the empty call spread over the chain of 100.
    scalar = found[:found.index(titles[0])]
    kernel = format_time(op_layers.kernel_s(results, 1))
    # (its whisker too short to see on the scalar's axis, the label also states its interval)
    assert any(t == kernel or t.startswith(f"{kernel} [") for t in scalar) and f"1.20{UNIT_SPACE}µs" not in scalar


def test_profiled_results_draw_host_layers_stacked():
    found = texts(views.chart_svg(host_layers_results(), "light"))
    assert any(HOST_AXIS in t for t in found)
    for layer in HOST_LAYERS:
        assert HOST_LAYER_LABELS[layer] in found
    assert {"eager", "graph", "Where the time goes"} <= set(found)
    assert not any(BAR_AXIS in t for t in found)


def test_host_layers_need_every_layer_of_every_case():
    partial = host_layers_results()
    first = partial.cases[0]
    metrics = {k: v for k, v in first.metrics.items() if k != "executor_fraction"}
    partial = replace(partial, cases=(replace(first, metrics=metrics),) + partial.cases[1:])
    found = texts(views.chart_svg(partial, "light"))
    assert any(BAR_AXIS in t for t in found) and not any(HOST_AXIS in t for t in found)


# ------------------------------------------------------------ readable on a phone


def smallest_text_on_a_phone(svg: str) -> float:
    """The smallest font of the chart in CSS px, once a phone's column scales the chart to its width."""
    width = float(re.search(r'<svg\b[^>]*\bviewBox="0 0 ([\d.]+) ', svg)[1])
    sizes = [float(size) for size in re.findall(r"font-size: ([\d.]+)px", svg)]
    assert sizes, "the chart keeps its text as text"
    return min(sizes) * charts.PHONE_COLUMN_PX / width


@pytest.mark.parametrize("make", [synthetic_results, sweep_results, grid_results, op_layers_results,
                                  host_layers_results])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_layout_keeps_its_text_readable_on_a_phone(make, theme):
    assert smallest_text_on_a_phone(views.chart_svg(make(), theme)) >= 10.0


def test_caption_wraps_between_its_parts_within_the_figure():
    text = " · ".join(["runner: gpu", "NVIDIA GeForce RTX 4090, NVIDIA GeForce RTX 4090", "TensorFlow 2.99.0",
                       "full run", "2026-01-01"])
    lines = charts.wrap_at_separators(text)
    assert len(lines) > 1 and " · ".join(lines) == text
    assert all(len(line) <= charts.line_chars(charts.TEXT_PT) for line in lines)


def test_a_sweep_of_many_values_labels_only_as_many_ticks_as_fit():
    swept = [3 ** k for k in range(1, 13)]  # twelve values; none is a tick label of the time axis
    cases = [CaseResult(f"{mode} {n}", {"mode": mode, "n_ops": n}, measured(seconds))
             for mode, seconds in (("eager", 5e-3), ("graph", 7e-3)) for n in swept]
    found = set(texts(views.chart_svg(with_cases(Sweep("n_ops"), cases), "light")))
    labelled = [n for n in swept if charts.compact_number(n) in found]
    assert labelled[0] == swept[0] and 4 <= len(labelled) <= 7


# ------------------------------------------------------------ a grid too large for panels


def large_grid_results():
    """Twelve settings × six workloads (72 bars): one 2× faster, one 3× slower, the rest the same."""
    settings = ["default", "pinned", "slow", *(f"setting {n}" for n in range(9))]
    factor = {"pinned": 0.5, "slow": 3.0}
    # Three processes a case, as the harness runs them: one process gives no interval between processes.
    cases = [CaseResult(f"{setting} · w{n}", {"setting": setting, "workload": f"w{n}"},
                        tuple(measured(1e-3 * factor.get(setting, 1.0)) for _ in range(3)))
             for setting in settings for n in range(6)]
    return with_cases(Grid(rows="setting", columns="workload", baseline="default"), cases,
                      title="CPU settings grid")


def test_a_grid_too_large_for_panels_is_drawn_as_a_matrix_of_speed_ups():
    from tfspeedlab.site import matrix_charts
    results = large_grid_results()
    assert matrix_charts.uses_matrix(results) and not matrix_charts.uses_matrix(grid_results())
    rows, columns, speedups, clear = matrix_charts.speedup_cells(results)
    assert "default" not in rows and len(columns) == 6
    assert speedups[rows.index("pinned")].round(2).tolist() == [2.0] * 6
    assert clear[rows.index("pinned")].all() and clear[rows.index("slow")].all()
    assert not clear[rows.index("setting 0")].any()  # the same time: never coloured as a change
    # The scale reaches the furthest clear cell, and reads in the guide's words.
    assert matrix_charts.scale_end(speedups[clear]) == 3.0
    assert [mark.replace("\xa0", " ") for mark in matrix_charts.scale_marks(3.0).values()] == ["3× slower", "the same", "3× faster"]
    assert [mark.replace("\xa0", " ") for mark in matrix_charts.scale_marks(8.0).values()] == [
        "8× slower", "2× slower", "the same", "2× faster", "8× faster"]
    for theme in ("light", "dark"):
        svg = views.chart_svg(results, theme)
        found = texts(svg)
        assert "CPU settings grid" in found and "3×\xa0faster" in found and "pinned" in found
        assert "Hatched: its 95% interval holds 1×." in " ".join(" ".join(found).split())
        assert smallest_text_on_a_phone(svg) >= 10.0
        # A screen or two, not a panel per workload: under 800 pt tall.
        assert float(re.search(r'<svg\b[^>]*\bheight="([\d.]+)pt"', svg)[1]) < 800
    assert views.view_for(results).shows == "speed-up over default"


def test_grid_bars_carry_the_tables_verdict_beside_their_time():
    one_process = grid_results()
    several = replace(one_process, cases=tuple(replace(case, runs=(case.runs[0],) * 3) for case in one_process.cases))
    found = [text.replace("\xa0", " ") for text in texts(views.chart_svg(several, "light"))]
    # Graph against the eager baseline, as the table's cell words it; the baseline bar has its time alone.
    assert "98.0 µs · 3.00× faster" in found and "294 µs" in found
    table = tables.grid_table(several)
    assert "3.00×\xa0faster" in table
    # One process per case: the table gives no verdict, and neither does the chart (once per panel, in
    # its title, not beside every bar).
    alone = texts(views.chart_svg(one_process, "light"))
    assert " ".join(alone).count(f"; {ONE_PROCESS}, no whisker") == 3
    assert not any(text.endswith(f"· {ONE_PROCESS}") for text in alone)
    # Several processes: every bar carries the verdict's interval as its whisker; one process: none.
    assert views.chart_svg(several, "light").count('id="whisker-') == 6
    assert 'id="whisker-' not in views.chart_svg(one_process, "light")


def test_a_training_case_that_did_not_train_is_marked_on_its_bar():
    base = synthetic_results()
    trained, untrained = (replace(case, metrics={"weight_change": change})
                          for case, change in zip(base.cases, (0.3, 0.0)))
    svg = bar_charts.time_per_call_svg(replace(base, cases=(trained, untrained)), "light")
    assert any(text.endswith(f"· {bar_charts.UNTRAINED_MARK}") for text in texts(svg))
    # Only where the baseline moved its weights: two cases that both stood still are not marked.
    still = replace(trained, metrics={"weight_change": 0.0})
    assert bar_charts.UNTRAINED_MARK not in bar_charts.time_per_call_svg(replace(base, cases=(still, untrained)),
                                                                         "light")


def test_a_split_grid_over_named_calls_places_each_name_apart_without_a_log_axis():
    cases = [CaseResult(f"{model} · {backend} · {call}", {"model": model, "backend": backend, "call": call},
                        measured(seconds))
             for model in ("MLP", "CNN") for backend, factor in (("TensorFlow", 1.0), ("JAX", 0.5))
             for call, seconds in (("fit", 2e-3 * factor), ("predict · batch 1", 4e-2 * factor))]
    results = with_cases(Grid(rows="backend", columns="call", baseline="TensorFlow", split="model"), cases)
    found = texts(views.chart_svg(results, "light"))
    assert "fit" in found and "predict ·\nbatch 1" in "\n".join(found)  # each call named on the axis
    assert not any("call (log scale)" in text for text in found)


# ------------------------------------------------------------ readable at a glance (issue 42, item 8)
#
# Each rule is checked on the drawn figure (the matplotlib objects the SVG was saved from): a bar without
# its whisker, a bar cut short, a panel of more than five series or a band nobody names fails here.

import math  # noqa: E402

import matplotlib.figure  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from conftest import REPO  # noqa: E402
from tfspeedlab.core.results.store import load_runner  # noqa: E402
from tfspeedlab.core.stats import intervals  # noqa: E402
from tfspeedlab.history import charts as history_charts
from tfspeedlab.render import bar_scale
from tfspeedlab.site import split_grid_charts  # noqa: E402


@pytest.fixture
def drawn(monkeypatch):
    """``drawn(make, *args)``: the chart ``make`` draws, as (its figure, its SVG)."""
    saved = []
    save = matplotlib.figure.Figure.savefig

    def keep(figure, *args, **kwargs):
        saved.append(figure)
        return save(figure, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)

    def draw(make, *args):
        svg = make(*args)
        return saved[-1], svg
    return draw


def processes(case: CaseResult, count: int = 3) -> CaseResult:
    """The case timed in ``count`` processes, each a little apart, as the harness runs it."""
    seconds = case.measurement.per_call_s
    return replace(case, runs=tuple(measured(seconds * (1 + 0.04 * k)) for k in range(count)))


def several_processes(results):
    return replace(results, cases=tuple(processes(case) for case in results.cases))


def bars_of(axes) -> dict[str, Rectangle]:
    return {patch.get_gid().split("-", 1)[1]: patch for patch in axes.patches
            if (patch.get_gid() or "").startswith(f"{bar_scale.BAR_ID}-")}


def whiskers_of(axes) -> dict[str, tuple[float, float]]:
    """Each whisker's two ends on the value axis, by its bar's place."""
    found = {}
    for collection in axes.collections:
        if (collection.get_gid() or "").startswith(f"{bar_scale.WHISKER_ID}-"):
            (x0, _), (x1, _) = collection.get_segments()[0]
            found[collection.get_gid().split("-", 1)[1]] = (min(x0, x1), max(x0, x1))
    return found


def bar_panels(figure) -> list:
    return [axes for axes in figure.axes if bars_of(axes)]


@pytest.mark.parametrize("make", [lambda: several_processes(synthetic_results()),
                                  lambda: replace(several_processes(synthetic_results()), baseline=None),
                                  lambda: several_processes(grid_results())])
def test_every_bar_carries_the_interval_its_label_states_as_a_whisker(drawn, make):
    results = make()
    figure, svg = drawn(views.chart_svg, results, "light")
    panels = bar_panels(figure)
    assert panels
    for axes in panels:
        bars, whiskers = bars_of(axes), whiskers_of(axes)
        assert set(bars) == set(whiskers), "a bar without its whisker"
        for place, bar in bars.items():
            low, high = whiskers[place]
            assert low <= bar.get_x() + bar.get_width() <= high
    # The chart says what the whiskers are.
    assert "Whisker:" in " ".join(texts(svg))
    if results.baseline is not None:
        # Against a baseline, a whisker is the verdict's interval: the time ÷ the baseline's, drawn as times.
        (axes,) = panels
        bars, whiskers = bars_of(axes), whiskers_of(axes)
        reference, other = results.case("eager"), results.case("graph")
        found = intervals.ratio(other, reference)
        end = bars["0-1"].get_x() + bars["0-1"].get_width()
        low, high = whiskers["0-1"]
        assert math.isclose(low / end, found.low / found.value, rel_tol=1e-6)
        assert math.isclose(high / end, found.high / found.value, rel_tol=1e-6)


def test_a_bar_timed_in_one_process_draws_no_whisker_and_the_chart_says_so_once(drawn):
    figure, svg = drawn(views.chart_svg, synthetic_results(), "light")  # one process per case
    (axes,) = bar_panels(figure)
    assert len(bars_of(axes)) == 2 and not whiskers_of(axes)
    words = " ".join(texts(svg))
    assert words.count(ONE_PROCESS.capitalize()) == 1 and "no whisker" in words


def wide_results():
    """A baseline and cases 1.3x, 4.7x, 36x and 53x its time (input-pipeline's spread), three processes each."""
    cases = [processes(CaseResult(label, {"mode": label}, measured(5.7e-4 * factor)))
             for label, factor in (("in memory", 1.0), ("slices", 1.3), ("map", 4.66), ("generator", 36.2),
                                   ("py_function", 52.6))]
    return replace(synthetic_results(), cases=tuple(cases), baseline="in memory")


def bar_ends(axes) -> dict[str, float]:
    return {place: bar.get_x() + bar.get_width() for place, bar in bars_of(axes).items()}


def test_values_spanning_past_8x_get_a_log_axis_and_no_bar_is_cut(drawn):
    results = wide_results()
    figure, svg = drawn(views.chart_svg, results, "light")
    (axes,) = bar_panels(figure)
    assert axes.get_xscale() == "log"
    # Every bar ends at its own time: their ratios are the times' (4.66x, 36.2x and 52.6x apart, not one length).
    ends = bar_ends(axes)
    times = [case.measurement.per_call_s for case in results.cases]
    for number, seconds in enumerate(times):
        assert math.isclose(ends[f"0-{number}"] / ends["0-0"], seconds / times[0], rel_tol=1e-9)
    assert not any(bar.get_hatch() for bar in bars_of(axes).values())
    # Ticks a reader reads at a glance: 1, 2, 3 or 5 times a power of ten, each with its unit.
    ticks = [tick for tick in axes.get_xticks() if axes.get_xlim()[0] <= tick <= axes.get_xlim()[1]]
    assert len(ticks) >= 3
    for tick in ticks:
        mantissa = tick / 10 ** math.floor(math.log10(tick) + 1e-9)
        assert any(math.isclose(mantissa, step) for step in (1, 2, 3, 5)), tick
    assert any(t.endswith(f"{UNIT_SPACE}ms") for t in texts(svg))
    # Within 8x, the axis stays linear and starts at zero.
    narrow = replace(results, cases=results.cases[:3])
    figure, _ = drawn(views.chart_svg, narrow, "light")
    (axes,) = bar_panels(figure)
    assert axes.get_xscale() == "linear" and axes.get_xlim()[0] == 0


def test_every_panel_of_a_grid_shares_one_kind_of_axis(drawn):
    figure, _ = drawn(views.chart_svg, several_processes(grid_results()), "light")
    panels = bar_panels(figure)
    assert len(panels) == 3 and {axes.get_xscale() for axes in panels} == {"linear"}  # each panel 3x apart
    wide = with_cases(grid_results().layout, [processes(CaseResult(f"{mode} · {model}", {"mode": mode, "model": model},
                                                                  measured(seconds)))
                                              for model, spread in (("a", 2.0), ("b", 20.0))
                                              for mode, seconds in (("eager", 1e-3), ("graph", 1e-3 / spread))])
    figure, _ = drawn(views.chart_svg, wide, "light")
    assert {axes.get_xscale() for axes in bar_panels(figure)} == {"log"}


# The issue's "at most about five series per panel": a figure of its own here, not the charts' constant.
MOST_SERIES = 5


def series_in(axes, theme) -> set:
    """The series a panel draws: each colour and dash of its data lines and points (band edges, which are
    thin, and lines in the text or grid colour, such as a zero line, are not series of their own)."""
    found = set()
    for line in axes.get_lines():
        colour = matplotlib.colors.to_hex(line.get_color())
        if colour in (theme.grid, theme.text) or (line.get_linewidth() < 1 and line.get_marker() in ("None", None, "")):
            continue
        found.add((colour, "--" if line.get_linestyle() == "--" else "-"))
    return found


def ladder_results():
    """Eleven calls of two models at two batch sizes, tf_keras twins among them: the predict ladder's shape."""
    calls = ["predict", "predict_on_batch", "model(x)", "tf.function", "tf.function + XLA", "predict, whole array",
             "TFLite interpreter", "tf_keras predict", "tf_keras predict_on_batch", "tf_keras model(x)",
             "tf_keras tf.function"]
    cases = [CaseResult(f"{model} · {call} · {batch}", {"model": model, "rung": call, "batch": batch},
                        measured(1e-4 * (1 + number) * batch))
             for model in ("MLP", "CNN") for number, call in enumerate(calls) for batch in (1, 8)]
    return with_cases(Grid(rows="rung", columns="batch", baseline="predict", split="model", time_per="batch"),
                      cases), calls


def test_no_panel_draws_more_than_five_series(drawn):
    theme = charts.THEMES["light"]
    results, calls = ladder_results()
    figure, svg = drawn(views.chart_svg, results, "light")
    panels = [axes for axes in figure.axes if axes.get_lines()]
    assert len(panels) == 6  # two models × three groups of calls
    assert all(1 <= len(series_in(axes, theme)) <= MOST_SERIES for axes in panels)
    # Every call is drawn, in each model's panels, and named in a legend.
    assert sum(len(series_in(axes, theme)) for axes in panels) == 2 * len(calls)
    assert set(calls) <= set(texts(svg))
    # The groups: the tf_keras twins together, the others in two runs of at most five.
    groups = split_grid_charts.series_groups(calls)
    assert [title for title, _ in groups] == [None, None, "tf_keras"]
    assert [len(group) for _, group in groups] == [4, 3, 4]


def test_the_committed_charts_of_many_series_keep_five_a_panel(drawn):
    theme = charts.THEMES["light"]
    committed = load_runner(REPO / "results" / "cpu")
    for name in ("predict_ladder", "keras_backends", "memory"):
        figure, _ = drawn(views.chart_svg, committed[name], "light")
        counts = [len(series_in(axes, theme)) for axes in figure.axes if axes.get_lines()]
        assert counts and max(counts) <= MOST_SERIES, (name, counts)
    assert history_charts.trend_groups({f"case {n} · sitting {s}": [] for n in range(4) for s in (1, 2)}) == [
        ["case 0 · sitting 1", "case 0 · sitting 2", "case 1 · sitting 1", "case 1 · sitting 2"],
        ["case 2 · sitting 1", "case 2 · sitting 2", "case 3 · sitting 1", "case 3 · sitting 2"]]


def legend_texts(figure) -> list[str]:
    legends = [legend for owner in [figure, *figure.subfigs] for legend in owner.legends]
    legends += [axes.get_legend() for axes in figure.axes if axes.get_legend() is not None]
    return [text.get_text() for legend in legends for text in legend.get_texts()]


def bands_of(figure) -> list[PolyCollection]:
    return [found for axes in figure.axes for found in axes.collections if isinstance(found, PolyCollection)]


@pytest.mark.parametrize("make", [sweep_results, lambda: load_runner(REPO / "results" / "cpu")["memory"]])
def test_every_shaded_band_says_what_it_is(drawn, make):
    figure, _ = drawn(views.chart_svg, make(), "light")
    assert bands_of(figure)
    assert any(text.startswith("shaded:") for text in legend_texts(figure)), "a band without its legend entry"


def test_overlapping_bands_keep_their_own_edges(drawn):
    # Graph and XLA's bands overlap: each is edged with a thin line of its own line's colour.
    figure, _ = drawn(views.chart_svg, sweep_results(), "light")
    (axes,) = figure.axes
    for band in bands_of(figure):
        colour = matplotlib.colors.to_hex(band.get_facecolor()[0][:3])
        edges = [line for line in axes.get_lines()
                 if line.get_linewidth() < 1 and matplotlib.colors.to_hex(line.get_color()) == colour]
        assert len(edges) == 2, colour


# ------------------------------------------------------------ what the charts claim (round 1 of the reader reviews)


def committed_op_layers():
    return load_runner(REPO / "results" / "cpu", "cpu")["op_layers"]


def test_a_size_whose_differences_are_not_layers_draws_totals_only_and_says_so(drawn):
    """The op-layers page says the 1,000,000-element rows are not a layer breakdown: its panel must not
    stack a kernel under every eager bar."""
    results = committed_op_layers()
    sizes = op_layers.sizes(results)
    split = [op_layers.is_breakdown(results, size) for size in sizes]
    assert split[:-1] == [True] * (len(sizes) - 1) and split[-1] is False and sizes[-1] == 1_000_000
    figure, svg = drawn(views.chart_svg, results, "light")
    found = texts(svg)
    assert found.count(charts.NOT_A_BREAKDOWN) == 1
    assert [t.split(" — ")[0] for t in found if " — total per add" in t] == ["1,000,000 elements"]
    layer_colours = set(charts.THEMES["light"].bars)
    panels = [axes for axes in figure.axes if axes.patches]
    assert len(panels) == len(sizes)
    last = {matplotlib.colors.to_hex(patch.get_facecolor()) for patch in panels[-1].patches}
    assert not last & layer_colours and len(last) == 1
    assert layer_colours <= {matplotlib.colors.to_hex(patch.get_facecolor()) for patch in panels[0].patches}


def test_a_whisker_too_short_to_see_has_its_interval_written_beside_its_bar():
    """The kernel's 459 ns whisker is invisible on a 0–60 µs axis: its label states the interval."""
    results = committed_op_layers()
    found = texts(views.chart_svg(results, "light"))
    kernel = op_layers.layer_costs(results, 1)["kernel"]
    written = next(t for t in found if t.startswith(f"{format_time(kernel.value)} ["))
    assert re.fullmatch(rf"\S+{UNIT_SPACE}ns \[\d+–\d+{UNIT_SPACE}ns\]", written), written  # one unit throughout
    # A whisker long enough to see keeps the plain time beside its bar.
    top = op_layers.entries(results, 1)[0]
    assert format_time(top.total_s) in found
    scale = bar_scale.Scale(False, 1e-6)
    assert bar_scale.too_short_to_see(bar_scale.Whisker(kernel.low, kernel.high), top.total_s, scale)
    assert not bar_scale.too_short_to_see(bar_scale.Whisker(kernel.low, kernel.high), top.total_s,
                                          bar_scale.Scale(True, 1e-6))  # on a log axis it shows


def _says_time_intervals_lie_above(svg: str) -> bool:
    return " ".join(charts.TIME_INTERVAL_NOTE.split()) in " ".join(" ".join(texts(svg)).split())


@pytest.mark.parametrize("make", [lambda: replace(several_processes(synthetic_results()), baseline=None),
                                  sweep_results, op_layers_results, host_layers_results, committed_op_layers])
def test_a_chart_of_time_intervals_says_they_often_lie_above_their_time(make):
    assert _says_time_intervals_lie_above(views.chart_svg(make(), "light"))


def test_a_chart_of_verdict_whiskers_does_not_say_it():
    assert not _says_time_intervals_lie_above(views.chart_svg(several_processes(synthetic_results()), "light"))


@pytest.mark.parametrize("example", ["time_breakdown", "call_cost"])
def test_every_bar_of_a_layers_chart_writes_its_interval_out_and_the_caption_says_so(example):
    """where-time-goes' first chart wrote the eager bar's interval beside it (its whisker too short to
    see) and the graph and XLA bars' not; its second the other way round. One rule now: every bar."""
    results = load_runner(REPO / "results" / "cpu", "cpu")[example]
    found = texts(views.chart_svg(results, "light"))
    for case in results.cases:
        label = next(t for t in found if t.startswith(f"{format_time(case.measurement.per_call_s)} "))
        assert re.fullmatch(rf"\S+{UNIT_SPACE}\S+ \[[\d.]+–[\d.]+{UNIT_SPACE}\S+\]", label), label
    assert " ".join(charts.LAYERS_NOTE.split()) in " ".join(" ".join(found).split())
    assert "often lie above" in charts.TIME_INTERVAL_NOTE  # a whisker may lie below its point, as eager's does


# ------------------------------------------------------------ every kind of chart, as the build cache keeps it

EVERY_KIND = [synthetic_results, sweep_results, grid_results, op_layers_results, host_layers_results,
              large_grid_results]


@pytest.mark.parametrize("make", EVERY_KIND)
def test_every_kind_of_chart_is_a_drawing_the_build_cache_publishes_again(make):
    """A kept chart is published only if ``chart_check`` finds nothing but a drawing in it: what
    matplotlib draws must pass, or every build would draw every chart again."""
    for theme in charts.THEMES:
        assert chart_check.problem(views.chart_svg(make(), theme)) is None


# ------------------------------------------------------------ text from a results file is drawn as written

# matplotlib reads "$…$" as a formula: the first drew "x" raised to "99", the second stopped the build.
FORMULA_TITLE = "Workload cost $x^{99}$ or $\\frac{1}{$"


@pytest.mark.parametrize("make", EVERY_KIND)
def test_dollar_signs_in_a_title_or_label_are_drawn_as_written_not_as_a_formula(make):
    results = replace(make(), title=FORMULA_TITLE)
    found = texts(views.chart_svg(results, "light"))
    assert FORMULA_TITLE in found


def test_dollar_signs_in_a_case_label_are_drawn_as_written():
    results = synthetic_results()
    results = replace(results, cases=tuple(replace(case, label="graph $x^{99}$") if case.label == "graph" else case
                                           for case in results.cases))
    assert "graph $x^{99}$" in texts(views.chart_svg(results, "light"))


def test_a_bidirectional_or_zero_width_character_in_a_label_is_drawn_written_out():
    results = synthetic_results()
    results = replace(results, cases=tuple(replace(case, label="gra\u202eph\u200b") if case.label == "graph" else case
                                           for case in results.cases))
    svg = views.chart_svg(results, "light")
    assert "\u202e" not in svg and "\u200b" not in svg
    assert "gra\u27e8U+202E\u27e9ph\u27e8U+200B\u27e9" in texts(svg)
