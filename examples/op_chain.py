# %% [markdown]
# # Op-count sweep: a chain of N small ops, eager vs tf.function vs XLA
#
# A function that applies N cheap elementwise ops (multiply, add, ReLU in
# turn) to a 10 × 10 tensor, for N from 1 to 1000. Fitting time against N
# separates the fixed cost of a call from the cost of each op, in each mode.
# Run it with `python examples/op_chain.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab

OP_COUNTS = [1, 3, 10, 30, 100, 300, 1000]
STEPS = [lambda x: x * 0.99, lambda x: x + 0.01, tf.nn.relu]


def make_chain(n_ops):
    def chain(x):
        for i in range(n_ops):
            x = STEPS[i % 3](x)
        return x

    return chain


# %%
def workload(quick=False):
    x = tf.random.normal([10, 10], seed=0)
    cases = []
    for n_ops in OP_COUNTS:
        chain = make_chain(n_ops)
        modes = {
            "eager": chain,
            "graph": tf.function(chain),
            "xla": tf.function(chain, jit_compile=True),
        }
        for mode, fn in modes.items():
            params = {"mode": mode, "n_ops": n_ops}
            cases.append(tfspeedlab.Case(f"{mode} {n_ops}", fn, (x,), params))
    return tfspeedlab.Workload(
        name="op_chain",
        title="Chain of N small ops",
        params={"shape": [10, 10]},
        # A line per mode along the op count; this sweep gives the simulator's costs per call and per op.
        layout=tfspeedlab.Sweep(parameter="n_ops", series="mode", baseline="eager", fits_cost_model=True),
        cases=cases,
        budget_s=0.15 if quick else 1.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
