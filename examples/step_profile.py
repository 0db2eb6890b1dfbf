# %% [markdown]
# # A training step under the profiler: host time by category, and peak memory
#
# The Dense 20 → 64 → 1 training step of the training-step test, eager, as a
# `tf.function` and with XLA, each in a fresh process of its own. Each mode is
# timed, then its peak memory is read (host resident memory, and on a GPU the
# allocator's peak), then a few more steps run under `tf.profiler.experimental`.
# XProf converts the trace to events, which split the host time into Python,
# op dispatch, graph executor and kernels (on a GPU, also how busy the device
# was). The raw traces are kept for XProf or TensorBoard.
# Run it with `python examples/step_profile.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab
from tfspeedlab import PeakMemory
from tfspeedlab.core import profiling

MODES = ("eager", "graph", "xla")


def make_model():
    tf.keras.utils.set_random_seed(0)
    return tf.keras.Sequential([
        tf.keras.Input(shape=(20,)),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(1),
    ])


def make_train_step(model, optimizer):
    def train_step(X, Y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(X) - Y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return train_step


def compiled(step, mode):
    return step if mode == "eager" else tf.function(step, jit_compile=(mode == "xla"))


# %%
def setup(mode, quick):
    def build():
        memory = PeakMemory()  # before the model exists: what follows is this mode's
        X = tf.random.normal([64, 20], seed=1)
        Y = tf.random.normal([64, 1], seed=2)
        model = make_model()
        python_step = make_train_step(model, tf.keras.optimizers.SGD(0.01))

        def metrics():  # after timing: memory first, then the profiler (which allocates)
            values = memory.metrics()
            # A fresh tf.function: the executor stops tracing kernels it has timed as cheap.
            split = profiling.profile(compiled(python_step, mode), (X, Y), calls=5 if quick else 20,
                                      keep_trace_as=tfspeedlab.artifact_path(f"{mode}.xplane.pb"))
            return {**values, **split.metrics()}

        return tfspeedlab.Prepared(compiled(python_step, mode), (X, Y), metrics=metrics)

    return build


def workload(quick=False):
    return tfspeedlab.Workload(
        name="step_profile",
        title="Training step: host time by category",
        params={"batch": 64, "layers": "Dense 20→64→1", "optimizer": "SGD(0.01)"},
        cases=[tfspeedlab.Case(mode, setup=setup(mode, quick), params={"mode": mode}, process=mode)
               for mode in MODES],
        baseline="eager",
        budget_s=0.5 if quick else 3.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
