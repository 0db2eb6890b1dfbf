# %% [markdown]
# # Which Keras backend is fastest? Keras 3 on TensorFlow, JAX and PyTorch, and Keras 2
#
# Five small models — the training step's MLP, the predict ladder's CNN, the
# Stack Overflow question's Conv1D model, a small LSTM and a small
# Transformer-style block (attention and an MLP) — built by the same code
# under Keras 3 with `KERAS_BACKEND=tensorflow`, `jax` and `torch`, and under
# Keras 2 (`tf_keras`). Each backend runs in fresh processes of its own (the
# backend is fixed when Keras is imported), and every model starts from the
# same weights, drawn once from one NumPy generator, so that every backend
# computes the same function: each case records its predictions on a fixed
# batch before training, and its loss before and after.
#
# The calls people time: `fit` for one epoch (one step per execution, and ten),
# `train_on_batch`, `predict` and `model(x)` at batch 1, 32 and 256; the
# training calls and `predict` with `jit_compile=False` and `True`. The first
# call is kept apart from the steady state: it is where a backend traces and
# compiles. What `jit_compile="auto"` (Keras 3's default) resolves to on each
# backend is recorded too.
# Run it with `python examples/keras_backends.py [--quick]`.

# %%
# %pip install -q tf-keras jax torch
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools
import importlib.util
import os

import numpy as np

import tfspeedlab

BATCH = 32  # the training calls' batch size
EPOCH_BATCHES = 20  # fit: one epoch of this many batches per call
STEPS_PER_EXECUTION = 10
PREDICT_BATCHES = (1, 32, 256)
# Calls after the timing over which one case per process follows its resident memory.
MEMORY_CALLS = 200
MEMORY_SAMPLES = 10
# Backend: (what the process sets before Keras is imported, the module its backend needs).
BACKENDS = {
    "TensorFlow": ({"KERAS_BACKEND": "tensorflow"}, "tensorflow"),
    "JAX": ({"KERAS_BACKEND": "jax"}, "jax"),
    "PyTorch": ({"KERAS_BACKEND": "torch"}, "torch"),
    "Keras 2": ({"TF_USE_LEGACY_KERAS": "1"}, "tf_keras"),
}
MODELS = ("MLP", "CNN", "Conv1D", "LSTM", "Transformer")
QUICK = {"models": ("MLP",), "predict_batches": (32,), "epoch_batches": 4, "memory_calls": 20}
FULL = {"models": MODELS, "predict_batches": PREDICT_BATCHES, "epoch_batches": EPOCH_BATCHES,
        "memory_calls": MEMORY_CALLS}


def import_keras(backend):
    """Keras as the backend's process has it: Keras 3 on its backend, or Keras 2 (tf_keras)."""
    if backend == "Keras 2":
        import tf_keras as keras
    else:
        import keras

        wanted = BACKENDS[backend][0]["KERAS_BACKEND"]
        if keras.backend.backend() != wanted:  # the process was not started with its variable
            raise RuntimeError(f"Keras runs on {keras.backend.backend()!r}, not {wanted!r}")
    return keras


# %% [markdown]
# ## The models, the same code under every Keras

# %%
INPUTS = {"MLP": (20,), "CNN": (28, 28, 1), "Conv1D": (400, 16), "LSTM": (32, 16), "Transformer": (32, 32)}
LOSSES = {"MLP": "mse", "CNN": "sparse_categorical_crossentropy", "Conv1D": "binary_crossentropy",
          "LSTM": "mse", "Transformer": "mse"}


def build(keras, name):
    L = keras.layers
    inputs = keras.Input(INPUTS[name])
    if name == "MLP":  # the training step's network
        outputs = L.Dense(1)(L.Dense(64, activation="relu")(inputs))
    elif name == "CNN":  # the predict ladder's, MNIST-sized
        x = L.MaxPooling2D()(L.Conv2D(16, 3, activation="relu")(inputs))
        x = L.MaxPooling2D()(L.Conv2D(32, 3, activation="relu")(x))
        outputs = L.Dense(10, activation="softmax")(L.Dense(64, activation="relu")(L.Flatten()(x)))
    elif name == "Conv1D":  # the Stack Overflow question's make_small_model
        x = L.Conv1D(128, 400, strides=4, padding="same")(inputs)
        x = L.Dense(64, activation="relu")(L.Dropout(0.5)(L.Flatten()(x)))
        outputs = L.Dense(1, activation="sigmoid")(x)
    elif name == "LSTM":
        outputs = L.Dense(1)(L.LSTM(32)(inputs))
    else:  # one Transformer-style block: self-attention and an MLP, each with a residual and a norm
        x = L.LayerNormalization()(L.Add()([inputs, L.MultiHeadAttention(num_heads=2, key_dim=16)(inputs, inputs)]))
        x = L.LayerNormalization()(L.Add()([x, L.Dense(32)(L.Dense(64, activation="relu")(x))]))
        outputs = L.Dense(1)(L.GlobalAveragePooling1D()(x))
    model = keras.Model(inputs, outputs)
    # The same function under every Keras: kernels from one generator (the Kerases' initialisers
    # draw differently); biases, norms and the LSTM's forget-gate bias keep their constant initial values.
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(0, 0.1, w.shape).astype("float32") if w.ndim > 1 else w
                       for w in model.get_weights()])
    return model


