# %% [markdown]
# # What one call costs: a one-op `tf.function`, with and without XLA, layer by layer
#
# Every break-even on this site depends on the fixed price of calling a
# `tf.function`, paid before its first op runs. This example times the
# smallest call that still runs a kernel — one multiply of a 10 × 10 tensor —
# as a `tf.function`, with XLA, and eagerly, then traces them
# with TensorFlow's profiler to split that price four ways: Python (argument
# binding, the function-cache lookup), op dispatch (the C++ eager runtime),
# the graph executor, and kernels. Run it with
# `python examples/call_cost.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab
from tfspeedlab.core import profiling
from tfspeedlab.core.profiling.trace import trace_events

# Profiler events on the path of one call, and what each covers. A `tf.function`
# call runs its graph through the function runtime (KernelAndDeviceFunc::Run),
# whose executor processes the nodes; a jit-compiled one runs as a single kernel
# that launches XLA's compiled program.
PATH_EVENTS = {
    "eager_kernel_execute_s": "EagerKernelExecute",  # the eager runtime running one op (for a function: all of it)
    "function_call_s": "KernelAndDeviceFunc::Run",  # the function runtime: set-up, executor, hand-offs, waiting
    "node_processing_s": "ExecutorState::Process",  # the executor working on the graph's nodes
    "compiled_program_s": "CpuExecutable::ExecuteAsyncOnStream",  # XLA's compiled program on the CPU
}


def one_op(x):
    return x * 0.99


def path_times(trace, calls):
    """Time per call inside each of PATH_EVENTS, from the kept trace (all threads; 0 where absent)."""
    events = trace_events(trace)
    return {metric: sum(e.duration_us for e in events if e.name == name) / calls * 1e-6
            for metric, name in PATH_EVENTS.items()}


# %%
def workload(quick=False):
    x = tf.random.normal([10, 10], seed=0)
    # Each case built by a function, so the profiler gets a fresh copy: the
    # graph executor stops tracing kernels it has already measured as cheap.
    # (A function that only returns its input would run no kernel at all, and
    # the profiler's split needs one to tell the executor from the kernels.)
    builds = {
        "eager": lambda: one_op,
        "graph": lambda: tf.function(one_op),
        "xla": lambda: tf.function(one_op, jit_compile=True),
    }

    def layers(label, build):
        def measure():  # runs after the timing, so tracing never slows it
            trace = tfspeedlab.artifact_path(f"{label}.xplane.pb")
            calls = 20 if quick else 100
            split = profiling.profile(build(), (x,), calls=calls, keep_trace_as=trace)
            return {**split.metrics(), **path_times(trace, calls)}

        return measure

    return tfspeedlab.Workload(
        name="call_cost",
        title="What one call costs, layer by layer",
        params={"ops_per_call": 1, "shape": [10, 10]},
        cases=[
            tfspeedlab.Case(mode, build(), (x,), {"mode": mode}, metrics=layers(mode, build))
            for mode, build in builds.items()
        ],
        baseline="eager",
        budget_s=0.5 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
