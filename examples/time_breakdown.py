# %% [markdown]
# # Where the time goes: one call split into Python, runtime and kernels
#
# The 150-op loop of the small-ops test, timed in each mode and then traced
# with TensorFlow's profiler. The trace splits every call into three layers:
# Python (op wrappers, argument handling, `tf.function`'s cache lookup), the
# TensorFlow runtime (eager dispatch in C++, or the graph executor) and the
# kernels themselves. Run it with `python examples/time_breakdown.py [--quick]`.

# %%
# %pip install -q "tfspeedlab @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab
from tfspeedlab import profiling

STEPS = 50  # three ops per step: multiply, add, relu


def small_ops(x):
    for _ in range(STEPS):
        x = tf.nn.relu(x * 0.99 + 0.01)
    return x


# %%
def workload(quick=False):
    x = tf.random.normal([10, 10], seed=0)
    modes = {
        "eager": small_ops,
        "graph": tf.function(small_ops),
        "xla": tf.function(small_ops, jit_compile=True),
    }

    def layers(mode, fn):
        def measure():  # runs after the timing, so tracing never slows it
            split = profiling.profile(fn, (x,), mode, calls=10 if quick else 40)
            shares = split.fractions().items()
            return {f"{layer}_fraction": share for layer, share in shares}

        return measure

    return tfspeedlab.Workload(
        name="time_breakdown",
        title="One call, layer by layer",
        params={"ops_per_call": 3 * STEPS, "shape": [10, 10]},
        cases=[
            tfspeedlab.Case(mode, fn, (x,), {"mode": mode},
                            metrics=layers(mode, fn))
            for mode, fn in modes.items()
        ],
        baseline="eager",
        budget_s=0.5 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