def data(name, samples):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((samples, *INPUTS[name])).astype("float32")
    if LOSSES[name] == "sparse_categorical_crossentropy":
        Y = rng.integers(0, 10, (samples, 1)).astype("float32")
    elif LOSSES[name] == "binary_crossentropy":
        Y = rng.integers(0, 2, (samples, 1)).astype("float32")
    else:
        Y = rng.standard_normal((samples, 1)).astype("float32")
    return X, Y


def loss_of(name, predicted, Y):
    """The model's loss on (X, Y), computed in NumPy the same way for every backend."""
    predicted = np.asarray(predicted, dtype=np.float64)
    if LOSSES[name] == "sparse_categorical_crossentropy":
        chosen = predicted[np.arange(len(Y)), Y[:, 0].astype(int)]
        return float(-np.mean(np.log(np.clip(chosen, 1e-7, 1))))
    if LOSSES[name] == "binary_crossentropy":
        p = np.clip(predicted, 1e-7, 1 - 1e-7)
        return float(-np.mean(Y * np.log(p) + (1 - Y) * np.log(1 - p)))
    return float(np.mean((predicted - Y) ** 2))


# %% [markdown]
# ## One case: a model compiled one way, and the call to time
#
# A call that fails on a backend (a layer its compiler cannot take) raises
# `CaseUnavailable` from its first call: the results file records why, and
# the page shows the reason in place of the row.

