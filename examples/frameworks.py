# %% [markdown]
# # Is PyTorch faster? The same workloads in TensorFlow, PyTorch, JAX and NumPy
#
# Three workloads from this guide — the 150-small-op loop, one big matmul and
# the Dense 20 → 64 → 1 training step — written the idiomatic way in each
# framework and timed by the same harness: TensorFlow eager, `tf.function` and
# XLA; PyTorch eager and `torch.compile`; JAX op by op and `jax.jit`; and
# NumPy as the floor (no autodiff, no graph: plain calls into compiled loops).
# Each framework runs in a fresh process of its own, so thread pools and
# caches never meet. Needs the optional extra: `pip install -e ".[compare]"`;
# without PyTorch or JAX the example is skipped with a message.
# Run it with `python examples/frameworks.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[compare] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import importlib.util

import numpy as np

import tfspeedlab

STEPS = 50  # the small-ops loop: multiply, add, ReLU per step, 150 ops
BATCH, FEATURES, HIDDEN = 64, 20, 64
LEARNING_RATE = 0.01
WORKLOADS = ("150 small ops", "matmul", "training step")


def data(matmul_size):
    """The same inputs, as NumPy arrays, for every framework."""
    rng = np.random.default_rng(0)
    return {
        "x": rng.standard_normal((10, 10), dtype=np.float32),
        "a": rng.standard_normal((matmul_size, matmul_size), dtype=np.float32),
        "b": rng.standard_normal((matmul_size, matmul_size), dtype=np.float32),
        "X": rng.standard_normal((BATCH, FEATURES), dtype=np.float32),
        "Y": rng.standard_normal((BATCH, 1), dtype=np.float32),
    }


# %% [markdown]
# ## TensorFlow: as in the rest of this guide

