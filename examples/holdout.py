# %% [markdown]
# # Held-out workloads for the cost model
#
# Two elementwise chains the speed simulator's cost model was
# *not* fitted on: 500 ops on a 32 × 32 tensor (long chain, small tensor) and
# 40 ops on a 256 × 256 tensor (short chain, mid-size tensor), each in every
# mode. The simulator page compares its predictions with these measurements.
# Run it with `python examples/holdout.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab

SHAPES = {"500 ops, 32×32": (500, 32), "40 ops, 256×256": (40, 256)}
STEPS = [lambda x: x * 0.99, lambda x: x + 0.01, tf.nn.relu]


def make_chain(n_ops):
    def chain(x):
        for i in range(n_ops):
            x = STEPS[i % 3](x)
        return x

    return chain


# %%
def workload(quick=False):
    cases = []
    for name, (n_ops, side) in SHAPES.items():
        chain = make_chain(n_ops)
        x = tf.random.normal([side, side], seed=0)
        modes = {
            "eager": chain,
            "graph": tf.function(chain),
            "xla": tf.function(chain, jit_compile=True),
        }
        for mode, fn in modes.items():
            params = {"mode": mode, "n_ops": n_ops, "elements": side * side}
            cases.append(tfspeedlab.Case(f"{name} · {mode}", fn, (x,), params))
    return tfspeedlab.Workload(
        name="holdout",
        title="Held-out chains for the cost model",
        params={},
        cases=cases,
        budget_s=0.2 if quick else 1.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
