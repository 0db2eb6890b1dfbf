# %% [markdown]
# # TF1 vs TF2: where the question's small model spends its step
#
# The small model of the Stack Overflow question "Why is TensorFlow 2 much
# slower than TensorFlow 1?", one `train_on_batch` step at a time, as a
# TF1-style graph, op by op (as TensorFlow 2.0 ran it, and as Keras 3 runs it
# with `run_eagerly=True`) and as Keras 3's compiled step. Each mode is timed
# in three fresh processes; in each, a few more steps then run under
# TensorFlow's profiler, and the trace says which kernels ran and how long
# each family took: the convolution, its two gradients, the matrix products
# and the rest.
# Run it with `python examples/tf1_vs_tf2_profile.py [--quick]` or
# `tfspeedlab run tf1_vs_tf2_profile`.

# %%
# %pip install -q tf-keras
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools

import numpy as np

import tfspeedlab
from tfspeedlab.core import kernel_split

ROUNDS = 3  # fresh processes per mode
PROFILED_STEPS = 10


def batch_shape(quick):
    return (32, 64, 16) if quick else (32, 400, 16)


def make_model(keras, shape):
    """The question's make_small_model."""
    L = keras.layers
    ipt = L.Input(batch_shape=shape)
    x = L.Conv1D(128, 400, strides=4, padding="same")(ipt)
    x = L.Dense(64, activation="relu")(L.Dropout(0.5)(L.Flatten()(x)))
    return keras.Model(ipt, L.Dense(1, activation="sigmoid")(x))


# %% [markdown]
# Each mode: which Keras, and how its step runs.

# %%
MODES = {
    "TF1-style graph": {"legacy": True, "tf1": True},
    "tf_keras run_eagerly": {"legacy": True, "run_eagerly": True},
    "Keras 3 run_eagerly": {"run_eagerly": True},
    "Keras 3 train_on_batch": {},
}


def prepare(mode, shape, quick):
    import tensorflow as tf

    from tfspeedlab.core.profiling.capture import capture
    from tfspeedlab.core.profiling.trace import trace_events

    spec = MODES[mode]
    if spec.get("tf1"):
        tf.compat.v1.disable_eager_execution()  # before any model is built
    if spec.get("legacy"):
        import tf_keras as keras

        optimizer = keras.optimizers.legacy.Adam(1e-4)
    else:
        import keras

        optimizer = keras.optimizers.Adam(1e-4)
    keras.utils.set_random_seed(0)
    model = make_model(keras, shape)
    options = {} if spec.get("tf1") else {"run_eagerly": spec.get("run_eagerly", False)}
    model.compile(optimizer, "binary_crossentropy", **options)
    rng = np.random.default_rng(0)
    X = rng.standard_normal(shape).astype("float32")
    y = rng.integers(0, 2, (shape[0], 1)).astype("float32")

    def step():
        return model.train_on_batch(X, y)

    def metrics():  # after timing: a few more steps under the profiler
        calls = 3 if quick else PROFILED_STEPS
        wall_s, trace_file = capture(step, (), calls)
        split = kernel_split.kernel_split(trace_events(trace_file), calls)
        return {**split.metrics(), "profiled_call_s": wall_s}

    return tfspeedlab.Prepared(step, (), metrics=metrics)


def process_of(mode, quick):
    """A fresh Python process per mode; a quick run shares one per Keras (TF1-style graph apart)."""
    if not quick:
        return mode
    spec = MODES[mode]
    return mode if spec.get("tf1") else "tf_keras" if spec.get("legacy") else "Keras 3"


# %%
def workload(quick=False):
    shape = batch_shape(quick)
    return tfspeedlab.Workload(
        name="tf1_vs_tf2_profile",
        title="The question's small model: one train_on_batch step, kernel by kernel",
        params={"batch_shape": list(shape), "optimizer": "Adam(1e-4)", "profiled_steps": PROFILED_STEPS},
        cases=[tfspeedlab.Case(
            mode,
            setup=functools.partial(prepare, mode, shape, quick),
            params={"mode": mode},
            rounds=1 if quick else ROUNDS,
            process=process_of(mode, quick),
            env={"TF_USE_LEGACY_KERAS": "1"} if spec.get("legacy") else {},
        ) for mode, spec in MODES.items()],
        baseline="TF1-style graph",
        budget_s=0.2 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
