# %% [markdown]
# # Which CPU settings matter? Threads, pinning and oneDNN
#
# The guide's workloads under each CPU setting people ask about, each setting
# in fresh processes of its own (TensorFlow fixes its thread pools and its
# oneDNN choice when its runtime starts), the settings taking turns:
#
# * TensorFlow's two thread pools, `inter_op_parallelism_threads` and
#   `intra_op_parallelism_threads`, at 1, 2 and the default (0: as many as
#   the machine has cores), set with `tf.config.threading` before the first op;
# * the whole process pinned to one core (`os.sched_setaffinity`), as a
#   container's CPU limit of one core would leave it;
# * oneDNN's custom operations off (`TF_ENABLE_ONEDNN_OPTS=0`) and on
#   (`=1`), the line TensorFlow prints at start-up; the default depends on
#   the CPU, and each case records what TensorFlow decided.
#
# On: the fixed cost of an empty and a one-op `tf.function` call, many small
# ops (eager, graph, XLA), a matmul at three sizes, the training step, the
# Stack Overflow question's small model (`train_on_batch`) and `predict` at
# batch 1 and 256. Every cell is set against the default in its column.
# Run it with `python examples/cpu_settings.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools
import os

import numpy as np

import tfspeedlab
from tfspeedlab.harness.machine import onednn_enabled

# Setting: (environment set before TensorFlow is imported, (inter-op, intra-op) threads, pinned to one core).
SETTINGS = {
    "default": ({}, (0, 0), False),
    "inter 1 · intra 1": ({}, (1, 1), False),
    "inter 1 · intra 2": ({}, (1, 2), False),
    "inter 1 · intra default": ({}, (1, 0), False),
    "inter 2 · intra 1": ({}, (2, 1), False),
    "inter 2 · intra 2": ({}, (2, 2), False),
    "inter 2 · intra default": ({}, (2, 0), False),
    "inter default · intra 1": ({}, (0, 1), False),
    "inter default · intra 2": ({}, (0, 2), False),
    "pinned to one core": ({}, (0, 0), True),
    "oneDNN off": ({"TF_ENABLE_ONEDNN_OPTS": "0"}, (0, 0), False),
    "oneDNN on": ({"TF_ENABLE_ONEDNN_OPTS": "1"}, (0, 0), False),
}
QUICK_SETTINGS = ("default", "inter 1 · intra 1", "oneDNN off", "oneDNN on")
SMALL_OPS_STEPS = 50  # three ops per step: 150 ops on a 10 × 10 tensor, as small_ops
MATMUL_SIZES = (64, 512, 2048)
QUICK_WORKLOADS = ("empty tf.function", "small ops · graph", "matmul 512", "predict · batch 1")


def apply(setting):
    """Set the threads and the core of this fresh process before TensorFlow's runtime starts."""
    import tensorflow as tf

    _, (inter, intra), pinned = SETTINGS[setting]
    if pinned:
        # Every thread the process has now (TensorFlow's pools start later and inherit the mask).
        core = min(os.sched_getaffinity(0))
        for thread in os.listdir("/proc/self/task"):
            os.sched_setaffinity(int(thread), {core})
    tf.config.threading.set_inter_op_parallelism_threads(inter)
    tf.config.threading.set_intra_op_parallelism_threads(intra)


def in_force():
    """What this process runs with: thread settings, usable cores and whether oneDNN is on."""
    import tensorflow as tf

    found = {"inter_op_threads": float(tf.config.threading.get_inter_op_parallelism_threads()),
             "intra_op_threads": float(tf.config.threading.get_intra_op_parallelism_threads()),
             "usable_cores": float(len(os.sched_getaffinity(0)))}
    # TensorFlow's own decision (the CPU's default, or TF_ENABLE_ONEDNN_OPTS), as every results
    # file's environment records it for its parent process.
    onednn = onednn_enabled()
    if onednn is not None:
        found["onednn_opts"] = float(onednn)
    return found


# %% [markdown]
# ## The workloads, as the guide's other pages run them

# %%
def empty():
    return 0.0


def one_add(x):
    return x + 1.0


def small_ops(tf, x):
    for _ in range(SMALL_OPS_STEPS):
        x = tf.nn.relu(x * 0.99 + 0.01)
    return x


