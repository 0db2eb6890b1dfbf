"""Split grids and the fixed-cost fit: a row of times over batch sizes split into per call and per sample."""

from tfspeedlab.core.stats.intervals import Estimate
from dataclasses import replace

import numpy as np
import pytest

from conftest import synthetic_results
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.spec.layout import Grid, LayoutError, from_record, to_record
from tfspeedlab.core.stats import line_fit
from tfspeedlab.core.stats.grid import parts, pivot, pivots
from tfspeedlab.site import tables, views
from tfspeedlab.site.directives import DirectiveError, render
from test_directives import context

BATCHES = (1, 8, 64, 512)
# (model, rung) → (fixed seconds per call, seconds per sample)
TRUE_COSTS = {("MLP", "predict"): (40e-3, 2e-6), ("MLP", "model(x)"): (1e-3, 2e-6),
              ("CNN", "predict"): (45e-3, 40e-6), ("CNN", "model(x)"): (2e-3, 40e-6)}


def ladder(noise=(1.0, 1.0, 1.0, 1.02, 1.01), memory=True, processes=1):  # 10th percentile: exactly 1
    cases = []
    for (model, rung), (fixed, per_sample) in TRUE_COSTS.items():
        for batch in BATCHES:
            t = fixed + per_sample * batch
            metrics = {"memory_calls": 1000, "rss_growth_bytes": 4096.0 if rung == "predict" else 0.0} \
                if memory and batch == 1 else {}
            cases.append(CaseResult(f"{model} · {rung} · {batch}", {"model": model, "rung": rung, "batch": batch},
                                    (Measurement(tuple(t * f for f in noise), 10, 1e-2, "test"),) * processes,
                                    metrics))
    return replace(synthetic_results(example="ladder"), cases=tuple(cases), baseline=None, quick=False,
                   layout=Grid(rows="rung", columns="batch", split="model", baseline="predict", time_per="batch"))


def test_a_split_grid_pivots_one_part_at_a_time():
    results = ladder()
    assert parts(results) == ["MLP", "CNN"]
    assert [grid.part for grid in pivots(results)] == ["MLP", "CNN"]
    cnn = pivot(results, "CNN")
    assert cnn.row_values == ["predict", "model(x)"] and cnn.column_values == list(BATCHES)
    assert cnn.cells[("model(x)", 64)].label == "CNN · model(x) · 64"
    assert pivot(results).part == "MLP"  # the first part by default
    with pytest.raises(KeyError, match="RNN"):
        pivot(results, "RNN")


def test_split_is_a_layout_field_that_round_trips_and_must_be_a_case_parameter():
    layout = Grid(rows="rung", columns="batch", split="model")
    assert from_record(to_record(layout)) == layout
    with pytest.raises(LayoutError, match="split"):
        from_record({**to_record(layout), "split": 3})


def test_the_fit_recovers_the_fixed_and_per_sample_costs_within_its_interval():
    fits = {(fit.part, fit.row): fit for fit in line_fit.row_fits(ladder())}
    assert set(fits) == set(TRUE_COSTS)
    for key, (fixed, per_sample) in TRUE_COSTS.items():
        fit = fits[key]
        assert fit.fixed_s.value == pytest.approx(fixed, rel=1e-6)
        assert fit.per_item_s.value == pytest.approx(per_sample, rel=1e-6)
        assert fit.fixed_s.low <= fixed <= fit.fixed_s.high
        assert fit.break_even_items == pytest.approx(fixed / per_sample, rel=1e-6)
        assert fit.worst_miss < 1e-6


def test_the_fit_weighs_points_by_relative_error():
    # A 10% miss at the largest batch must not swamp the smallest batch's fixed cost.
    n = np.array([1.0, 8.0, 64.0, 512.0])
    times = 1e-3 + 1e-6 * n
    times[-1] *= 1.1
    fixed, _ = line_fit.fit_line(n, times)
    assert fixed[0] == pytest.approx(1e-3, rel=0.05)


def test_rows_with_fewer_than_three_batch_sizes_are_not_fitted():
    results = ladder()
    few = replace(results, cases=tuple(case for case in results.cases if case.params["batch"] in (1, 64)))
    assert line_fit.row_fits(few) == []
    assert "needs three" in tables.fixed_cost_table(few)


def test_the_split_grid_table_has_one_table_per_part_with_ratios_against_its_own_baseline():
    rendered = tables.grid_table(ladder(processes=2))
    assert rendered.index("**MLP**") < rendered.index("**CNN**")
    assert "| Rung | batch 1 | batch 8 | batch 64 | batch 512 |" in rendered
    cnn = rendered.split("**CNN**")[1]
    model_row = next(line for line in cnn.splitlines() if line.startswith("| model(x)"))
    # CNN at batch 1: 45.04 ms against 2.04 ms
    assert "22.1×\u00a0faster" in model_row and "2.91×\u00a0faster" in model_row
    # One process per cell: its time, but no verdict.
    alone = tables.grid_table(ladder())
    assert "no verdict¹" in alone and "faster" not in alone and alone.count("Timed in one process") == 2  # once per table


def test_the_split_grid_chart_has_a_panel_per_part_and_a_line_per_rung():
    svg = views.chart_svg(ladder(), "light")
    assert svg.count("<svg") == 1 and "MLP" in svg and "CNN" in svg and "model(x)" in svg