# %%
def prepare(backend, name, call, batch, jit, sizes):
    keras = import_keras(backend)
    model = build(keras, name)
    fixed, _ = data(name, 4)
    predictions = outputs(backend, keras, model, fixed).reshape(4, -1)[:, 0]
    X, Y = data(name, BATCH * sizes["epoch_batches"])
    steps = STEPS_PER_EXECUTION if call == "fit, 10 steps per execution" else 1
    if call != "model(x)":
        try:  # a backend may refuse a setting outright (PyTorch: one step per execution only)
            model.compile(optimizer=keras.optimizers.Adam(1e-3), loss=LOSSES[name], jit_compile=jit,
                          steps_per_execution=steps)
        except ValueError as error:
            raise tfspeedlab.CaseUnavailable(f"{type(error).__name__}: {error}") from error
    if call.startswith("fit"):
        fn = functools.partial(model.fit, X, Y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    elif call == "train_on_batch":
        fn = functools.partial(model.train_on_batch, X[:BATCH], Y[:BATCH])
    elif call == "predict":
        x = data(name, batch)[0]
        fn = functools.partial(model.predict, x, batch_size=batch, verbose=0)
    else:  # model(x): the layer call, on the backend's own tensor type
        x = keras.ops.convert_to_tensor(data(name, batch)[0]) if backend != "Keras 2" else data(name, batch)[0]
        fn = functools.partial(model, x, training=False)

    loss_start = loss_of(name, outputs(backend, keras, model, X[:BATCH]), Y[:BATCH])
    weights = [w.copy() for w in model.get_weights()]
    first = [True]

    def timed():
        if first[0]:  # the first call traces and compiles: where a backend can fail
            first[0] = False
            try:
                return fn()
            except Exception as error:  # noqa: BLE001 (any backend's compiler error, reported in the results)
                raise tfspeedlab.CaseUnavailable(f"{type(error).__name__}: {error}") from error
        return fn()

    def metrics():
        found = {f"prediction_{i}": float(value) for i, value in enumerate(predictions)}
        if call in ("fit", "fit, 10 steps per execution", "train_on_batch"):
            moved = max(float(np.abs(a - b).max()) for a, b in zip(model.get_weights(), weights))
            found.update(loss_start=loss_start, loss_end=loss_of(name, outputs(backend, keras, model, X[:BATCH]), Y[:BATCH]),
                         weight_change=moved)
        if call == "train_on_batch" and not jit:  # one case per process: what jit_compile="auto" chose here
            found["jit_compile_resolved"] = float(resolved_auto_jit(keras, name))
        if call in ("train_on_batch", "predict") and not jit and batch in (BATCH, None):
            found.update(memory_growth(fn, sizes["memory_calls"]))
        if backend == "PyTorch":
            import torch

            found["torch_threads"] = float(torch.get_num_threads())
        return found

    return tfspeedlab.Prepared(timed, metrics=metrics)


def outputs(backend, keras, model, x):
    """The model's outputs on ``x`` as NumPy, by a plain layer call: no predict function is built (and
    compiled) before the timed first call of a case."""
    found = model(x, training=False)
    return np.asarray(found) if backend == "Keras 2" else keras.ops.convert_to_numpy(found)


def resolved_auto_jit(keras, name):
    """What Keras's default compile (``jit_compile="auto"``; Keras 2: its default) resolves to here."""
    model = build(keras, name)
    model.compile(optimizer="adam", loss=LOSSES[name])
    return bool(model.jit_compile)


def resident_bytes():
    """The process's resident memory now (not its peak): it can fall as well as grow."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_growth(fn, calls):
    """Resident memory over ``calls`` more calls: bytes per call (a least-squares slope) and in all."""
    every = max(1, calls // MEMORY_SAMPLES)
    counts, resident = [0], [resident_bytes()]
    for done in range(1, calls + 1):
        fn()
        if done % every == 0:
            counts.append(done)
            resident.append(resident_bytes())
    slope = float(np.polyfit(counts, resident, 1)[0])
    return {"memory_calls": float(calls), "rss_growth_per_call_bytes": slope,
            "rss_growth_bytes": float(resident[-1] - resident[0]), "rss_bytes": float(resident[-1])}


# %%
def calls(sizes):
    """(call, batch, jit_compile) for every case of one model on one backend."""
    found = [("fit", None, jit) for jit in (False, True)]
    found += [("fit, 10 steps per execution", None, jit) for jit in (False, True)]
    found += [("train_on_batch", None, jit) for jit in (False, True)]
    found += [("predict", batch, jit) for batch in sizes["predict_batches"] for jit in (False, True)]
    found += [("model(x)", batch, False) for batch in sizes["predict_batches"]]
    return found


def row_of(backend, jit):
    return f"{backend} · jit {'on' if jit else 'off'}"


def column_of(call, batch):
    return call if batch is None else f"{call} · batch {batch}"


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
            for call, batch, jit in calls(sizes):
                column = column_of(call, batch)
                cases.append(tfspeedlab.Case(
                    f"{name} · {row_of(backend, jit)} · {column}",
                    setup=functools.partial(prepare, backend, name, call, batch, jit, sizes),
                    params={"model": name, "backend": row_of(backend, jit), "call": column, "keras_backend": backend,
                            "jit_compile": jit},
                    steps_per_call=sizes["epoch_batches"] if call.startswith("fit") else 1,
                    process=f"{backend} · {name}",
                    env=env,
                ))
    return tfspeedlab.Workload(
        name="keras_backends",
        title="Keras 3 on TensorFlow, JAX and PyTorch, and Keras 2, on five small models",
        params={"batch": BATCH, "epoch_batches": sizes["epoch_batches"], "steps_per_execution": STEPS_PER_EXECUTION,
                "predict_batches": list(sizes["predict_batches"]), "memory_calls": sizes["memory_calls"],
                "optimizer": "Adam(1e-3)", "skipped_backends": skipped, "versions": versions(),
                "models": {"MLP": "Dense 20→64→1", "CNN": "28×28×1 → Conv 16 → pool → Conv 32 → pool → Dense 64 → 10",
                           "Conv1D": "400×16 → Conv1D 128 (kernel 400, stride 4) → Dense 64 → 1",
                           "LSTM": "32×16 → LSTM 32 → 1",
                           "Transformer": "32×32 → attention (2 heads × 16) + norm → MLP 64 → 32 + norm → 1"}},
        # Per model: a table of backend × call, each cell against Keras 3 on TensorFlow, jit off
        # (what jit_compile="auto" gives it on a CPU) in its column.
        layout=tfspeedlab.Grid(rows="backend", columns="call", split="model", baseline="TensorFlow · jit off"),
        cases=cases,
        budget_s=0.1 if quick else 0.5,
    )


def versions():
    import importlib.metadata

    found = {}
    for package in ("keras", "tf-keras", "tensorflow", "jax", "jaxlib", "torch"):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = None
    return found


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
