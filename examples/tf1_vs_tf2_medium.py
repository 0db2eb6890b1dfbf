# %% [markdown]
# # TF1 vs TF2: the question's medium model, with a verdict
#
# The medium model of the Stack Overflow question "Why is TensorFlow 2 much
# slower than TensorFlow 1?" (two LSTM layers of 512 units, a Conv1D and four
# Dense layers), trained with `train_on_batch` and its alternatives in each
# execution mode, each mode in three fresh processes. At the question's
# sequence length of 400, one step takes many seconds on a 2-core CPU, too
# long to time each mode in three processes: this example runs the model at
# sequence length 100. The `tf1_vs_tf2` example times the full length in one
# process per mode.
# Run it with `python examples/tf1_vs_tf2_medium.py [--quick]` or
# `tfspeedlab run tf1_vs_tf2_medium`.

# %%
# %pip install -q tf-keras
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools

import numpy as np

import tfspeedlab

SEQUENCE_LENGTH = 100  # the question's is 400
STEPS_PER_EXECUTION = 10
FIT_BATCHES = 2  # batches per fit() call: one call stays short
ROUNDS = 3  # fresh processes per mode: enough for an interval


def model_shape(quick):
    """(batch shape, LSTM units); --quick shrinks both."""
    return ((32, 16, 16), 8) if quick else ((32, SEQUENCE_LENGTH, 16), 512)


def make_model(keras, batch_shape, units):
    """The question's make_medium_model."""
    L = keras.layers
    ipt = L.Input(batch_shape=batch_shape)
    lstm = dict(activation="relu", return_sequences=True)
    x = L.Bidirectional(L.LSTM(units, **lstm))(ipt)
    x = L.LSTM(units, **lstm)(x)
    x = L.Flatten()(L.Conv1D(128, 400, strides=4, padding="same")(x))
    x = L.Dropout(0.5)(L.Dense(256, activation="relu")(x))
    x = L.Dense(64, activation="relu")(L.Dense(128, activation="relu")(x))
    return keras.Model(ipt, L.Dense(1, activation="sigmoid")(x))


def make_data(batch_shape):
    rng = np.random.default_rng(0)
    X = rng.standard_normal(batch_shape).astype("float32")
    y = rng.integers(0, 2, (batch_shape[0], 1)).astype("float32")
    return X, y


# %% [markdown]
# Each mode: which Keras, and how a training step is run. XLA is left out:
# its compile of this model ran past five minutes on a 2-core CPU.

# %%
MODES = {
    "TF1-style graph": {"legacy": True, "tf1": True},
    "tf_keras train_on_batch": {"legacy": True},
    "tf_keras run_eagerly": {"legacy": True, "run_eagerly": True},
    "Keras 3 train_on_batch": {},
    "Keras 3 run_eagerly": {"run_eagerly": True},
    "tf.function step": {"step": True},
    "tf.function, 10 steps per call": {"step": True, "loop": STEPS_PER_EXECUTION},
    "Keras 3 fit": {"fit": True},
}


def prepare(mode, batch_shape, units):
    import tensorflow as tf

    spec = MODES[mode]
    if spec.get("tf1"):
        # Before any model is built: TF1 graphs and sessions from here on.
        tf.compat.v1.disable_eager_execution()
        # The LSTM's while loop must expose its intermediates for its gradient
        # in a TF1 graph (TensorFlow's own error message asks for this).
        tf.compat.v1.experimental.output_all_intermediates(True)
    if spec.get("legacy"):
        # Keras 2: runs in TF1 graph mode, with a legacy optimizer.
        import tf_keras as keras

        optimizer = keras.optimizers.legacy.Adam(1e-4)
    else:
        import keras

        optimizer = keras.optimizers.Adam(1e-4)
    keras.utils.set_random_seed(0)
    model = make_model(keras, batch_shape, units)
    X, y = make_data(batch_shape)

    if spec.get("step"):  # the hand-written TF2 step
        loss_fn = keras.losses.BinaryCrossentropy()
        X, y = tf.constant(X), tf.constant(y)

        @tf.function
        def train_step(X, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(X, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        fn, args, watch = train_step, (X, y), (train_step,)
        if spec.get("loop"):  # several steps per call: the per-call cost is paid once
            Xs, ys = tf.stack([X] * spec["loop"]), tf.stack([y] * spec["loop"])

            @tf.function
            def train_steps(Xs, ys):
                loss = tf.constant(0.0)
                for i in tf.range(spec["loop"]):
                    loss = train_step.python_function(Xs[i], ys[i])
                return loss

            fn, args, watch = train_steps, (Xs, ys), (train_steps,)
        model.compile(optimizer, "binary_crossentropy")  # for evaluate() only
    else:
        options = {"run_eagerly": spec.get("run_eagerly", False)}
        if spec.get("fit"):
            options["steps_per_execution"] = STEPS_PER_EXECUTION
        model.compile(optimizer, "binary_crossentropy", **options)
        if spec.get("fit"):
            X_epoch, y_epoch = np.tile(X, (FIT_BATCHES, 1, 1)), np.tile(y, (FIT_BATCHES, 1))

            def fit():
                return model.fit(X_epoch, y_epoch, batch_size=batch_shape[0],
                                 epochs=1, shuffle=False, verbose=0)

            fn, args, watch = fit, (), ()
        else:
            fn, args, watch = model.train_on_batch, (X, y), ()

    X_np, y_np = make_data(batch_shape)
    weights = [w.copy() for w in model.get_weights()]

    def loss():
        return float(model.evaluate(X_np, y_np, batch_size=len(X_np), verbose=0))

    loss_start = loss()

    def trained():  # a mode that is fast because it does nothing fails this
        after = model.get_weights()
        moved = max(float(np.abs(a - b).max()) for a, b in zip(after, weights))
        return {"loss_start": loss_start, "loss_end": loss(),
                "weight_change": moved}

    return tfspeedlab.Prepared(fn, args, metrics=trained, watch=watch)


def process_of(mode, quick):
    """A fresh Python process per mode; a quick run shares one per Keras (TF1-style graph apart)."""
    if not quick:
        return mode
    spec = MODES[mode]
    return mode if spec.get("tf1") else "tf_keras" if spec.get("legacy") else "Keras 3"


# %%
def workload(quick=False):
    batch_shape, units = model_shape(quick)
    cases = [tfspeedlab.Case(
        mode,
        setup=functools.partial(prepare, mode, batch_shape, units),
        params={"mode": mode, "batch_shape": list(batch_shape), "units": units},
        steps_per_call=FIT_BATCHES if spec.get("fit") else spec.get("loop", 1),
        rounds=1 if quick else ROUNDS,
        process=process_of(mode, quick),
        env={"TF_USE_LEGACY_KERAS": "1"} if spec.get("legacy") else {},
    ) for mode, spec in MODES.items()]
    return tfspeedlab.Workload(
        name="tf1_vs_tf2_medium",
        title="The question's medium model at sequence length 100, per train_on_batch step",
        params={"optimizer": "Adam(1e-4)", "loss": "binary_crossentropy", "sequence_length": SEQUENCE_LENGTH,
                "steps_per_execution": STEPS_PER_EXECUTION, "fit_batches": FIT_BATCHES},
        cases=cases,
        baseline="TF1-style graph",
        budget_s=0.2 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
