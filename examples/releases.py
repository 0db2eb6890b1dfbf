# %% [markdown]
# # The same workloads on every TensorFlow release
#
# The moving parts of the guide's examples, cut down so that one full run
# takes a few minutes and the whole set can be repeated on every release from
# TensorFlow 2.12 to 2.21 (`tfspeedlab history`): many small ops and the two
# ends of the op-count sweep (eager, `tf.function`, XLA), one training step
# (eager, `tf.function`, XLA, `fit`, `train_on_batch`), the tiny and small
# models of the TF1-vs-TF2 question (TF1-style graph mode and the default
# mode), and `predict` against `model(x)` at batch 1. Only APIs that every
# one of those releases has are used; `tf.keras` is whatever Keras the release
# ships (Keras 2 up to 2.15, Keras 3 from 2.16). Run it with
# `python examples/releases.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools
import importlib.util

import numpy as np

import tfspeedlab

SMALL_OPS_STEPS = 50  # three ops per step: 150 ops on a 10 × 10 tensor
CHAIN_LENGTHS = (1, 1000)  # the two ends of the op-count sweep
BATCHES_PER_FIT = 100  # fit() sets up an epoch per call; spread it over many steps
# The TF1-vs-TF2 question's tiny and small models (examples/tf1_vs_tf2.py): batch shapes.
QUESTION_MODELS = {"tiny model": (8, 64, 16), "small model": (32, 400, 16)}
QUICK_QUESTION_MODELS = {"tiny model": (8, 64, 16), "small model": (32, 64, 16)}
ELEMENTWISE = [lambda x: x * 0.99, lambda x: x + 0.01]


def chain(n_ops):
    import tensorflow as tf

    steps = [*ELEMENTWISE, tf.nn.relu]

    def run(x):
        for i in range(n_ops):
            x = steps[i % 3](x)
        return x

    return run


def tensorflow_version():
    import tensorflow as tf

    return tuple(int(part) for part in tf.__version__.split(".")[:2])


def keras_2():
    """The Keras that runs TF1-style graph mode: ``tf.keras`` up to 2.15, ``tf_keras`` after."""
    import tensorflow as tf

    if tensorflow_version() < (2, 16):
        return tf.keras
    import tf_keras

    return tf_keras


def tf1_style_missing():
    """Why TF1-style graph mode cannot run here, or None."""
    if tensorflow_version() >= (2, 16) and importlib.util.find_spec("tf_keras") is None:
        return "needs the tf-keras package (Keras 2) from TensorFlow 2.16 on; it is not installed"
    return None


# %% [markdown]
# The training-step model (Dense 20 → 64 → 1, batch 64), as in `train_step`.

# %%
def regression_model():
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)  # every case starts from the same weights
    return tf.keras.Sequential([
        tf.keras.Input(shape=(20,)),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(1),
    ])


def regression_data():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((64, 20)).astype("float32"),
            rng.standard_normal((64, 1)).astype("float32"))


def weights_moved(model, before):
    """Largest change of any weight since ``before``: a mode that does no work reports 0."""
    return max(float(np.abs(a - b).max()) for a, b in zip(model.get_weights(), before))


