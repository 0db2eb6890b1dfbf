# %% [markdown]
# # Where the time goes: one call split into Python, dispatch, executor and kernels
#
# The 150-op loop of the small-ops test, timed in each mode and then traced
# with TensorFlow's profiler; XProf converts the trace to events. They split
# every call four ways: Python (op wrappers, argument handling,
# `tf.function`'s cache lookup), op dispatch (the C++ eager runtime), the graph
# executor, and the kernels themselves. The raw traces are kept for XProf or
# TensorBoard. Run it with `python examples/time_breakdown.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab
from tfspeedlab.core import profiling

STEPS = 50  # three ops per step: multiply, add, relu


def small_ops(x):
    for _ in range(STEPS):
        x = tf.nn.relu(x * 0.99 + 0.01)
    return x


# %%
def workload(quick=False):
    x = tf.random.normal([10, 10], seed=0)
    # Each mode built by a function, so the profiler gets a fresh copy: the
    # graph executor stops tracing kernels it has already measured as cheap.
    modes = {
        "eager": lambda: small_ops,
        "graph": lambda: tf.function(small_ops),
        "xla": lambda: tf.function(small_ops, jit_compile=True),
    }

    def layers(mode, build):
        def measure():  # runs after the timing, so tracing never slows it
            trace = tfspeedlab.artifact_path(f"{mode}.xplane.pb")
            split = profiling.profile(build(), (x,), calls=10 if quick else 40, keep_trace_as=trace)
            return split.metrics()

        return measure

    return tfspeedlab.Workload(
        name="time_breakdown",
        title="One call, layer by layer",
        params={"ops_per_call": 3 * STEPS, "shape": [10, 10]},
        cases=[
            tfspeedlab.Case(mode, build(), (x,), {"mode": mode},
                            metrics=layers(mode, build))
            for mode, build in modes.items()
        ],
        baseline="eager",
        budget_s=0.5 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
