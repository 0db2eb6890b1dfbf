# %% [markdown]
# # Mixed precision on a CPU: float32, mixed_bfloat16, mixed_float16
#
# Keras's three global precision policies, each in fresh processes of its own
# (a policy applies to the layers built after it is set), on the training
# step's MLP, the Stack Overflow question's small Conv1D model and the
# predict ladder's CNN, each trained with `train_on_batch`; and one large
# matmul in each dtype. Whether a 16-bit type is fast on a CPU depends on its
# instruction sets (AVX512_BF16 and AMX for bfloat16, AVX512_FP16 for
# float16), which every results file records.
#
# A faster step that trains worse is no win: every training case starts from
# the same weights and records its loss, computed in float32 on a fixed
# batch, after the same number of steps.
# Run it with `python examples/mixed_precision.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools

import numpy as np

import tfspeedlab

POLICIES = ("float32", "mixed_bfloat16", "mixed_float16")
MATMUL_SIZE = 2048
# Steps every training case takes from the same start before its loss is read.
TRAIN_STEPS = 100
QUICK = {"models": ("MLP",), "steps": 5, "matmul": 256}
FULL = {"models": ("MLP", "small Conv1D", "CNN"), "steps": TRAIN_STEPS, "matmul": MATMUL_SIZE}


# %% [markdown]
# ## The models, built under the policy in force

# %%
def build(keras, name):
    L = keras.layers
    if name == "MLP":  # the training step's
        inputs = keras.Input((20,))
        x = L.Dense(64, activation="relu")(inputs)
    elif name == "small Conv1D":  # the Stack Overflow question's make_small_model
        inputs = keras.Input((400, 16))
        x = L.Dense(64, activation="relu")(L.Flatten()(L.Conv1D(128, 400, strides=4, padding="same")(inputs)))
    else:  # the predict ladder's CNN
        inputs = keras.Input((28, 28, 1))
        x = L.MaxPooling2D()(L.Conv2D(16, 3, activation="relu")(inputs))
        x = L.Dense(64, activation="relu")(L.Flatten()(L.MaxPooling2D()(L.Conv2D(32, 3, activation="relu")(x))))
    # The last layer computes in float32 under every policy, as Keras's mixed-precision guide advises.
    outputs = L.Dense(1, dtype="float32")(x)
    model = keras.Model(inputs, outputs)
    # The same start under every policy: weights from one generator (variables stay float32).
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(0, 0.05, w.shape).astype("float32") if w.ndim > 1 else w
                       for w in model.get_weights()])
    return model


def data(name, samples=32):
    rng = np.random.default_rng(1)
    shape = {"MLP": (20,), "small Conv1D": (400, 16), "CNN": (28, 28, 1)}[name]
    X = rng.standard_normal((samples, *shape)).astype("float32")
    return X, X.reshape(samples, -1).mean(axis=1, keepdims=True).astype("float32") * 3


# %%
def prepare_training(policy, name, steps):
    import tensorflow as tf

    keras = tf.keras
    keras.mixed_precision.set_global_policy(policy)
    model = build(keras, name)
    # Keras wraps the optimizer in a loss-scale optimizer under mixed_float16, as it should.
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")
    X, Y = data(name)

    def loss():  # in float32 on the fixed batch, whatever the policy computes in
        return float(np.mean((np.asarray(model(X, training=False), dtype=np.float64) - Y) ** 2))

    start = loss()
    for _ in range(steps):  # the same number of steps from the same start under every policy
        model.train_on_batch(X, Y)
    after = loss()

    def metrics():
        return {"loss_start": start, f"loss_after_{steps}_steps": after, "loss_end": loss(),
                "compute_is_16_bit": float("16" in str(model.layers[1].compute_dtype))}

    return tfspeedlab.Prepared(functools.partial(model.train_on_batch, X, Y), metrics=metrics)


def prepare_matmul(policy, size):
    import tensorflow as tf

    dtype = {"float32": tf.float32, "mixed_bfloat16": tf.bfloat16, "mixed_float16": tf.float16}[policy]
    a = tf.cast(tf.random.normal([size, size], seed=0), dtype)
    reference = tf.matmul(tf.cast(a, tf.float32), tf.cast(a, tf.float32))
    matmul = tf.function(tf.matmul)

    def metrics():  # how far the 16-bit product is from float32's, relative to its scale
        error = tf.reduce_max(tf.abs(tf.cast(matmul(a, a), tf.float32) - reference)) / tf.reduce_max(tf.abs(reference))
        return {"relative_error_vs_float32": float(error)}

    return tfspeedlab.Prepared(matmul, (a, a), metrics=metrics)


def workload(quick=False):
    sizes = QUICK if quick else FULL
    cases = []
    for policy in POLICIES:
        for name in sizes["models"]:
            cases.append(tfspeedlab.Case(
                f"{policy} · {name} · train_on_batch",
                setup=functools.partial(prepare_training, policy, name, sizes["steps"]),
                params={"policy": policy, "workload": f"{name} · train_on_batch"}, process=policy))
        cases.append(tfspeedlab.Case(
            f"{policy} · matmul {sizes['matmul']}", setup=functools.partial(prepare_matmul, policy, sizes["matmul"]),
            params={"policy": policy, "workload": f"matmul {sizes['matmul']}"}, process=policy))
    return tfspeedlab.Workload(
        name="mixed_precision",
        title="Mixed precision on a CPU: float32, mixed_bfloat16 and mixed_float16",
        params={"policies": list(POLICIES), "train_steps": sizes["steps"], "batch": 32, "optimizer": "Adam(1e-3)",
                "matmul_size": sizes["matmul"]},
        # A table of policy × workload, each cell against float32 in its column.
        layout=tfspeedlab.Grid(rows="policy", columns="workload", baseline="float32", time_per="call"),
        cases=cases,
        budget_s=0.1 if quick else 0.8,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