def training_step(mode):
    import tensorflow as tf

    model = regression_model()
    X, Y = (tf.constant(array) for array in regression_data())
    optimizer = tf.keras.optimizers.SGD(0.01)
    start = [w.copy() for w in model.get_weights()]

    def step(X, Y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(X) - Y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    watch = ()
    if mode == "fit":
        model.compile(optimizer=optimizer, loss="mse")
        X_epoch, Y_epoch = tf.tile(X, [BATCHES_PER_FIT, 1]), tf.tile(Y, [BATCHES_PER_FIT, 1])

        def fn():
            return model.fit(X_epoch, Y_epoch, batch_size=64, epochs=1, shuffle=False, verbose=0)

        args = ()
    elif mode == "train_on_batch":
        model.compile(optimizer=optimizer, loss="mse")
        fn, args = model.train_on_batch, (X, Y)
    else:
        fn = step if mode == "eager" else tf.function(step, jit_compile=(mode == "tf.function + XLA"))
        args, watch = (X, Y), (() if mode == "eager" else (fn,))
    return tfspeedlab.Prepared(fn, args, metrics=lambda: {"weight_change": weights_moved(model, start)},
                               watch=watch)


# %% [markdown]
# The question's models, trained with `train_on_batch`: in TF1-style graph mode
# (eager execution off, Keras 2, a legacy optimizer, in a process of its own)
# and in TensorFlow 2's default mode with the release's own `tf.keras`.

# %%
def question_model(keras, batch_shape, name):
    L = keras.layers
    ipt = L.Input(shape=batch_shape[1:], batch_size=batch_shape[0])
    if name == "tiny model":  # per-call overhead dominates on a CPU
        x = L.Conv1D(16, 16, strides=4, padding="same")(ipt)
        x = L.Dense(16, activation="relu")(L.Dropout(0.5)(L.Flatten()(x)))
    else:  # the question's make_small_model
        x = L.Conv1D(128, 400, strides=4, padding="same")(ipt)
        x = L.Dense(64, activation="relu")(L.Dropout(0.5)(L.Flatten()(x)))
    return keras.Model(ipt, L.Dense(1, activation="sigmoid")(x))


def question_step(mode, name, batch_shape):
    import tensorflow as tf

    if mode == "TF1-style train_on_batch":
        tf.compat.v1.disable_eager_execution()  # before any model is built
        keras = keras_2()
        optimizer = keras.optimizers.legacy.Adam(1e-4)
    else:
        keras = tf.keras
        optimizer = keras.optimizers.Adam(1e-4)
    keras.utils.set_random_seed(0)
    model = question_model(keras, batch_shape, name)
    model.compile(optimizer, "binary_crossentropy")
    rng = np.random.default_rng(0)
    X = rng.standard_normal(batch_shape).astype("float32")
    y = rng.integers(0, 2, (batch_shape[0], 1)).astype("float32")
    start = [w.copy() for w in model.get_weights()]
    return tfspeedlab.Prepared(model.train_on_batch, (X, y),
                               metrics=lambda: {"weight_change": weights_moved(model, start)})


# %% [markdown]
# Inference at batch 1 on the training-step model: `predict` against calling
# the model, and a `tf.function` with an input signature.

# %%
def predict_one(mode):
    import tensorflow as tf

    model = regression_model()
    x = regression_data()[0][:1]
    if mode == "predict":
        fn, args = functools.partial(model.predict, verbose=0), (x,)
    elif mode == "model(x)":
        fn, args = functools.partial(model, training=False), (tf.constant(x),)
    else:
        fn = tf.function(lambda x: model(x, training=False),
                         input_signature=[tf.TensorSpec([None, 20], tf.float32)])
        args = (tf.constant(x),)
    return tfspeedlab.Prepared(fn, args, metrics=lambda: {"output_sum": float(np.sum(fn(*args)))})


# %%
def op_case(workload, mode, fn, x):
    return tfspeedlab.Case(f"{workload} · {mode}", fn, (x,), {"workload": workload, "mode": mode},
                           process="TF2")


def workload(quick=False):
    import tensorflow as tf

    x = tf.random.normal([10, 10], seed=0)
    compiled = {"eager": lambda fn: fn, "tf.function": tf.function,
                "tf.function + XLA": functools.partial(tf.function, jit_compile=True)}
    cases = [op_case("small ops", mode, wrap(chain(3 * SMALL_OPS_STEPS)), x) for mode, wrap in compiled.items()]
    for n_ops in CHAIN_LENGTHS:
        name = f"chain of {n_ops:,} op{'s' if n_ops > 1 else ''}"
        cases += [op_case(name, mode, compiled[mode](chain(n_ops)), x) for mode in ("eager", "tf.function")]

    for mode in ("eager", "tf.function", "tf.function + XLA", "fit", "train_on_batch"):
        cases.append(tfspeedlab.Case(
            f"training step · {mode}", setup=functools.partial(training_step, mode),
            params={"workload": "training step", "mode": mode,
                    "steps_per_call": BATCHES_PER_FIT if mode == "fit" else 1}, process="TF2",
            steps_per_call=BATCHES_PER_FIT if mode == "fit" else 1))

    not_run = {}
    for name, batch_shape in (QUICK_QUESTION_MODELS if quick else QUESTION_MODELS).items():
        for mode in ("TF1-style train_on_batch", "train_on_batch"):
            tf1 = mode.startswith("TF1")
            if tf1 and (reason := tf1_style_missing()):
                not_run[f"{name} · {mode}"] = reason
                continue
            cases.append(tfspeedlab.Case(
                f"{name} · {mode}", setup=functools.partial(question_step, mode, name, batch_shape),
                params={"workload": name, "mode": mode, "batch_shape": list(batch_shape)},
                process="TF1-style" if tf1 else "TF2"))

    for mode in ("predict", "model(x)", "tf.function"):
        cases.append(tfspeedlab.Case(f"predict, batch 1 · {mode}", setup=functools.partial(predict_one, mode),
                                     params={"workload": "predict, batch 1", "mode": mode}, process="TF2"))
    return tfspeedlab.Workload(
        name="releases",
        title="The same workloads on every TensorFlow release",
        params={"tensorflow": tf.__version__, "keras": tf.keras.__version__ if hasattr(tf.keras, "__version__")
                else None, "batches_per_fit": BATCHES_PER_FIT, "not_run": not_run},
        # One row per case: seven workloads side by side would not fit a page.
        layout=tfspeedlab.Cases(),
        cases=cases,
        budget_s=0.2 if quick else 1.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
