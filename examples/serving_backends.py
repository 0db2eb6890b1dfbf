# %% [markdown]
# # Serving a Keras model: each backend's fastest predict call, side by side
#
# A server receives a NumPy batch and sends NumPy back. This times that round
# trip for three small models of the Keras backends page (the MLP, the
# MNIST-sized CNN and the Transformer-style block) at batch 1, 32 and 256,
# through the call each backend serves best:
#
# * TensorFlow: the model inside a `tf.function` with an `input_signature`
#   (one trace for every batch size), the same with `jit_compile=True`, and
#   `model.predict` for reference;
# * JAX: `model.predict` compiled (`jit_compile=True`), and the model's
#   `stateless_call` inside `jax.jit`, the call a JAX server writes;
# * PyTorch: the model called under `torch.no_grad()`.
#
# Each backend runs in fresh processes of its own (the backend is fixed when
# Keras is imported). Every model starts from the same weights, drawn once
# from one NumPy generator, and each case records its predictions on a fixed
# batch, so every call can be checked to compute the same function.
# Run it with `python examples/serving_backends.py [--quick]`.

# %%
# %pip install -q jax torch
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools
import importlib.util

import numpy as np

import tfspeedlab

BATCHES = (1, 32, 256)
# Backend: (what the process sets before Keras is imported, the module its backend needs).
BACKENDS = {
    "TensorFlow": ({"KERAS_BACKEND": "tensorflow"}, "tensorflow"),
    "JAX": ({"KERAS_BACKEND": "jax"}, "jax"),
    "PyTorch": ({"KERAS_BACKEND": "torch"}, "torch"),
}
# Backend: the serving calls timed on it. The first TensorFlow one is every cell's baseline.
CALLS = {
    "TensorFlow": ("tf.function", "tf.function + XLA", "predict"),
    "JAX": ("jax.jit", "predict, compiled"),
    "PyTorch": ("model(x), no_grad",),
}
BASELINE = "TensorFlow · tf.function"
MODELS = ("MLP", "CNN", "Transformer")
QUICK = {"models": ("MLP",), "batches": (32,)}
FULL = {"models": MODELS, "batches": BATCHES}


def import_keras(backend):
    """Keras 3 on the backend its process was started with."""
    import keras

    wanted = BACKENDS[backend][0]["KERAS_BACKEND"]
    if keras.backend.backend() != wanted:  # the process was not started with its variable
        raise RuntimeError(f"Keras runs on {keras.backend.backend()!r}, not {wanted!r}")
    return keras


# %% [markdown]
# ## The models: the same code and the same weights under every backend

# %%
INPUTS = {"MLP": (20,), "CNN": (28, 28, 1), "Transformer": (32, 32)}


def build(keras, name):
    L = keras.layers
    inputs = keras.Input(INPUTS[name])
    if name == "MLP":
        outputs = L.Dense(1)(L.Dense(64, activation="relu")(inputs))
    elif name == "CNN":  # MNIST-sized
        x = L.MaxPooling2D()(L.Conv2D(16, 3, activation="relu")(inputs))
        x = L.MaxPooling2D()(L.Conv2D(32, 3, activation="relu")(x))
        outputs = L.Dense(10, activation="softmax")(L.Dense(64, activation="relu")(L.Flatten()(x)))
    else:  # one Transformer-style block: self-attention and an MLP, each with a residual and a norm
        x = L.LayerNormalization()(L.Add()([inputs, L.MultiHeadAttention(num_heads=2, key_dim=16)(inputs, inputs)]))
        x = L.LayerNormalization()(L.Add()([x, L.Dense(32)(L.Dense(64, activation="relu")(x))]))
        outputs = L.Dense(1)(L.GlobalAveragePooling1D()(x))
    model = keras.Model(inputs, outputs)
    # Kernels from one generator (each backend's initialisers draw differently); biases and
    # norms keep their constant initial values.
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(0, 0.1, w.shape).astype("float32") if w.ndim > 1 else w
                       for w in model.get_weights()])
    return model


def batch_of(name, samples):
    return np.random.default_rng(1).standard_normal((samples, *INPUTS[name])).astype("float32")


