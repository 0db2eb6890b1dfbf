"""The host-time split, on hand-written trace events whose right answer is known.

The real traces are checked in tests/test_examples.py (the published shares
must be what the kept trace says); these pin down the rules themselves.
"""

import json

import pytest

from tfspeedlab.core.profiling import trace as profiling


def trace(*events, threads=None):
    """A Chrome trace-event document like XProf writes: events given as (thread, name, start, duration, args)."""
    threads = threads or {1: "python", 2: "tf_Compute/1", 3: "stream:7"}
    raw = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/host:CPU"}},
           {"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "/device:GPU:0"}}]
    raw += [{"ph": "M", "name": "thread_name", "pid": 2 if tid == 3 else 1, "tid": tid, "args": {"name": name}}
            for tid, name in threads.items()]
    for tid, name, start, duration, *args in events:
        raw.append({"ph": "X", "pid": 2 if tid == 3 else 1, "tid": tid, "name": name, "ts": start,
                    "dur": duration, "args": args[0] if args else {}})
    return profiling.parse_trace_json(json.dumps({"traceEvents": raw}))


def test_eager_op_splits_into_python_dispatch_and_an_inline_kernel():
    events = trace(
        (1, "convert_to_tensor", 0, 4),                 # Python-side annotation: 4 µs of Python
        (1, "TFE_Py_FastPathExecute_C", 10, 20),
        (1, "EagerExecute", 12, 16),
        (1, "EagerKernelExecute", 15, 10),              # no op event inside: an inline kernel
        (1, "KernelAndDeviceFunc::Run", 16, 8),
    )
    split = profiling.breakdown(events, wall_s=40e-6, calls=1)
    # Wall 40: covered 4 + 20; the other 16 µs are bare Python.
    assert split.python_s == pytest.approx(20e-6)
    assert split.dispatch_s == pytest.approx(10e-6)   # 20 - 10 in the fast path and EagerExecute
    assert split.kernels_s == pytest.approx(10e-6)
    assert split.executor_s == 0
    assert split.total_s == pytest.approx(40e-6)
    assert sum(split.fractions().values()) == pytest.approx(1.0)
    assert split.device_busy is None


def test_function_call_counts_op_events_on_executor_threads_as_kernels():
    events = trace(
        (1, "step", 0, 90, {"tf_function_call": "notTraced-nonXla"}),  # tf.function's Python side
        (1, "TFE_Py_ExecuteCancelable", 30, 60),
        (1, "EagerKernelExecute", 40, 50),
        (1, "KernelAndDeviceFunc::Run", 41, 48),
        (1, "FunctionRun", 42, 5),
        (2, "ThreadpoolListener::Region", 45, 40),
        (2, "ExecutorState::Process", 46, 38),
        (2, "MatMul", 50, 12),
        (2, "AddV2", 70, 3),
    )
    split = profiling.breakdown(events, wall_s=50e-6, calls=2)  # 100 µs of wall in all; per call: half
    assert split.kernels_s == pytest.approx(15e-6 / 2)
    assert split.executor_s == pytest.approx(35e-6 / 2)
    assert split.dispatch_s == pytest.approx(10e-6 / 2)
    assert split.python_s == pytest.approx((30 + 10) * 1e-6 / 2)  # step's self time + outside any event


def test_function_without_kernel_events_is_refused_with_advice():
    events = trace(
        (1, "TFE_Py_ExecuteCancelable", 0, 60),
        (1, "EagerKernelExecute", 5, 50),
        (1, "FunctionRun", 6, 5),
        (2, "ExecutorState::Process", 12, 30),
    )
    with pytest.raises(RuntimeError, match="freshly built tf.function"):
        profiling.breakdown(events, wall_s=60e-6, calls=1)


def test_xla_thunks_inside_the_launch_count_as_kernels_and_the_launch_does_not():
    events = trace(
        (1, "TFE_Py_ExecuteCancelable", 0, 50),
        (1, "EagerKernelExecute", 5, 40),
        (1, "__inference_step_1", 6, 38),
        (1, "CpuExecutable::ExecuteAsyncOnStream", 7, 30),
        (1, "copy.1", 8, 2),
        (1, "end: copy.1", 8.5, 1),
        (2, "fusion.2", 20, 6),
    )
    split = profiling.breakdown(events, wall_s=50e-6, calls=1)
    assert split.kernels_s == pytest.approx(8e-6)
    assert split.executor_s == pytest.approx(32e-6)


def test_calling_thread_is_the_one_entering_tensorflow_from_python():
    events = trace((1, "ThreadpoolListener::Region", 0, 500), (2, "TFE_Py_FastPathExecute_C", 0, 5))
    assert profiling.calling_thread(events) == "/host:CPU|tf_Compute/1"
    with pytest.raises(RuntimeError, match="no TFE_Py_"):
        profiling.calling_thread(trace((1, "ThreadpoolListener::Region", 0, 5)))


def test_device_busy_merges_overlapping_kernels_on_gpu_streams():
    events = trace(
        (1, "TFE_Py_FastPathExecute_C", 0, 5),
        (3, "volta_sgemm", 10, 20),
        (3, "elementwise", 25, 10),   # overlaps the first: busy 10..35
        (3, "reduce", 60, 5),
    )
    assert profiling.device_busy(events, wall_us=100) == pytest.approx(0.30)
