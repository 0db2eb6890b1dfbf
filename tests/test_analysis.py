import math

import pytest

from conftest import synthetic_results
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import CaseResult, ResultsFile
from tfspeedlab.core.spec.layout import Sweep
from tfspeedlab.core.stats import sweeps
from tfspeedlab.core.units import UNIT_SPACE
from tfspeedlab.site import quantities


def sweep_results(times: dict[str, dict[int, float]], name="op_chain", parameter="n_ops") -> ResultsFile:
    """A hand-made sweep, for testing the arithmetic on known numbers only."""
    cases = tuple(
        CaseResult(f"{mode} {x}", {"mode": mode, parameter: x}, Measurement((t, t, t), 1, t * 10, "test"))
        for mode, series in times.items() for x, t in series.items()
    )
    base = synthetic_results()
    return ResultsFile(name, "Sweep", "cpu", True, {}, base.environment, cases,
                       layout=Sweep(parameter, baseline="eager"))


def line(intercept, slope, xs=(1, 3, 10, 30, 100)):
    return {x: intercept + slope * x for x in xs}


def test_fit_line_recovers_an_exact_line():
    fit = sweeps.fit_line([1, 2, 4, 8], [3.0, 5.0, 9.0, 17.0])
    assert fit.intercept_s == pytest.approx(1.0)
    assert fit.slope_s == pytest.approx(2.0)
    assert fit.worst_relative_error == pytest.approx(0.0, abs=1e-12)


def test_break_even_is_where_the_fitted_lines_cross():
    results = sweep_results({"eager": line(0.0, 20e-6), "graph": line(200e-6, 1e-6), "xla": line(150e-6, 0.0)})
    costs = sweeps.op_costs(results)
    assert costs.graph.intercept_s == pytest.approx(200e-6)
    assert costs.eager.slope_s == pytest.approx(20e-6)
    assert costs.break_even_ops == pytest.approx(200 / 19)
    assert sweeps.first_x_where_faster(results, "graph", "eager") == 30
    # Exact lines: every resample fits them exactly, so the intervals are points.
    assert quantities.derived(results, "break_even_ops") == "11 [11–11]"
    assert quantities.derived(results, "graph_call_cost").startswith(f"200{UNIT_SPACE}µs [")


def test_the_gap_closes_where_the_graph_stops_helping():
    results = sweep_results(
        {"eager": {8: 10.0, 64: 2.0, 512: 1.05, 2048: 1.02}, "graph": {8: 5.0, 64: 1.0, 512: 1.0, 2048: 1.0},
         "xla": {8: 2.5, 64: 0.8, 512: 0.9, 2048: 0.95}},
        name="matmul", parameter="size",
    )
    assert sweeps.difference_fades_at(results) == 512
    assert quantities.derived(results, "best_xla_vs_graph") == "2.00×\xa0faster at size 8"


def test_a_graph_never_faster_is_faster_nowhere_in_the_sweep():
    results = sweep_results({"eager": {8: 1.0, 64: 2.0}, "graph": {8: 5.0, 64: 2.1}}, name="matmul", parameter="size")
    assert sweeps.first_x_where_faster(results, "graph", "eager") is None
    assert quantities.derived(results, "measured_break_even") == "nowhere in the sweep"


def test_tracing_payback():
    # Graph: 1 ms a call after a 10 ms first call; eager: 2 ms a call. The first
    # call costs 9 ms extra and each later one saves 1 ms: even after 9 calls.
    graph = Measurement((1e-3,) * 3, 10, 10e-3, "test")
    eager = Measurement((2e-3,) * 3, 10, 2e-3, "test")
    base = ResultsFile("tracing", "Tracing", "cpu", True, {}, synthetic_results().environment,
                       (CaseResult("eager", {}, eager), CaseResult("graph", {}, graph)))
    assert sweeps.tracing_payback_calls(base) == pytest.approx(9.0)
    swapped = ResultsFile(base.example, base.title, "cpu", True, {}, base.environment,
                          (CaseResult("eager", {}, graph), CaseResult("graph", {}, eager)))
    assert math.isinf(sweeps.tracing_payback_calls(swapped))
    # Eager's first call is dearer too (5 ms): graph's first call is only 5 ms
    # behind it, and each later call saves 1 ms: even after 1 + 5 calls.
    dear_first = Measurement((2e-3,) * 3, 10, 5e-3, "test")
    both_first = ResultsFile(base.example, base.title, "cpu", True, {}, base.environment,
                             (CaseResult("eager", {}, dear_first), CaseResult("graph", {}, graph)))
    assert sweeps.tracing_payback_calls(both_first) == pytest.approx(6.0)


def test_unknown_derived_figure_is_an_error():
    with pytest.raises(KeyError, match="no derived figure"):
        quantities.derived(synthetic_results(), "nonsense")


