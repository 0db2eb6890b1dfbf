# %% [markdown]
# # Does memory grow over repeated calls?
#
# The calls people make in a loop, each in fresh processes of its own, with
# resident memory read as the loop runs: `predict`, `model(x)` and a
# `tf.function` on one sample; `fit` for one short epoch; and a whole model's
# life (build, compile, train briefly, discard). Each loop runs as it is, and
# with the two remedies the issue threads give, after every call:
# `gc.collect()` and `keras.backend.clear_session()`. Both Kerases: `tf.keras`
# as the release ships it (Keras 3 from TensorFlow 2.16) and `tf_keras`
# (Keras 2, `TF_USE_LEGACY_KERAS=1`).
#
# The followed loop is cut into five equal parts; each part's growth per call
# is one reading, and the page's interval is taken over the parts of every
# process. The same calls again under `tracemalloc` give the Python heap's
# share, and the harness times each call as usual.
# Run it with `python examples/memory.py [--quick]`.

# %%
# %pip install -q tf-keras
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools
import gc

import numpy as np

import tfspeedlab
from tfspeedlab.core.resident_memory import follow_memory, resident_bytes

BATCH = 32  # fit's batch size
# Calls followed per loop: enough for a growth of a kibibyte a call to stand out of the readings'
# page-sized steps, few enough that a model's whole life fits in a minute.
FULL_CALLS = {"predict": 200, "model(x)": 400, "tf.function": 400, "fit": 100, "new model": 25}
# Fresh processes per loop in a full run: the interval is over every part of each, and a loop of a
# new model a call takes a minute.
ROUNDS = 2
QUICK_CALLS = {"predict": 10, "new model": 5}
KERASES = {"tf.keras": {}, "tf_keras": {"TF_USE_LEGACY_KERAS": "1"}}
CLEANUPS = ("none", "gc.collect()", "clear_session()")
# The loops a remedy is tried on; the calls of the model alone are followed as they are.
WITH_REMEDIES = ("predict", "fit", "new model")


def import_keras(name):
    """The Keras of this process: ``tf.keras`` as the release ships it, or Keras 2 from tf_keras."""
    import tensorflow as tf

    release = tuple(int(part) for part in tf.__version__.split(".")[:2])
    if name == "tf_keras":
        if release < (2, 16):
            raise tfspeedlab.CaseUnavailable("tf.keras is Keras 2 on this release: the tf.keras row is it")
        try:
            import tf_keras
        except ImportError as error:
            raise tfspeedlab.CaseUnavailable("needs the tf-keras package (pip install tf-keras)") from error
        return tf_keras
    return tf.keras


# %% [markdown]
# ## The model and the loops
#
# The predict ladder's CNN (MNIST-sized), one sample per inference call, as
# in the reports of memory that grows under `predict` in a loop.

# %%
def make_model(keras):
    L = keras.layers
    model = keras.Sequential([
        keras.Input((28, 28, 1)),
        L.Conv2D(16, 3, activation="relu"), L.MaxPooling2D(),
        L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(),
        L.Dense(64, activation="relu"), L.Dense(10),
    ])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def data(samples):
    rng = np.random.default_rng(1)
    return (rng.random((samples, 28, 28, 1), dtype=np.float32),
            rng.integers(0, 10, samples).astype(np.int32))


def make_call(keras, call):
    """The loop's call, on a model built here (for ``new model``: a model built in every call)."""
    import tensorflow as tf

    x = data(1)[0]
    X, Y = data(4 * BATCH)
    if call == "new model":
        def new_model():
            model = make_model(keras)
            model.fit(X[:2 * BATCH], Y[:2 * BATCH], batch_size=BATCH, epochs=1, verbose=0)
        return new_model
    model = make_model(keras)
    if call == "predict":
        return functools.partial(model.predict, x, verbose=0)
    if call == "model(x)":
        return functools.partial(model, x, training=False)
    if call == "tf.function":
        serve = tf.function(lambda x: model(x, training=False),
                            input_signature=[tf.TensorSpec([None, 28, 28, 1], tf.float32)])
        return functools.partial(serve, tf.constant(x))
    if call == "fit":
        return functools.partial(model.fit, X, Y, batch_size=BATCH, epochs=1, verbose=0)
    raise ValueError(f"unknown call {call!r}")


def with_cleanup(keras, fn, cleanup):
    if cleanup == "gc.collect()":
        def collected():
            fn()
            gc.collect()
        return collected
    if cleanup == "clear_session()":
        def cleared():
            fn()
            keras.backend.clear_session()
        return cleared
    return fn


# %% [markdown]
# ## One case: a loop in a fresh process
#
# The harness times the call first (which also warms it up); then the loop is
# followed. What the model and its first calls took is recorded apart: a
# process's memory after its first calls is its baseline, not a leak.

# %%
def prepare(keras_name, call, cleanup, calls):
    keras = import_keras(keras_name)
    at_start = resident_bytes()
    fn = with_cleanup(keras, make_call(keras, call), cleanup)
    done = [0]

    def counted():
        done[0] += 1
        return fn()

    def metrics():
        before = resident_bytes()
        found = follow_memory(fn, calls)
        return {**found, "rss_before_model_bytes": float(at_start), "rss_after_timing_bytes": float(before),
                "calls_before_follow": float(done[0])}

    return tfspeedlab.Prepared(counted, metrics=metrics)


def loops(quick):
    """(keras, call, cleanup, calls followed) for every case."""
    followed = QUICK_CALLS if quick else FULL_CALLS
    found = []
    for keras_name in (("tf.keras",) if quick else KERASES):
        for call, calls in followed.items():
            for cleanup in (CLEANUPS if call in WITH_REMEDIES and not quick else ("none",)):
                found.append((keras_name, call, cleanup, calls))
    return found


def workload(quick=False):
    cases = [tfspeedlab.Case(
        f"{keras_name} · {call} · {cleanup}",
        setup=functools.partial(prepare, keras_name, call, cleanup, calls),
        # The release history re-measures each loop of the release's own tf.keras with no remedy
        # (tfspeedlab history memory --only in_history=True).
        params={"keras": keras_name, "call": call, "cleanup": cleanup, "calls": calls,
                "in_history": keras_name == "tf.keras" and cleanup == "none"},
        # A process of its own: what another loop left behind is not this one's growth.
        process=f"{keras_name} · {call} · {cleanup}",
        env=KERASES[keras_name],
        rounds=None if quick else ROUNDS,
    ) for keras_name, call, cleanup, calls in loops(quick)]
    return tfspeedlab.Workload(
        name="memory",
        title="Resident memory over repeated calls: predict, model(x), tf.function, fit and new models",
        params={"batch": BATCH, "inference_batch": 1, "calls": dict(QUICK_CALLS if quick else FULL_CALLS),
                "model": "28×28×1 → Conv 16 → pool → Conv 32 → pool → Dense 64 → 10",
                "optimizer": "Adam"},
        cases=cases,
        budget_s=0.05 if quick else 0.3,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
