# %% [markdown]
# # Many small ops: eager vs tf.function vs XLA
#
# A loop of 50 steps, three tiny ops per step, on a 10 × 10 tensor: 150 ops
# whose arithmetic takes almost no time, so what is measured is the cost of
# issuing each op. Run it with `python examples/small_ops.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab

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
    return tfspeedlab.Workload(
        name="small_ops",
        title="Many small ops",
        params={"steps": STEPS, "ops_per_call": 3 * STEPS, "shape": [10, 10]},
        cases=[
            # Six processes in a full run: the estimator experiment on "How to time
            # TensorFlow fairly" compares halves of them, as two re-runs would.
            tfspeedlab.Case(mode, fn, args=(x,), params={"mode": mode}, rounds=None if quick else 6)
            for mode, fn in modes.items()
        ],
        baseline="eager",
        budget_s=0.5 if quick else 3.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
