# %% [markdown]
# # A real training step: GradientTape eager vs tf.function vs XLA vs Keras
#
# A small Dense network (20 → 64 → 1) trained with mean squared error and
# SGD on one batch of 64. The same step runs eagerly, as a `tf.function`,
# compiled with XLA, and through Keras's `train_on_batch` and `fit`. Every
# case gets its own copy of the model with identical starting weights, and
# records its loss before and after timing to show it really trained.
# Run it with `python examples/train_step.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab

BATCHES_PER_FIT = 100  # fit() sets up an epoch per call; spread it over many steps


def make_model():
    tf.keras.utils.set_random_seed(0)  # every case starts from the same weights
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


# %%
def workload(quick=False):
    X = tf.random.normal([64, 20], seed=1)
    Y = tf.random.normal([64, 1], seed=2)

    def loss_of(model):
        return float(tf.reduce_mean((model(X) - Y) ** 2))

    def case(label, fn, model, args=(), **options):
        start = loss_of(model)
        def metrics():
            return {"loss_start": start, "loss_end": loss_of(model)}

        # Six processes in a full run, as for small_ops: halves of them are two re-runs.
        return tfspeedlab.Case(label, fn, args, {"mode": label},
                               metrics=metrics, rounds=None if quick else 6, **options)

    cases = []
    for mode in ("eager", "graph", "xla"):
        model = make_model()
        step = make_train_step(model, tf.keras.optimizers.SGD(0.01))
        if mode != "eager":
            step = tf.function(step, jit_compile=(mode == "xla"))
        cases.append(case(mode, step, model, (X, Y)))

    model = make_model()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    cases.append(case("train_on_batch", model.train_on_batch, model, (X, Y)))

    model = make_model()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    X_epoch = tf.tile(X, [BATCHES_PER_FIT, 1])
    Y_epoch = tf.tile(Y, [BATCHES_PER_FIT, 1])

    def fit():
        return model.fit(X_epoch, Y_epoch, batch_size=64, epochs=1,
                         shuffle=False, verbose=0)

    cases.append(case("fit", fit, model, steps_per_call=BATCHES_PER_FIT))
    return tfspeedlab.Workload(
        name="train_step",
        title="One training step",
        params={"batch": 64, "layers": "Dense 20→64→1",
                "optimizer": "SGD(0.01)",
                "keras_jit_compile": bool(model.jit_compile)},
        cases=cases,
        baseline="eager",
        budget_s=0.5 if quick else 3.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
