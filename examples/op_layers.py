# %% [markdown]
# # The layers of one eager op: from `tf.add` down to the kernel
#
# One element-wise add, entered at every layer TensorFlow offers: the public
# API (`tf.add`), the operator (`x + y`), the raw op (`tf.raw_ops.AddV2`),
# the generated op wrapper (`gen_math_ops.add_v2`), the C++ fast path it calls
# (`TFE_Py_FastPathExecute`), and the kernel alone, run by the graph executor
# inside a `tf.function` chain. Each entry point is timed on a scalar and on
# tensors of 100, 10,000 and 1,000,000 elements; the differences between
# neighbouring layers are what each layer costs.
# Run it with `python examples/op_layers.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf
from tensorflow.python import pywrap_tfe
from tensorflow.python.eager import context
from tensorflow.python.ops import gen_math_ops

import tfspeedlab

SIZES = [1, 100, 10_000, 1_000_000]  # elements; 1 is a scalar (shape [])
OPS_PER_CALL = 100  # eager adds per timed call: the loop around them is ~1% of one


# Each entry point gets its own loop, written out, so that no extra Python
# call (a lambda, a partial) sits between the loop and the layer measured.
def public_api(x, y):
    for _ in range(OPS_PER_CALL):
        z = tf.add(x, y)
    return z


def operator(x, y):
    for _ in range(OPS_PER_CALL):
        z = x + y
    return z


def raw_op(x, y):
    add = tf.raw_ops.AddV2  # keyword arguments only
    for _ in range(OPS_PER_CALL):
        z = add(x=x, y=y)
    return z


def generated_wrapper(x, y):
    add = gen_math_ops.add_v2
    for _ in range(OPS_PER_CALL):
        z = add(x, y)
    return z


def fast_path(x, y):
    # What gen_math_ops.add_v2 calls in eager mode, minus its Python around it.
    ctx, execute = context.context(), pywrap_tfe.TFE_Py_FastPathExecute
    for _ in range(OPS_PER_CALL):
        z = execute(ctx, "AddV2", None, x, y)
    return z


ENTRY_POINTS = {
    "tf.add": public_api,
    "x + y": operator,
    "tf.raw_ops.AddV2": raw_op,
    "gen_math_ops.add_v2": generated_wrapper,
    "TFE_Py_FastPathExecute": fast_path,
}


def graph_chain(length):
    """``length`` dependent adds in one graph: the executor runs each kernel, nothing else per op.

    Grappler's arithmetic optimizer would rewrite the chain into one AddN
    node (one kernel instead of ``length``), so it is switched off first: the
    point is to time the AddV2 kernel itself.
    """
    tf.config.optimizer.set_experimental_options({"arithmetic_optimization": False})

    @tf.function
    def chain(x, y):
        for _ in range(length):
            x = x + y
        return x

    return chain


@tf.function
def empty_call(x, y):
    # The fixed cost of calling a graph, subtracted from the chain's time.
    return x


def chain_length(elements):
    # Long enough that the call's fixed cost is a small part of the chain,
    # short enough that a million-element chain stays under a second.
    return 1000 if elements <= 10_000 else 100


# %%
def workload(quick=False):
    sizes = [1, 10_000, 1_000_000] if quick else SIZES
    cases = []
    for elements in sizes:
        shape = [] if elements == 1 else [elements]
        x = tf.random.normal(shape, seed=0)
        y = tf.random.normal(shape, seed=1)
        for entry, fn in ENTRY_POINTS.items():
            cases.append(tfspeedlab.Case(f"{entry} · {elements:,}", fn, (x, y),
                                         {"entry": entry, "elements": elements},
                                         steps_per_call=OPS_PER_CALL))
        length = chain_length(elements)
        cases.append(tfspeedlab.Case(f"in a graph · {elements:,}", graph_chain(length), (x, y),
                                     {"entry": "in a graph", "elements": elements, "chain": length},
                                     steps_per_call=length))
        cases.append(tfspeedlab.Case(f"empty graph call · {elements:,}", empty_call, (x, y),
                                     {"entry": "empty graph call", "elements": elements}))
    return tfspeedlab.Workload(
        name="op_layers",
        title="One add, entered at each layer",
        params={"ops_per_call": OPS_PER_CALL, "sizes": sizes, "grappler_arithmetic_optimization": False},
        # Which cases' "entry" plays which part in the stack of layers.
        layout=tfspeedlab.OpLayers(
            top_entries=("tf.add", "x + y", "tf.raw_ops.AddV2"),
            wrapper="gen_math_ops.add_v2",
            fast_path="TFE_Py_FastPathExecute",
            kernel="in a graph",
            empty_call="empty graph call",
        ),
        cases=cases,
        budget_s=0.2 if quick else 1.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