# %%
def tensorflow_cases(d, mode):
    import tensorflow as tf

    def small_ops(x):
        for _ in range(STEPS):
            x = tf.nn.relu(x * 0.99 + 0.01)
        return x

    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input(shape=(FEATURES,)),
                                 tf.keras.layers.Dense(HIDDEN, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(LEARNING_RATE)

    def train_step(X, Y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(X) - Y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    wrap = {"eager": lambda f: f, "graph": tf.function,
            "XLA": lambda f: tf.function(f, jit_compile=True)}[mode]
    x, a, b, X, Y = (tf.constant(d[k]) for k in "xabXY")
    return {"150 small ops": (wrap(small_ops), (x,)),
            "matmul": (wrap(tf.matmul), (a, b)),
            "training step": (wrap(train_step), (X, Y)),
            "loss": lambda: float(tf.reduce_mean((model(X) - Y) ** 2))}


# %% [markdown]
# ## PyTorch: eager, and `torch.compile` (Inductor, which compiles C++ on CPU)

# %%
def pytorch_cases(d, mode):
    import torch

    def small_ops(x):
        for _ in range(STEPS):
            x = torch.relu(x * 0.99 + 0.01)
        return x

    # The GPU when there is one (a cpu run hides it), as TensorFlow and JAX do by themselves.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, HIDDEN), torch.nn.ReLU(),
                                torch.nn.Linear(HIDDEN, 1)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)

    def train_step(X, Y):
        optimizer.zero_grad(set_to_none=True)
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss.detach()

    wrap = {"eager": lambda f: f, "torch.compile": torch.compile}[mode]
    x, a, b, X, Y = (torch.from_numpy(d[k]).to(device) for k in "xabXY")
    def loss():
        with torch.no_grad():
            return float(((model(X) - Y) ** 2).mean())

    return {"150 small ops": (wrap(small_ops), (x,)),
            "matmul": (wrap(torch.matmul), (a, b)),
            "training step": (wrap(train_step), (X, Y)),
            "loss": loss}


# %% [markdown]
# ## JAX: op by op, and `jax.jit`
#
# JAX has no optimizer built in; the SGD update is one `tree_map`, and the
# step returns the new parameters (JAX arrays are immutable).

# %%
def jax_cases(d, mode):
    import jax
    import jax.numpy as jnp

    def small_ops(x):
        for _ in range(STEPS):
            x = jax.nn.relu(x * 0.99 + 0.01)
        return x

    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    params = {"w1": jax.random.normal(keys[0], (FEATURES, HIDDEN)) * (2 / FEATURES) ** 0.5,
              "b1": jnp.zeros(HIDDEN),
              "w2": jax.random.normal(keys[1], (HIDDEN, 1)) * (1 / HIDDEN) ** 0.5,
              "b2": jnp.zeros(1)}

    def loss_fn(p, X, Y):
        hidden = jax.nn.relu(X @ p["w1"] + p["b1"])
        return jnp.mean((hidden @ p["w2"] + p["b2"] - Y) ** 2)

    def update(p, X, Y):
        loss, grads = jax.value_and_grad(loss_fn)(p, X, Y)
        return jax.tree_util.tree_map(lambda w, g: w - LEARNING_RATE * g, p, grads), loss

    wrap = {"op by op": lambda f: f, "jit": jax.jit}[mode]
    step = wrap(update)

    def train_step(X, Y):  # keeps the parameters between calls, like the other frameworks
        params.update(step(params, X, Y)[0])
        return params["w2"]

    x, a, b, X, Y = (jnp.asarray(d[k]) for k in "xabXY")
    return {"150 small ops": (wrap(small_ops), (x,)),
            "matmul": (wrap(jnp.matmul), (a, b)),
            "training step": (train_step, (X, Y)),
            "loss": lambda: float(loss_fn(params, X, Y))}


# %% [markdown]
# ## NumPy: the floor
#
# No framework at all: each operation is one call into a compiled loop, and
# the training step's gradients are written out by hand.

# %%
def numpy_cases(d, mode):
    rng = np.random.default_rng(0)
    params = {"w1": rng.standard_normal((FEATURES, HIDDEN), dtype=np.float32) * np.float32((2 / FEATURES) ** 0.5),
              "b1": np.zeros(HIDDEN, np.float32),
              "w2": rng.standard_normal((HIDDEN, 1), dtype=np.float32) * np.float32((1 / HIDDEN) ** 0.5),
              "b2": np.zeros(1, np.float32)}

    def small_ops(x):
        for _ in range(STEPS):
            x = np.maximum(x * np.float32(0.99) + np.float32(0.01), 0)
        return x

    def forward(X, Y):
        hidden = X @ params["w1"] + params["b1"]
        active = np.maximum(hidden, 0)
        return hidden, active, active @ params["w2"] + params["b2"] - Y

    def train_step(X, Y):
        hidden, active, error = forward(X, Y)
        d_out = 2 * error / error.size
        d_hidden = (d_out @ params["w2"].T) * (hidden > 0)
        for name, grad in (("w2", active.T @ d_out), ("b2", d_out.sum(0)),
                           ("w1", X.T @ d_hidden), ("b1", d_hidden.sum(0))):
            params[name] -= LEARNING_RATE * grad
        return np.mean(error ** 2)

    return {"150 small ops": (small_ops, (d["x"],)),
            "matmul": (np.matmul, (d["a"], d["b"])),
            "training step": (train_step, (d["X"], d["Y"])),
            "loss": lambda: float(np.mean(forward(d["X"], d["Y"])[2] ** 2))}


# %%
FRAMEWORKS = {  # framework: (module it needs, case builder, its modes)
    "TensorFlow": ("tensorflow", tensorflow_cases, ("eager", "graph", "XLA")),
    "PyTorch": ("torch", pytorch_cases, ("eager", "torch.compile")),
    "JAX": ("jax", jax_cases, ("op by op", "jit")),
    "NumPy": ("numpy", numpy_cases, ("",)),
}
OP_BY_OP_MODES = ("eager", "op by op", "")  # each op dispatched from Python on its own
PACKAGES = ("tensorflow", "torch", "jax", "jaxlib", "numpy")


def versions():
    """Installed versions of the compared packages, recorded with the results."""
    import importlib.metadata

    return {name: importlib.metadata.version(name) for name in PACKAGES}


def threads(framework):
    """Threads the framework computes with: a framework on fewer threads would be slower for it."""
    if framework == "PyTorch":
        import torch

        return {"torch_threads": float(torch.get_num_threads())}
    return {}


def missing_frameworks():
    return [name for name, (module, _, _) in FRAMEWORKS.items() if importlib.util.find_spec(module) is None]


def case_for(framework, mode, workload_name, matmul_size):
    _, build, _ = FRAMEWORKS[framework]

    def setup():
        built = build(data(matmul_size), mode)
        fn, args = built[workload_name]
        if workload_name != "training step":
            return tfspeedlab.Prepared(fn, args, metrics=lambda: threads(framework))
        loss, start = built["loss"], built["loss"]()

        def metrics():  # a step that trains nothing would be fast for the wrong reason
            return {"loss_start": start, "loss_end": loss(), **threads(framework)}

        return tfspeedlab.Prepared(fn, args, metrics=metrics)

    label = f"{framework} {mode}".strip()
    return tfspeedlab.Case(f"{label} · {workload_name}", setup=setup, process=framework,
                           params={"mode": label, "workload": workload_name, "framework": framework,
                                   "op_by_op": mode in OP_BY_OP_MODES})


# %%
def workload(quick=False):
    missing = missing_frameworks()
    if missing:
        raise tfspeedlab.SkipExample(
            f"needs {' and '.join(missing)}, not installed here: pip install -e \".[compare]\"")
    matmul_size = 256 if quick else 1024
    cases = [case_for(framework, mode, name, matmul_size)
             for framework, (_, _, modes) in FRAMEWORKS.items() for mode in modes for name in WORKLOADS]
    return tfspeedlab.Workload(
        name="frameworks",
        title="TensorFlow, PyTorch, JAX and NumPy on the same workloads",
        params={"versions": versions(),
                "ops_per_call": 3 * STEPS, "matmul_size": matmul_size, "batch": BATCH,
                "layers": f"Dense {FEATURES}→{HIDDEN}→1", "optimizer": f"SGD({LEARNING_RATE})"},
        # A table of mode × workload, each cell against TensorFlow eager; the small-op loop's
        # time over its op count is the cost of dispatching one op.
        layout=tfspeedlab.Grid(
            rows="mode",
            columns="workload",
            baseline="TensorFlow eager",
            time_per="call",
            per_op=tfspeedlab.PerOp(column="150 small ops", ops=3 * STEPS, step_column="training step"),
        ),
        cases=cases,
        budget_s=0.2 if quick else 1.5,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
