# %% [markdown]
# # Tensor-size sweep: a chain of 30 elementwise ops on growing tensors
#
# The op-count sweep keeps tensors tiny so that only overhead shows. Here the
# chain is fixed at 30 ops (multiply, add, ReLU in turn) and the tensor grows
# from 10 × 10 to 1000 × 1000, so the kernels' own work takes over. Fitting
# time against the number of elements gives the cost per element of each
# mode, the last parameter of the speed simulator.
# Run it with `python examples/elementwise_size.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab

N_OPS = 30
SIDES = [10, 32, 100, 316, 1000]
STEPS = [lambda x: x * 0.99, lambda x: x + 0.01, tf.nn.relu]


def chain(x):
    for i in range(N_OPS):
        x = STEPS[i % 3](x)
    return x


# %%
def workload(quick=False):
    modes = {
        "eager": chain,
        "graph": tf.function(chain),
        "xla": tf.function(chain, jit_compile=True),
    }
    cases = []
    for side in SIDES:
        x = tf.random.normal([side, side], seed=0)
        for mode, fn in modes.items():
            params = {"mode": mode, "elements": side * side, "n_ops": N_OPS}
            cases.append(tfspeedlab.Case(f"{mode} {side}×{side}", fn, (x,), params))
    return tfspeedlab.Workload(
        name="elementwise_size",
        title="Chain of 30 ops by tensor size",
        params={"n_ops": N_OPS},
        # A line per mode along the tensor size; this sweep gives the simulator's cost per element.
        layout=tfspeedlab.Sweep(parameter="elements", series="mode", baseline="eager", fits_cost_model=True),
        cases=cases,
        budget_s=0.15 if quick else 1.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
