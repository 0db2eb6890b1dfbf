"""What every interval stands on: one estimator for every time, one digest of the samples (the cache
key and the bootstrap seed), and caches their module owns."""

import zlib

import numpy as np

from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.memo import Memo
from tfspeedlab.core.results import timing
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.stats import intervals


def test_a_table_and_a_claim_read_the_same_time_per_call():
    runs = tuple(Measurement(tuple(scale * s for s in (1.0, 1.3, 0.9, 1.1, 2.0)), 10, 0.05, "test")
                 for scale in (1e-3, 1.2e-3, 0.95e-3))
    case = CaseResult("graph", {"mode": "graph"}, runs)
    pooled = [s for run in runs for s in run.samples_s]
    assert (case.measurement.per_call_s == intervals.estimate_s(case) == intervals.estimate_s(runs)
            == intervals.ESTIMATORS[intervals.CHOSEN].of(intervals.runs_of(case)) == np.percentile(pooled, 10))


def test_the_digest_keys_by_how_the_samples_split_and_seeds_by_the_samples_alone():
    one, two, three = np.array([1.0, 2.0]), np.array([3.0]), np.array([4.0, 5.0])
    as_measured, split_otherwise = intervals.digest([one, two], [three]), intervals.digest([one], [two, three])
    assert as_measured.key != split_otherwise.key  # a cached interval is never another comparison's
    assert as_measured.key != intervals.digest([three], [one, two]).key
    # The seed every published interval was drawn with: the CRC-32 of the samples in order, "|" between cases.
    seed = 0
    for part in (one.tobytes(), two.tobytes(), b"|", three.tobytes()):
        seed = zlib.crc32(part, seed)
    assert as_measured.seed == seed
    assert intervals.digest([one, two]).seed == zlib.crc32(np.concatenate([one, two]).tobytes())


def test_a_memo_computes_once_and_keeps_its_own_value_over_a_loaded_one():
    memo, computed = Memo(), []
    assert memo.get("a", lambda: computed.append("a") or 1) == 1
    assert memo.get("a", lambda: computed.append("again") or 2) == 1 and computed == ["a"]
    memo.load({"a": 99, "b": 2})  # what an earlier build saved
    assert memo.get("b", lambda: 0) == 2 and memo.saved() == {"a": 1, "b": 2}
    memo.saved()["c"] = 3  # a copy: the memo stays its owner's
    assert memo.saved() == {"a": 1, "b": 2} and memo.asked == {"a", "b"}
    memo.forget_asked()
    assert memo.asked == frozenset() and memo.saved() == {"a": 1, "b": 2}
    memo.clear()
    assert memo.saved() == {}


def test_the_bootstraps_percentiles_equal_numpys_to_the_last_bit():
    """The estimators on resamples (resamples × processes × blocks, NaN-padded where processes timed
    fewer blocks) read exactly as ``np.nanpercentile`` row by row: every interval on the pages depends
    on them, and a faster way to take them must not move one."""
    rng = np.random.default_rng(7)
    for shape in [(500, 3, 40), (300, 1, 9), (200, 5, 3), (50, 2, 1)]:
        pooled = rng.lognormal(-8, 0.4, size=shape)
        lengths = rng.integers(1, shape[2] + 1, size=shape[:2])  # ragged: a process's blocks, then NaN
        pooled[np.arange(shape[2]) >= lengths[..., None]] = np.nan
        for q in (0, 10, 50, 90):
            pooled_rows = pooled.reshape(len(pooled), -1)
            expected = np.nanpercentile(pooled_rows, q, axis=1)
            found = timing.Estimator(q, per_process=False).of_resamples(pooled)
            assert found.tobytes() == expected.tobytes(), (shape, q)
            expected = np.median(np.nanpercentile(pooled, q, axis=-1), axis=1)
            found = timing.Estimator(q, per_process=True).of_resamples(pooled)
            assert found.tobytes() == expected.tobytes(), (shape, q)


def test_a_time_per_call_equals_numpys_percentile_to_the_last_bit():
    rng = np.random.default_rng(11)
    for count in [*range(1, 40), 250]:
        for _ in range(20):
            samples = rng.lognormal(-8, rng.uniform(0.01, 1.5), size=count)
            for q in (0, 10, 33.3, 50, 90, 100):
                assert timing.percentile(samples, q) == float(np.percentile(samples, q)), (count, q)
    assert np.isnan(timing.percentile(np.array([1.0, np.nan]), 10))
