# %% [markdown]
# # Disabling eager execution: TF1-style graphs with Keras 2, nothing at all with Keras 3
#
# The TF1-vs-TF2 question's update reports that
# `tf.compat.v1.disable_eager_execution()` "does not help" and behaves
# inconsistently. This example trains the question's small model with
# `train_on_batch` three ways, each in a fresh process (eager execution can
# only be switched off before anything runs): Keras 3 as it ships, Keras 3
# with eager execution disabled, and the legacy Keras 2 (`tf_keras`) with
# eager execution disabled — the TF1-style graph mode the question meant.
# For each it records whether the weights moved, whether a call returns a
# number or an unevaluated graph tensor, how many graph ops each call adds,
# and whether `fit` runs. Run it with `python examples/eager_off.py [--quick]`.

# %%
# %pip install -q tf-keras
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import numpy as np

import tfspeedlab

MODES = {
    "Keras 3, eager (default)": {"legacy": False, "eager": True},
    "Keras 3, eager disabled": {"legacy": False, "eager": False},
    "tf_keras, eager disabled": {"legacy": True, "eager": False},
}
# Calls after the timing over which the graph's growth is counted.
GROWTH_CALLS = 10


def make_model(keras, batch_shape, kernel_width):
    """The question's make_small_model (its kernel is 400 wide; a quick run shrinks it)."""
    L = keras.layers
    ipt = L.Input(batch_shape=batch_shape)
    x = L.Conv1D(128, kernel_width, strides=4, padding="same")(ipt)
    x = L.Dense(64, activation="relu")(L.Dropout(0.5)(L.Flatten()(x)))
    return keras.Model(ipt, L.Dense(1, activation="sigmoid")(x))


def make_data(batch_shape):
    rng = np.random.default_rng(0)
    X = rng.standard_normal(batch_shape).astype("float32")
    y = rng.integers(0, 2, (batch_shape[0], 1)).astype("float32")
    return X, y


# %%
def prepare(mode, batch_shape, kernel_width):
    import tensorflow as tf

    spec = MODES[mode]
    if not spec["eager"]:
        tf.compat.v1.disable_eager_execution()  # before any model is built
    if spec["legacy"]:
        import tf_keras as keras

        optimizer = keras.optimizers.legacy.Adam(1e-4)
    else:
        import keras

        optimizer = keras.optimizers.Adam(1e-4)
    keras.utils.set_random_seed(0)
    model = make_model(keras, batch_shape, kernel_width)
    model.compile(optimizer, "binary_crossentropy")
    X, y = make_data(batch_shape)

    if spec["eager"] or spec["legacy"]:
        read_weights = model.get_weights
    else:
        # Keras 3 in graph mode cannot hand out its weights (they have no
        # value outside a session): read them through one.
        graph = tf.compat.v1.get_default_graph()
        session = tf.compat.v1.Session(graph=graph)
        session.run(tf.compat.v1.global_variables_initializer())

        def read_weights():
            return session.run([weight.value for weight in model.weights])

    def graph_size():
        return 0 if spec["eager"] else len(tf.compat.v1.get_default_graph().get_operations())

    def train():
        # Nothing is returned to the timer: with Keras 3 in graph mode the result is an
        # unevaluated graph tensor, which cannot be read back.
        model.train_on_batch(X, y)

    weights_before = [w.copy() for w in read_weights()]

    def outcome():
        moved = max(float(np.abs(a - b).max()) for a, b in zip(read_weights(), weights_before))
        result = model.train_on_batch(X, y)
        before = graph_size()
        for _ in range(GROWTH_CALLS):
            model.train_on_batch(X, y)
        ops_per_call = (graph_size() - before) / GROWTH_CALLS
        try:
            model.fit(X, y, batch_size=len(X), epochs=1, verbose=0)
            fit_runs = 1
        except (RuntimeError, TypeError, ValueError):  # Keras 3 needs eager execution for its data iterator
            fit_runs = 0
        # A loss value (a float, or NumPy's) against an unevaluated graph tensor.
        returns_number = int(isinstance(result, float | np.floating | np.ndarray))
        return {"weight_change": moved, "returns_number": returns_number,
                "graph_ops_added_per_call": ops_per_call, "fit_runs": fit_runs}

    return tfspeedlab.Prepared(train, (), metrics=outcome)


# %%
def workload(quick=False):
    batch_shape, kernel_width = ((8, 64, 16), 16) if quick else ((32, 400, 16), 400)
    return tfspeedlab.Workload(
        name="eager_off",
        title="Disabling eager execution, Keras 3 against Keras 2, per train_on_batch call",
        params={"batch_shape": list(batch_shape), "kernel_width": kernel_width, "optimizer": "Adam(1e-4)", "loss": "binary_crossentropy"},
        cases=[
            tfspeedlab.Case(mode, setup=lambda mode=mode: prepare(mode, batch_shape, kernel_width),
                            params={"mode": mode}, process=mode,
                            env={"TF_USE_LEGACY_KERAS": "1"} if spec["legacy"] else {})
            for mode, spec in MODES.items()
        ],
        baseline="Keras 3, eager (default)",
        budget_s=0.3 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
