"""Runs kept per process: ``gather`` keeps every run; ``Timing`` reads typical time and both spreads; ``pool``
joins two sittings only where they measured the same workload."""

from dataclasses import replace

import pytest

from conftest import synthetic_results
from tfspeedlab.core.measure.measurement import Measurement, per_step
from tfspeedlab.core.results.pool import PoolError, pool, pool_trees
from tfspeedlab.core.results.schema import CaseResult, to_dict
from tfspeedlab.core.results.store import write_json_atomic
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


def test_a_process_that_disagrees_shows_as_process_spread():
    timing = Timing(RUNS)
    assert timing.process_spread == pytest.approx((2.0e-3 - 1.0e-3) / 1.05e-3)
    assert timing.spread == timing.process_spread
    agreeing = Timing(RUNS[:2])
    assert agreeing.process_spread == pytest.approx(0.05 / 1.025)


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


# ------------------------------------------------------------ pooling two sittings into one file

EARLY, LATE = "2026-01-01T00:00:00+00:00", "2026-01-01T01:00:00+00:00"


def _sitting(utc_time: str, params: dict | None = None, quick: bool = False):
    """A two-case results file of one sitting taken at ``utc_time``, with workload ``params``."""
    base = synthetic_results()
    return replace(base, quick=quick, params=base.params if params is None else params,
                   environment={**base.environment, "utc_time": utc_time})


def test_pooling_refuses_sittings_of_different_workload_parameters_or_quick_flag():
    # Before, only labels and the environment were compared: a sitting with params {} and one with
    # {"n": 20000} became one case whose runs took 0.04 and 190 µs.
    small, large = _sitting(EARLY, {}), _sitting(LATE, {"n": 20000})
    with pytest.raises(PoolError, match=r"params differ \(\{\} vs \{\"n\": 20000\}\)"):
        pool(small, large)
    with pytest.raises(PoolError, match="quick differs"):
        pool(_sitting(EARLY), _sitting(LATE, quick=True))
    # JSON tells 1 from 1.0 and true: so does pooling.
    with pytest.raises(PoolError, match="params differ"):
        pool(_sitting(EARLY, {"n": 1}), _sitting(LATE, {"n": True}))
    assert len(pool(_sitting(EARLY), _sitting(LATE)).case("graph").runs) == 2


def test_pooling_refuses_a_case_whose_parameters_moved_under_the_same_label():
    first, second = _sitting(EARLY), _sitting(LATE)
    moved = replace(second, cases=(second.cases[0], replace(second.cases[1], params={"mode": "graph", "n": 2})))
    with pytest.raises(PoolError, match=r"cases\[1\].params of 'graph' differ"):
        pool(first, moved)


def test_pool_trees_of_different_workloads_write_nothing(tmp_path):
    for root, results in ((tmp_path / "a", _sitting(EARLY, {})), (tmp_path / "b", _sitting(LATE, {"n": 20000}))):
        write_json_atomic(root / "cpu" / "demo.json", to_dict(results))
    with pytest.raises(PoolError, match="params differ"):
        pool_trees(tmp_path / "a", tmp_path / "b", tmp_path / "into")
    assert not (tmp_path / "into").exists()
