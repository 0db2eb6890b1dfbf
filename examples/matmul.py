# %% [markdown]
# # One big op: matrix multiply by size, eager vs tf.function vs XLA
#
# `tf.matmul(a, a)` on square matrices from 8 × 8 to 2048 × 2048. At the
# small end the call costs more than the arithmetic; at the large end the
# arithmetic is everything. Where does compiling stop paying?
# Run it with `python examples/matmul.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab

SIZES = [8, 16, 32, 64, 128, 256, 512, 1000, 2048]
QUICK_SIZES = [8, 32, 128, 512, 1000]


def matmul(a):
    return tf.matmul(a, a)


# %%
def workload(quick=False):
    modes = {
        "eager": matmul,
        "graph": tf.function(matmul),
        "xla": tf.function(matmul, jit_compile=True),
    }
    cases = []
    for size in QUICK_SIZES if quick else SIZES:
        a = tf.random.normal([size, size], seed=0)
        for mode, fn in modes.items():
            params = {"mode": mode, "size": size, "flops": 2 * size**3}
            cases.append(tfspeedlab.Case(f"{mode} {size}", fn, (a,), params))
    return tfspeedlab.Workload(
        name="matmul",
        title="Matrix multiply by size",
        params={"dtype": "float32"},
        # A line per mode along the matrix size, each compared with eager.
        layout=tfspeedlab.Sweep(parameter="size", series="mode", baseline="eager"),
        cases=cases,
        budget_s=0.2 if quick else 1.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
