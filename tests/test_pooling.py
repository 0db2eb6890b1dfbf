"""Runs kept per process: ``gather`` keeps every run; ``Timing`` reads typical time and both spreads."""

import pytest

from tfspeedlab.core.measure.measurement import Measurement, per_step
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.results.timing import Timing
from tfspeedlab.harness.isolation import gather


def run(samples, calls=10, first=0.05):
    return Measurement(tuple(samples), calls, first, "test")


# Three processes of one case: two fast, one that landed in a slow state.
RUNS = (run([1.0e-3, 1.1e-3, 1.0e-3], 30, 0.050), run([1.05e-3, 1.0e-3, 1.1e-3], 25, 0.060),
        run([2.0e-3, 2.1e-3, 2.0e-3], 30, 0.040))
ROUNDS = [CaseResult("graph", {"mode": "graph"}, r, {"loss_end": 0.5 - i / 10}) for i, r in enumerate(RUNS)]


def test_gather_keeps_every_run_in_process_order_and_the_last_metrics():
    gathered = gather(ROUNDS)
    assert gathered.runs == RUNS
    assert gathered.metrics == {"loss_end": 0.3}
    assert gathered.params == {"mode": "graph"}


def test_timing_is_the_median_of_process_medians_not_of_pooled_blocks():
    timing = Timing(RUNS)
    # Pooled, the slow process would pull the median of nine blocks to 1.1 ms.
    assert timing.median_s == pytest.approx(1.05e-3)
    assert timing.first_call_s == pytest.approx(0.050)
    assert timing.calls_per_block == 25 and timing.blocks == 9
    assert len(timing.samples_s) == 9


def test_a_process_that_disagrees_shows_as_process_spread_and_noise():
    timing = Timing(RUNS)
    assert timing.process_spread == pytest.approx((2.0e-3 - 1.0e-3) / 1.05e-3)
    assert timing.noisy and timing.spread == timing.process_spread
    agreeing = Timing(RUNS[:2])
    assert agreeing.process_spread == pytest.approx(0.05 / 1.025)
    assert not agreeing.noisy


def test_one_run_is_its_own_timing():
    timing = Timing(RUNS[:1])
    assert timing.median_s == RUNS[0].median_s and timing.quartiles_s == RUNS[0].quartiles_s
    assert timing.process_spread == 0.0


def test_a_case_given_one_measurement_has_one_run():
    assert CaseResult("x", {}, RUNS[0]).runs == (RUNS[0],)
    with pytest.raises(ValueError, match="no runs"):
        CaseResult("x", {}, ())


def test_per_step_divides_the_samples_and_keeps_the_first_call_whole():
    steps = per_step(RUNS[0], 10)
    assert steps.samples_s == pytest.approx([1.0e-4, 1.1e-4, 1.0e-4])
    assert steps.first_call_s == RUNS[0].first_call_s
    assert per_step(RUNS[0], 1) is RUNS[0]