def test_fixed_cost_table_and_memory_table_render_the_fits_and_the_growth(tmp_path):
    results = ladder()
    fixed = tables.fixed_cost_table(results)
    assert "| MLP | predict | 40.0 ms \\[40.0–" in fixed.replace("\u00a0", " ")
    memory = tables.memory_growth_table(results).replace("\u00a0", " ")
    assert "MLP: change over 1,000 calls" in memory
    assert "| predict | +4.00 KiB | +4.00 KiB |" in memory and "0 (no change)" in memory
    assert "No case recorded" in tables.memory_growth_table(ladder(memory=False))


def test_fitted_directive_gives_each_figure_and_names_a_missing_row(tmp_path):
    ctx = context(tmp_path, ladder())
    assert render("fitted", ["ladder", "CNN", "model(x)", "fixed"], ctx).startswith("2.00\u00a0ms [")
    assert render("fitted", ["ladder", "CNN", "model(x)", "per_sample"], ctx).startswith("40.0\u00a0µs [")
    with pytest.raises(DirectiveError, match="no fitted row"):
        render("fitted", ["ladder", "RNN", "predict", "fixed"], ctx)
    with pytest.raises(DirectiveError, match="figure: must be one of fixed, per_sample, got 'slope'"):
        render("fitted", ["ladder", "MLP", "predict", "slope"], ctx)


def test_share_and_jit_resolved_read_their_metrics_and_name_a_missing_one(tmp_path):
    results = ladder()
    with_metrics = replace(results, cases=(replace(results.cases[0], metrics={"data_wait_share": 0.834,
                                                                               "jit_compile_resolved": 0.0}),
                                           *results.cases[1:]))
    ctx = context(tmp_path, with_metrics)
    label = with_metrics.cases[0].label
    assert render("share", ["ladder", label, "data_wait_share"], ctx) == "83%"
    assert render("jit_resolved", ["ladder", label], ctx) == "no XLA (`jit_compile=False`)"
    with pytest.raises((DirectiveError, KeyError), match="no metric"):
        render("share", ["ladder", with_metrics.cases[1].label, "data_wait_share"], ctx)


def test_tf_keras_source_links_the_measured_tf_keras_version(tmp_path):
    results = ladder()
    results = replace(results, environment={**results.environment, "tf_keras": "2.21.0"})
    link = render("tf_keras_source", ["tf_keras/src/engine/training.py"], context(tmp_path, results))
    assert link == "https://github.com/keras-team/tf-keras/blob/v2.21.0/tf_keras/src/engine/training.py"


def test_a_case_label_holding_an_equals_sign_is_an_argument_not_an_option(tmp_path):
    results = ladder()
    labelled = replace(results, cases=(replace(results.cases[0], label="fit, steps_per_execution=10"),
                                       *results.cases[1:]))
    rendered = render("time", ["ladder", "fit, steps_per_execution=10"], context(tmp_path, labelled))
    assert rendered.endswith("ms")
    with pytest.raises(DirectiveError, match="unknown option"):
        render("time", ["ladder", "fit, steps_per_execution=10", "colour=red"], context(tmp_path, labelled))


def test_a_fixed_cost_within_noise_of_zero_has_no_break_even_above_one():
    fit = line_fit.RowFit("CNN", "TFLite", Estimate(2e-7, -1e-5, 2.6e-5), Estimate(2.6e-5, 2e-5, 3e-5),
                          break_even_items=0.008, worst_miss=0.2)
    assert tables.break_even_cell(fit) == "under 1"


def test_fitted_on_a_run_with_too_few_batch_sizes_says_so_instead_of_stopping_the_build(tmp_path):
    results = ladder()
    few = replace(results, cases=tuple(case for case in results.cases if case.params["batch"] in (1, 64)))
    assert render("fitted", ["ladder", "MLP", "predict", "fixed"], context(tmp_path, few)).startswith("not fitted")
    with pytest.raises(DirectiveError, match="no fitted row"):
        render("fitted", ["ladder", "MLP", "nonsense", "fixed"], context(tmp_path, few))


def test_a_quick_run_that_left_out_a_part_says_so_in_place_of_the_fit(tmp_path):
    quick = replace(ladder(), quick=True)
    assert render("fitted", ["ladder", "RNN", "predict", "fixed"], context(tmp_path, quick)) == \
        "*not measured in this quick run*"


def test_a_missing_case_says_whether_its_file_is_a_quick_run():
    from tfspeedlab.core.results.schema import MissingCaseError

    for quick in (True, False):
        with pytest.raises(MissingCaseError) as raised:
            replace(ladder(), quick=quick).case("RNN · predict · 1")
        assert raised.value.quick is quick and "no case 'RNN · predict · 1'" in raised.value.args[0]


def test_a_break_even_past_the_largest_batch_or_from_an_unmeasurable_cost_per_sample_is_not_a_number():
    beyond = line_fit.RowFit("MLP", "tf.function", Estimate(4e-4, 3.8e-4, 4.2e-4), Estimate(1.6e-7, 6e-8, 3e-7),
                             break_even_items=2476.0, worst_miss=0.1, largest_items=512.0)
    assert tables.break_even_cell(beyond) == "beyond 512, the largest measured"
    unmeasurable = replace(beyond, per_item_s=Estimate(2e-7, -1e-7, 5e-7), break_even_items=9862.0)
    assert tables.break_even_cell(unmeasurable) == "none: the cost per sample is too small to measure here"
    inside = replace(beyond, per_item_s=Estimate(4e-6, 3e-6, 5e-6), break_even_items=100.0)
    assert tables.break_even_cell(inside) == "100"
