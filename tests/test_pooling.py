"""Pooling a case measured in several processes, and per-step samples of multi-step calls."""

import pytest

from tfspeedlab.measure.measurement import Measurement, per_step
from tfspeedlab.results.schema import CaseResult
from tfspeedlab.run.isolation import pool


def round_of(samples, calls, first, metrics, completion="test", tracing=None):
    return CaseResult("graph", {"mode": "graph"}, Measurement(tuple(samples), calls, first, completion, tracing),
                      metrics)


ROUNDS = [
    round_of((1.0, 1.1, 1.2), 40, 9.0, {"loss_end": 0.5, "traces": 1.0}, "first process", 1),
    round_of((2.0, 2.1), 25, 8.0, {"loss_end": 0.4}, "second process", 2),
    round_of((3.0, 3.1, 3.2, 3.3), 30, 7.0, {"loss_end": 0.3, "peak_rss_bytes": 5.0}, "third process", 3),
]


def test_pooled_samples_are_every_process_s_blocks_in_order():
    pooled = pool(ROUNDS)
    assert pooled.measurement.samples_s == (1.0, 1.1, 1.2, 2.0, 2.1, 3.0, 3.1, 3.2, 3.3)
    assert pooled.measurement.blocks == 9
    # The median now spans the processes: the process-to-process spread shows.
    assert pooled.measurement.median_s == 2.1
    assert pooled.measurement.iqr_s > ROUNDS[0].measurement.iqr_s


def test_pooled_first_call_and_settings_come_from_the_first_process():
    pooled = pool(ROUNDS)
    # Only the first process's first call is a first call of that code on a fresh machine state.
    assert pooled.measurement.first_call_s == 9.0
    assert pooled.measurement.completion == "first process"
    assert pooled.measurement.tracing_count == 1
    assert (pooled.label, dict(pooled.params)) == ("graph", {"mode": "graph"})


def test_pooled_calls_per_block_is_the_smallest():
    assert pool(ROUNDS).measurement.calls_per_block == 25
    assert pool([ROUNDS[0], ROUNDS[2]]).measurement.calls_per_block == 30


def test_pooled_metrics_are_the_last_process_s_plus_the_process_count():
    assert pool(ROUNDS).metrics == {"loss_end": 0.3, "peak_rss_bytes": 5.0, "processes": 3}
    assert pool(ROUNDS[:2]).metrics == {"loss_end": 0.4, "processes": 2}


def test_pooling_leaves_the_rounds_untouched():
    before = [(r.measurement, dict(r.metrics)) for r in ROUNDS]
    pool(ROUNDS)
    assert [(r.measurement, dict(r.metrics)) for r in ROUNDS] == before


def test_a_single_round_is_returned_unchanged():
    single = ROUNDS[1]
    assert pool([single]) is single
    assert "processes" not in pool([single]).metrics


def test_per_step_divides_every_sample_but_not_the_first_call():
    m = Measurement((2.0, 4.0, 6.0), 5, 30.0, "test", 1)
    steps = per_step(m, 4)
    assert steps.samples_s == (0.5, 1.0, 1.5)
    assert steps.median_s == pytest.approx(m.median_s / 4)
    assert steps.first_call_s == 30.0  # the first call is one event, tracing included
    assert (steps.calls_per_block, steps.completion, steps.tracing_count) == (5, "test", 1)
    assert m.samples_s == (2.0, 4.0, 6.0)


def test_per_step_of_one_step_is_the_measurement_itself():
    m = Measurement((2.0, 4.0), 5, 30.0, "test")
    assert per_step(m, 1) is m
