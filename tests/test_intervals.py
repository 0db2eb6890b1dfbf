"""What every interval stands on: one estimator for every time, one digest of the samples (the cache
key and the bootstrap seed), and caches their module owns."""

import zlib

import numpy as np

from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.memo import Memo
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
