# %% [markdown]
# # Why is `model.predict` slow in a loop? The inference ladder
#
# One batch of inputs, predicted again and again, the ways people write it:
# `model.predict(x)`, `model.predict_on_batch(x)`, `model(x, training=False)`,
# a `tf.function` around the call (with an `input_signature`, so one trace
# serves every batch size), the same compiled with XLA, one `predict` over
# the whole array instead of a loop, and the TensorFlow Lite interpreter —
# for a small MLP and an MNIST-sized CNN, at batch sizes 1, 8, 64 and 512,
# with Keras 3 and with the legacy Keras 2 (`tf_keras`). Every rung predicts
# the same numbers (the weights come from one NumPy generator), and at batch 1
# each records how its process's memory moves over 1,000 more calls.
# Run it with `python examples/predict_ladder.py [--quick]`.

# %%
# %pip install -q tf-keras
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools
import os
import sys

import numpy as np

import tfspeedlab

BATCHES = (1, 8, 64, 512)
# "One predict over the whole array" is given this many samples per call
# (at least 4 batches), and reported per batch.
WHOLE_ARRAY_SAMPLES = 4096
# Calls after the timing over which the process's resident memory is followed.
MEMORY_CALLS = 1000
# Keras 3 rungs, then the ones repeated with Keras 2 (tf_keras, a process of its own).
KERAS3_RUNGS = ("predict", "predict_on_batch", "model(x)", "tf.function", "tf.function + XLA",
                "predict, whole array", "TFLite interpreter")
KERAS2_RUNGS = ("predict", "predict_on_batch", "model(x)", "tf.function")
# A quick run is a smoke test: one model, two batch sizes, fewer samples and calls.
QUICK = {"models": ("MLP",), "batches": (1, 64), "whole_array_samples": 256, "memory_calls": 20}
FULL = {"models": ("MLP", "CNN"), "batches": BATCHES, "whole_array_samples": WHOLE_ARRAY_SAMPLES,
        "memory_calls": MEMORY_CALLS}


def make_model(keras, name):
    L = keras.layers
    if name == "MLP":  # tabular data: 32 features, 10 classes
        layers = [keras.Input((32,)), L.Dense(64, activation="relu"), L.Dense(64, activation="relu"), L.Dense(10)]
    else:  # MNIST-sized images
        layers = [keras.Input((28, 28, 1)), L.Conv2D(16, 3, activation="relu"), L.MaxPooling2D(),
                  L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(),
                  L.Dense(64, activation="relu"), L.Dense(10)]
    model = keras.Sequential(layers)
    # The same weights under both Kerases (their initialisers draw differently),
    # so every rung in every process must predict the same numbers.
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(0, 0.1, w.shape).astype("float32") for w in model.get_weights()])
    return model


def input_shape(name):
    return (32,) if name == "MLP" else (28, 28, 1)


def make_batch(name, batch):
    return np.random.default_rng(1).random((batch, *input_shape(name)), dtype=np.float32)


def resident_bytes():
    """The process's resident memory now (not its peak): it can fall as well as grow."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# %% [markdown]
# Each rung: a function of one NumPy batch, built once before timing.

# %%
def make_rung(tf, keras, model, name, rung, batch, quick):
    x = make_batch(name, batch)
    if rung == "predict":
        return functools.partial(model.predict, verbose=0), (x,)
    if rung == "predict_on_batch":
        return model.predict_on_batch, (x,)
    if rung == "model(x)":
        return functools.partial(model, training=False), (x,)
    if rung in ("tf.function", "tf.function + XLA"):
        signature = [tf.TensorSpec([None, *input_shape(name)], tf.float32)]
        serve = tf.function(lambda x: model(x, training=False), input_signature=signature,
                            jit_compile=rung.endswith("XLA"))
        return serve, (x,)
    if rung == "predict, whole array":
        samples = steps_of(rung, batch, quick) * batch
        return functools.partial(model.predict, batch_size=batch, verbose=0), (np.resize(x, (samples, *x.shape[1:])),)
    if rung == "TFLite interpreter":
        interpreter = tf.lite.Interpreter(
            model_content=tf.lite.TFLiteConverter.from_keras_model(model).convert(), num_threads=os.cpu_count())
        inp, out = interpreter.get_input_details()[0]["index"], interpreter.get_output_details()[0]["index"]
        interpreter.resize_tensor_input(inp, x.shape)
        interpreter.allocate_tensors()

        def invoke(x):
            interpreter.set_tensor(inp, x)
            interpreter.invoke()
            return interpreter.get_tensor(out)

        return invoke, (x,)
    raise ValueError(f"unknown rung {rung!r}")


def prepare(legacy, name, rung, batch, quick):
    import tensorflow as tf

    if legacy:
        import tf_keras as keras
    else:
        import keras
    model = make_model(keras, name)
    fn, args = make_rung(tf, keras, model, name, rung, batch, quick)
    x = make_batch(name, batch)
    reference = np.asarray(model(x, training=False))

    def check():
        out = np.asarray(fn(*args))[:batch]  # the whole-array rung: its first batch is x
        metrics = {"max_error_vs_model_call": float(np.abs(out - reference).max()),
                   "output_sum": float(out.sum())}
        if batch == 1 and rung != "predict, whole array" and sys.platform == "linux":
            calls = (QUICK if quick else FULL)["memory_calls"]
            before = resident_bytes()
            for _ in range(calls):
                fn(*args)
            metrics.update(memory_calls=calls, rss_growth_bytes=float(resident_bytes() - before))
        return metrics

    return tfspeedlab.Prepared(fn, args, metrics=check)


def steps_of(rung, batch, quick):
    if rung != "predict, whole array":
        return 1
    return max(4, (QUICK if quick else FULL)["whole_array_samples"] // batch)


# %%
def workload(quick=False):
    sizes = QUICK if quick else FULL
    cases = []
    for keras_name, rungs, legacy in (("Keras 3", KERAS3_RUNGS, False), ("tf_keras", KERAS2_RUNGS, True)):
        for name in sizes["models"]:
            for rung in rungs:
                row = rung if not legacy else f"tf_keras {rung}"
                for batch in sizes["batches"]:
                    cases.append(tfspeedlab.Case(
                        f"{name} · {row} · {batch}",
                        setup=functools.partial(prepare, legacy, name, row.removeprefix("tf_keras "), batch, quick),
                        params={"model": name, "rung": row, "batch": batch, "keras": keras_name},
                        steps_per_call=steps_of(rung, batch, quick),
                        process=keras_name,
                        env={"TF_USE_LEGACY_KERAS": "1"} if legacy else {},
                    ))
    return tfspeedlab.Workload(
        name="predict_ladder",
        title="Inference, call by call: predict, predict_on_batch, model(x), tf.function, XLA, TFLite",
        params={"batches": list(sizes["batches"]), "whole_array_samples": sizes["whole_array_samples"],
                "memory_calls": sizes["memory_calls"],
                "models": {"MLP": "Dense 32→64→64→10",
                           "CNN": "28×28×1 → Conv 16 → pool → Conv 32 → pool → Dense 64 → 10"},
                },
        # Per model: a table of rung × batch size, each cell against predict in its column.
        layout=tfspeedlab.Grid(rows="rung", columns="batch", split="model", baseline="predict",
                               time_per="batch"),
        cases=cases,
        budget_s=0.05 if quick else 0.5,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
