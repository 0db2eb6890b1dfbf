import time

import pytest

from tfspeedlab import Measurement, RetracingError, bench
from tfspeedlab.core.measure import timer
from tfspeedlab.core.measure.completion import materialize


def reference_sleep_s(seconds: float, calls: int = 15) -> float:
    """The median of single sleeps timed directly with perf_counter: what this machine's sleep lasts now."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        time.sleep(seconds)
        times.append(time.perf_counter() - start)
    return sorted(times)[calls // 2]


def test_sleeping_function_measures_its_sleep():
    before = reference_sleep_s(0.002)
    m = bench(time.sleep, 0.002, budget_s=0.3)
    reference = max(before, reference_sleep_s(0.002))
    # time.sleep never returns early: under 2 ms per call means calls were miscounted.
    assert m.median_s >= 0.002
    # A sleep overshoots by what the scheduler adds, which the reference timings, taken around the
    # benchmark on the same machine, pay too; twice a call would be a block's calls counted wrong.
    assert m.median_s < 1.6 * reference, (m.median_s, reference)
    assert m.median_s < 0.05
    assert m.blocks >= 5


def test_calibration_grows_the_loop_for_a_fast_function():
    m = bench(lambda: None, budget_s=0.2)
    assert m.calls_per_block > 1000
    # One block was calibrated to last at least budget / TARGET_BLOCKS; later blocks may run a
    # little faster than the calibrating one, but not by half.
    assert m.median_s * m.calls_per_block > 0.2 / timer.TARGET_BLOCKS / 2


def test_number_and_repeat_override_calibration():
    m = bench(lambda: None, number=7, repeat=3)
    assert (m.calls_per_block, m.blocks) == (7, 3)


@pytest.mark.parametrize("option", [{"number": 0}, {"repeat": 0}, {"budget_s": 0}])
def test_invalid_options_are_refused(option):
    with pytest.raises(ValueError):
        bench(lambda: None, **option)


def test_first_call_is_timed_separately():
    calls = []

    def slow_first_time():
        if not calls:
            time.sleep(0.05)
        calls.append(1)

    m = bench(slow_first_time, budget_s=0.1)
    assert m.first_call_s >= 0.05
    # Later calls do no sleeping: the slow first call stayed out of the samples.
    assert m.median_s < m.first_call_s / 10


def test_noisy_flag_follows_the_spread():
    steady = Measurement((1.0, 1.01, 0.99, 1.0, 1.02), 1, 1.0, "test")
    noisy = Measurement((1.0, 1.5, 0.7, 1.2, 0.9), 1, 1.0, "test")
    assert not steady.noisy
    assert noisy.noisy
    assert noisy.relative_iqr == pytest.approx(noisy.iqr_s / noisy.median_s)


def test_statistics_of_known_samples():
    m = Measurement((4.0, 1.0, 3.0, 2.0, 5.0), 2, 9.0, "test")
    assert (m.median_s, m.min_s, m.mean_s) == (3.0, 1.0, 3.0)
    assert m.quartiles_s == (2.0, 4.0)
    assert m.total_calls == 10


class FakeTensor:
    def __init__(self):
        self.read = 0

    def numpy(self):
        self.read += 1


def test_materialize_reads_every_tensor_in_nested_structures():
    tensors = [FakeTensor() for _ in range(4)]
    nested = {"a": tensors[0], "b": [tensors[1], (tensors[2], {"c": tensors[3]})], "d": 3.0}
    assert materialize(nested) == 4
    assert all(t.read == 1 for t in tensors)


def test_garbage_collection_is_paused_inside_blocks():
    import gc

    states = []
    bench(lambda: states.append(gc.isenabled()), number=5, repeat=2, warmup=0)
    # The first call runs outside a block; every timed call sees gc disabled.
    assert states[0] is True and not any(states[1:])
    assert gc.isenabled()


def test_retrace_guard_fires_on_new_python_values():
    tf = pytest.importorskip("tensorflow")
    double = tf.function(lambda n: tf.constant(n) * 2)
    counter = iter(range(10**6))
    with pytest.raises(RetracingError, match="traced .* more time"):
        bench(lambda: double(next(counter)), budget_s=0.05, watch=[double])


def test_tf_function_with_stable_inputs_passes_and_records_tracing():
    tf = pytest.importorskip("tensorflow")
    square = tf.function(lambda x: x * x)
    m = bench(square, tf.ones([4]), budget_s=0.05)
    assert m.tracing_count == 1
    assert ".numpy()" in m.completion


def test_interleaved_calls_may_share_a_function_traced_for_each_shape():
    import tensorflow as tf

    from tfspeedlab.core.measure.timer import TimedCall, bench_interleaved

    double = tf.function(lambda x: x * 2.0)
    small, large = tf.ones([4]), tf.ones([64])
    # Each call's first call traces the shared function for its own shape; timing must not count that.
    found = bench_interleaved([TimedCall(double, (small,), budget_s=0.02), TimedCall(double, (large,), budget_s=0.02)])
    assert [m.blocks >= 5 for m in found] == [True, True]
    assert double.experimental_get_tracing_count() == 2


def test_interleaved_calls_still_refuse_a_retrace_while_timed():
    import tensorflow as tf

    from tfspeedlab.core.measure.timer import TimedCall, bench_interleaved

    counter = iter(range(10**6))
    traced = tf.function(lambda x, n: x + n)
    sneaky = TimedCall(lambda x: traced(x, next(counter)), (tf.ones([2]),), budget_s=0.02, watch=(traced,))
    with pytest.raises(RetracingError):
        bench_interleaved([sneaky])
