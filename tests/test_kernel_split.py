"""The kernel split names the ops a profiled call ran, eagerly or in a graph executor, and sums each
family's kernel time per call; the table shows it over a mode's processes."""

import pytest

from tfspeedlab.core.kernel_split import family_of, kernel_split, op_events
from tfspeedlab.core.profiling.trace import Event
from tfspeedlab.site.kernel_tables import across_processes


def event(name, thread, start, duration):
    return Event(name, thread, float(start), float(duration), {})


# One eager call: three ops inline on the calling thread, one of them a function whose graph ops
# ran on an executor thread; a TF1 session's ops look like the executor thread's.
EAGER = [
    event("EagerLocalExecute: Conv2D", "python", 0, 30),
    event("ParallelFor", "python", 5, 10),  # inside the kernel: not an op of its own
    event("EagerLocalExecute: Conv2DBackpropInput", "python", 40, 20),
    event("EagerLocalExecute: __inference_step_12", "python", 70, 50),
    event("ExecutorState::Process", "tf_Compute/1", 72, 45),
    event("_MklNativeConv2DBackpropFilter", "tf_Compute/1", 73, 25),
    event("ResourceApplyAdam", "tf_Compute/1", 100, 4),
    event("_MklMatMul", "tf_Compute/1", 105, 3),
    event("Mul", "tf_Compute/1", 110, 1),
    event("ThreadpoolListener::Region", "tf_numa_-1_Eigen/2", 74, 20),  # a runtime frame
]


def test_ops_are_named_eagerly_and_in_the_executor_and_functions_are_not_ops():
    assert sorted(op for op, _ in op_events(EAGER)) == sorted(
        ["Conv2D", "Conv2DBackpropInput", "_MklNativeConv2DBackpropFilter", "ResourceApplyAdam", "_MklMatMul", "Mul"])


def test_families_ignore_onednn_and_grappler_prefixes():
    assert family_of("_MklNativeFusedConv2D") == family_of("Conv2D") == "conv_forward"
    assert family_of("_MklNativeConv2DBackpropFilter") == "conv_filter_grad"
    assert family_of("Conv2DBackpropInput") == "conv_input_grad"
    assert family_of("_MklNativeFusedMatMul") == family_of("BatchMatMulV2") == "matmul"
    assert family_of("ResourceApplyAdam") == "fused_optimizer"
    assert family_of("AssignSubVariableOp") == family_of("GreaterEqual") == "other"


def test_each_familys_time_per_call_and_the_ops_per_call():
    split = kernel_split(EAGER, calls=2)
    assert split.seconds == pytest.approx({"conv_forward": 15e-6, "conv_filter_grad": 12.5e-6,
                                           "conv_input_grad": 10e-6, "matmul": 1.5e-6, "fused_optimizer": 2e-6,
                                           "other": 0.5e-6})
    assert split.ops_per_call == 3
    assert split.metrics()["kernel_conv_input_grad_s"] == pytest.approx(10e-6)


def test_a_trace_without_ops_or_calls_is_refused():
    with pytest.raises(RuntimeError, match="no op"):
        kernel_split([event("SessionRun", "python", 0, 10)], calls=1)
    with pytest.raises(ValueError):
        kernel_split(EAGER, calls=0)


def test_a_figure_over_processes_is_their_geometric_mean_with_a_t_interval_on_the_log_scale():
    found = across_processes([1.0, 2.0, 4.0])
    assert found.value == pytest.approx(2.0)
    assert found.low == pytest.approx(2 * 2 ** -(4.303 / 3 ** 0.5), rel=1e-4) and found.low > 0
    assert found.high == pytest.approx(2 * 2 ** (4.303 / 3 ** 0.5), rel=1e-4)
    assert across_processes([5.0]).low == 5.0 and across_processes([]) is None
    assert across_processes([0.0, 0.0]).high == 0.0  # no such kernel ran


def test_the_table_shows_each_family_all_kernels_and_the_profiled_step_over_processes():
    import dataclasses

    from conftest import REPO
    from tfspeedlab.core.kernel_split import KERNEL_FAMILIES
    from tfspeedlab.core.results.store import load_results
    from tfspeedlab.site.kernel_tables import kernel_split_table

    results = load_results(REPO / "results" / "cpu" / "tf1_vs_tf2_profile.json")
    # Three processes whose kernels are EAGER's, scaled 1, 2 and 4 times (and their profiled steps).
    split = kernel_split(EAGER, calls=1).metrics()
    runs = tuple({key: value * scale if key.endswith("_s") else value for key, value in
                  {**split, "profiled_call_s": 200e-6}.items()} for scale in (1, 2, 4))
    case = dataclasses.replace(results.cases[1], run_metrics=runs[:len(results.cases[1].runs)])
    text = str(kernel_split_table(dataclasses.replace(results, cases=(case,))))
    assert text.count("Kernels: ") == len(KERNEL_FAMILIES)
    # The geometric mean of 1, 2 and 4 times: twice one process's figure.
    assert "Whole step, profiled | 0.400 ms" in text.replace("\u00a0", " ")
    assert "All kernels together | 166 µs" in text.replace("\u00a0", " ")