def make_workload(name):
    """``(fn, args, metrics)`` for one workload, built in this (already set) process."""
    import tensorflow as tf

    if name == "empty tf.function":
        return tf.function(empty), (), None
    if name == "one-op tf.function":
        return tf.function(one_add), (tf.ones([10, 10]),), None
    if name.startswith("small ops"):
        mode = name.split(" · ")[1]
        fn = functools.partial(small_ops, tf)
        if mode != "eager":
            fn = tf.function(fn, jit_compile=mode == "XLA")
        return fn, (tf.random.normal([10, 10], seed=0),), None
    if name.startswith("matmul"):
        size = int(name.split()[1])
        a = tf.random.normal([size, size], seed=0)
        return tf.function(tf.matmul), (a, a), None
    if name == "training step":
        return training_step(tf)
    if name == "small model · train_on_batch":
        return small_model_step(tf)
    if name.startswith("predict"):
        batch = int(name.split()[-1])
        model = cnn(tf.keras)
        x = np.random.default_rng(1).random((batch, 28, 28, 1), dtype=np.float32)
        return functools.partial(model.predict, x, verbose=0), (), None
    raise ValueError(f"unknown workload {name!r}")


def training_step(tf):
    """The training step's MLP (Dense 20 → 64 → 1, batch 64), as a tf.function; its loss is checked."""
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input((20,)), tf.keras.layers.Dense(64, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    X, Y = tf.random.normal([64, 20], seed=1), tf.random.normal([64, 1], seed=2)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(X) - Y) ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    start = float(step())
    return step, (), lambda: {"loss_start": start, "loss_end": float(step())}


def small_model_step(tf):
    """The Stack Overflow question's small model (Conv1D 128, kernel 400, stride 4; batch 32 × 400 × 16)."""
    keras = tf.keras
    keras.utils.set_random_seed(0)
    L = keras.layers
    ipt = keras.Input((400, 16))
    x = L.Dense(64, activation="relu")(L.Dropout(0.5)(L.Flatten()(
        L.Conv1D(128, 400, strides=4, padding="same")(ipt))))
    model = keras.Model(ipt, L.Dense(1, activation="sigmoid")(x))
    model.compile(optimizer="adam", loss="binary_crossentropy")
    rng = np.random.default_rng(1)
    X = rng.standard_normal((32, 400, 16)).astype("float32")
    Y = rng.integers(0, 2, (32, 1)).astype("float32")
    start = float(model.evaluate(X, Y, verbose=0))
    return (functools.partial(model.train_on_batch, X, Y), (),
            lambda: {"loss_start": start, "loss_end": float(model.evaluate(X, Y, verbose=0))})


def cnn(keras):
    """The predict ladder's CNN."""
    keras.utils.set_random_seed(0)
    L = keras.layers
    return keras.Sequential([keras.Input((28, 28, 1)), L.Conv2D(16, 3, activation="relu"), L.MaxPooling2D(),
                             L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(),
                             L.Dense(64, activation="relu"), L.Dense(10)])


def workload_names():
    return ("empty tf.function", "one-op tf.function", "small ops · eager", "small ops · graph", "small ops · XLA",
            *(f"matmul {size}" for size in MATMUL_SIZES), "training step", "small model · train_on_batch",
            "predict · batch 1", "predict · batch 256")


# %%
def prepare(setting, name):
    apply(setting)
    fn, args, check = make_workload(name)

    def metrics():
        return {**in_force(), **(check() if check else {})}

    return tfspeedlab.Prepared(fn, args, metrics=metrics)


def workload(quick=False):
    settings = QUICK_SETTINGS if quick else tuple(SETTINGS)
    names = QUICK_WORKLOADS if quick else workload_names()
    cases = [tfspeedlab.Case(f"{setting} · {name}", setup=functools.partial(prepare, setting, name),
                             params={"setting": setting, "workload": name},
                             process=setting, env=SETTINGS[setting][0])
             for setting in settings for name in names]
    return tfspeedlab.Workload(
        name="cpu_settings",
        title="CPU settings: thread pools, one core, oneDNN off and on",
        params={"settings": {name: {"env": env, "inter_op": inter, "intra_op": intra, "pinned": pinned}
                             for name, (env, (inter, intra), pinned) in SETTINGS.items() if name in settings},
                "small_ops": 3 * SMALL_OPS_STEPS, "matmul_sizes": list(MATMUL_SIZES)},
        # A table of setting × workload, each cell against the default in its column.
        layout=tfspeedlab.Grid(rows="setting", columns="workload", baseline="default", time_per="call"),
        cases=cases,
        budget_s=0.1 if quick else 0.6,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