def _case(label, scale, **params):
    noise = (1.0, 1.02, 0.99, 1.03, 1.01)
    return CaseResult(label, params, Measurement(tuple(scale * n for n in noise), 10, 1e-2, "test"))


def test_xla_pairs_keep_every_workload_apart_and_know_the_keras_and_step_pairs():
    from dataclasses import replace

    from tfspeedlab.core.wording import Verdict, verdict
    from tfspeedlab.xla.pairs import xla_pairs

    holdout = replace(synthetic_results(), baseline=None, cases=(
        _case("500 ops · graph", 2e-3, mode="graph", n_ops=500), _case("500 ops · xla", 1e-3, mode="xla", n_ops=500),
        _case("40 ops · graph", 1e-3, mode="graph", n_ops=40), _case("40 ops · xla", 2e-3, mode="xla", n_ops=40),
    ))
    pairs = xla_pairs(holdout)
    assert [(p.label, verdict(p.speedup)) for p in pairs] == [("500 ops", Verdict.FASTER), ("40 ops", Verdict.SLOWER)]

    keras = replace(synthetic_results(), baseline=None, cases=(
        _case("tiny · tf.function step", 1e-3, mode="tf.function step", model="tiny"),
        _case("tiny · tf.function step + XLA", 3e-3, mode="tf.function step + XLA", model="tiny"),
        _case("tiny · Keras 3 train_on_batch", 2e-3, mode="Keras 3 train_on_batch", model="tiny"),
        _case("tiny · Keras 3 jit_compile", 2e-3, mode="Keras 3 jit_compile", model="tiny"),
    ))
    labels = [(p.label, verdict(p.speedup)) for p in xla_pairs(keras)]
    assert labels == [("tiny: tf.function step + XLA vs tf.function step", Verdict.SLOWER),
                      ("tiny: Keras 3 jit_compile vs Keras 3 train_on_batch", Verdict.SAME)]


def test_where_the_gap_closes_reads_for_a_range_the_last_size_and_nowhere():
    from unittest import mock

    from tfspeedlab.core.stats import sweeps as sweeps_module

    results = sweep_results({"eager": line(0.0, 20e-6), "graph": line(200e-6, 1e-6)})
    largest = sweeps_module.sweep(results, "eager")[-1][0]
    noun = quantities.parameter_noun(results)
    for value, phrase in ((None, f"at no measured {noun}"), (largest, f"at {noun} {largest}, the largest measured"),
                          (1, f"from {noun} 1 up")):
        with mock.patch.object(sweeps_module, "difference_fades_at", return_value=value):
            assert quantities.derived(results, "gap_closes_where") == phrase


def test_where_neither_mode_is_clearly_faster_reads_from_the_first_size_of_the_run_of_unclear_ones():
    from unittest import mock

    from tfspeedlab.core.stats import intervals
    from tfspeedlab.core.stats import sweeps as sweeps_module

    results = sweep_results({"eager": line(0.0, 20e-6), "graph": line(200e-6, 1e-6)})
    sizes = [x for x, _ in sweeps_module.sweep(results, "eager")]
    clear, unclear = intervals.Ratio(2.0, 1.8, 2.2), intervals.Ratio(1.0, 0.9, 1.1)
    # Unclear at the last two sizes only, after a clear one: the run starts at the second to last.
    found = [clear] * (len(sizes) - 2) + [unclear, unclear]
    with mock.patch.object(sweeps_module, "speedups", return_value=list(zip(sizes, found))):
        assert quantities.derived(results, "unclear_from") == f"from {quantities.parameter_noun(results)} {sizes[-2]:g} up"
    with mock.patch.object(sweeps_module, "speedups", return_value=[(x, clear) for x in sizes]):
        assert quantities.derived(results, "unclear_from").startswith("at no measured")


def test_a_jit_payback_gives_its_steps_at_both_ends_of_the_speed_up_interval():
    """A payback count is a point estimate of a ratio of noisy differences: the page gives it with the
    counts at either end of the per-step speed-up's interval, which hold it between them."""
    from pathlib import Path

    from tfspeedlab.backends import grid
    from tfspeedlab.core.results.store import load_results

    results = load_results(Path(__file__).parents[1] / "results" / "cpu" / "keras_backends.json")
    found = [paid for pivot in grid.model_pivots(results).values()
             for backend in ("TensorFlow", "JAX") for paid in [grid.payback(pivot, backend)]
             if paid is not None and paid.steps is not None]
    assert found, "no backend paid back in the committed run"
    for paid in found:
        low, high = paid.steps_range
        assert low <= paid.steps <= high
    assert any(low < high for low, high in (paid.steps_range for paid in found))