# %% [markdown]
# ## One serving call: NumPy in, NumPy out
#
# Every call converts its NumPy input and returns a NumPy array, as a server
# must: each backend pays its own conversions, and nothing is left queued
# when the clock is read.

# %%
def serving_call(keras, model, name, call):
    """A function of one NumPy batch that returns the model's outputs as NumPy."""
    if call in ("tf.function", "tf.function + XLA"):
        import tensorflow as tf

        def forward(x):
            return model(x, training=False)

        serve = tf.function(forward, jit_compile=call.endswith("XLA"),
                            input_signature=[tf.TensorSpec([None, *INPUTS[name]], tf.float32)])
        return lambda x: serve(x).numpy()
    if call == "predict":
        model.compile(jit_compile=False)
        return lambda x: model.predict(x, batch_size=len(x), verbose=0)
    if call == "predict, compiled":
        model.compile(jit_compile=True)
        return lambda x: model.predict(x, batch_size=len(x), verbose=0)
    if call == "jax.jit":
        import jax

        trainable = [v.value for v in model.trainable_variables]
        non_trainable = [v.value for v in model.non_trainable_variables]
        serve = jax.jit(lambda t, n, x: model.stateless_call(t, n, x, training=False)[0])
        return lambda x: np.asarray(serve(trainable, non_trainable, x))
    if call == "model(x), no_grad":
        import torch

        def serve(x):
            with torch.no_grad():
                return keras.ops.convert_to_numpy(model(x, training=False))

        return serve
    raise ValueError(f"no serving call {call!r}")


def prepare(backend, name, call, batch):
    keras = import_keras(backend)
    model = build(keras, name)
    serve = serving_call(keras, model, name, call)
    x = batch_of(name, batch)
    first = [True]

    def timed():
        if first[0]:  # the first call traces and compiles: where a backend can fail
            first[0] = False
            try:
                return serve(x)
            except Exception as error:  # noqa: BLE001 (any backend's compiler error, reported in the results)
                raise tfspeedlab.CaseUnavailable(f"{type(error).__name__}: {error}") from error
        return serve(x)

    def metrics():
        # The first outputs on a fixed batch of 4: every call on every backend must agree.
        predictions = serve(batch_of(name, 4)).reshape(4, -1)[:, 0]
        return {f"prediction_{i}": float(value) for i, value in enumerate(predictions)}

    return tfspeedlab.Prepared(timed, metrics=metrics)


# %%
def missing_backends():
    """Each backend whose package is not installed, with the install that brings it."""
    return {backend: f"{module} is not installed (pip install -e '.[compare]')"
            for backend, (_, module) in BACKENDS.items() if importlib.util.find_spec(module) is None}


def workload(quick=False):
    sizes = QUICK if quick else FULL
    skipped = missing_backends()
    cases = []
    for backend, (env, _) in BACKENDS.items():
        if backend in skipped:
            continue
        for name in sizes["models"]:
            for call in CALLS[backend]:
                for batch in sizes["batches"]:
                    row = f"{backend} · {call}"
                    cases.append(tfspeedlab.Case(
                        f"{name} · {row} · batch {batch}",
                        setup=functools.partial(prepare, backend, name, call, batch),
                        params={"model": name, "call": row, "batch": f"batch {batch}", "keras_backend": backend},
                        process=f"{backend} · {name}",
                        env=env,
                    ))
    return tfspeedlab.Workload(
        name="serving_backends",
        title="Serving a Keras model on TensorFlow, JAX and PyTorch: NumPy in, NumPy out",
        params={"batches": list(sizes["batches"]), "skipped_backends": skipped, "versions": versions(),
                "models": {"MLP": "Dense 20→64→1", "CNN": "28×28×1 → Conv 16 → pool → Conv 32 → pool → Dense 64 → 10",
                           "Transformer": "32×32 → attention (2 heads × 16) + norm → MLP 64 → 32 + norm → 1"}},
        # Per model: a table of serving call × batch, each cell against TensorFlow's tf.function in its column.
        layout=tfspeedlab.Grid(rows="call", columns="batch", split="model", baseline=BASELINE, time_per="call"),
        cases=cases,
        budget_s=0.1 if quick else 0.5,
    )


def versions():
    import importlib.metadata

    found = {}
    for package in ("keras", "tensorflow", "jax", "jaxlib", "torch"):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = None
    return found


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
