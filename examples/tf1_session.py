# %% [markdown]
# # Hand-written TF1 Session code against its TF2 translation
#
# The code a TF1 user wrote by hand, without Keras: placeholders, a
# `GradientDescentOptimizer`'s `minimize`, and `Session.run(train_op,
# feed_dict=...)` once per step. Beside it, the same model and step written
# for TF2: variables, a `GradientTape` and one `tf.function` per step, called
# with NumPy arrays (as `feed_dict` took them), with tensors, and with ten
# steps per call. The models are the TF1 question's tiny and small Conv1D
# networks (without dropout), built from `tf.nn` ops so that no Keras runs
# in either. TF1 graph mode must be chosen before the first op, so each mode
# runs in fresh processes of its own. Run it with
# `python examples/tf1_session.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools

import numpy as np

import tfspeedlab

LEARNING_RATE = 1e-3
STEPS_PER_CALL = 10
ROUNDS = 3
# (batch shape, Conv1D filters, kernel width, Dense units): tf1_vs_tf2's tiny and small models.
MODELS = {
    "tiny": ((8, 64, 16), 16, 16, 16),
    "small": ((32, 400, 16), 128, 400, 64),
}
QUICK_SMALL = ((32, 64, 16), 128, 64, 64)


def model_shapes(quick):
    return {**MODELS, "small": QUICK_SMALL} if quick else MODELS


def make_data(batch_shape):
    rng = np.random.default_rng(0)
    X = rng.standard_normal(batch_shape).astype("float32")
    y = rng.integers(0, 2, (batch_shape[0], 1)).astype("float32")
    return X, y


def initial_weights(batch_shape, filters, kernel, units):
    """The same starting weights for every mode, from NumPy: Conv1D, hidden Dense, output Dense."""
    rng = np.random.default_rng(1)
    steps = -(-batch_shape[1] // 4)  # "same" padding, stride 4

    def glorot(*shape):
        fan_in, fan_out = np.prod(shape[:-1]), shape[-1]
        return (rng.standard_normal(shape) * np.sqrt(2.0 / (fan_in + fan_out))).astype("float32")

    return [glorot(kernel, batch_shape[2], filters), np.zeros(filters, "float32"),
            glorot(steps * filters, units), np.zeros(units, "float32"),
            glorot(units, 1), np.zeros(1, "float32")]


def forward(tf, weights, x):
    """Conv1D (stride 4, same padding) → flatten → Dense(relu) → Dense(1): the logits."""
    conv_w, conv_b, hidden_w, hidden_b, out_w, out_b = weights
    h = tf.nn.conv1d(x, conv_w, stride=4, padding="SAME") + conv_b
    h = tf.reshape(h, (tf.shape(h)[0], -1))
    h = tf.nn.relu(tf.matmul(h, hidden_w) + hidden_b)
    return tf.matmul(h, out_w) + out_b


def loss_of(tf, weights, x, y):
    logits = forward(tf, weights, x)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))


# %% [markdown]
# TF1, as written by hand: a graph of placeholders, a `minimize` op, a
# session that runs it with the batch fed in.

# %%
def prepare_session(batch_shape, filters, kernel, units):
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()  # before any op: graphs and sessions from here on
    X, y = make_data(batch_shape)
    x_in = tf.compat.v1.placeholder(tf.float32, batch_shape)
    y_in = tf.compat.v1.placeholder(tf.float32, (batch_shape[0], 1))
    weights = [tf.Variable(w) for w in initial_weights(batch_shape, filters, kernel, units)]
    loss = loss_of(tf, weights, x_in, y_in)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss, var_list=weights)
    session = tf.compat.v1.Session()
    session.run(tf.compat.v1.global_variables_initializer())
    feed = {x_in: X, y_in: y}

    def step():
        return session.run([train_op, loss], feed_dict=feed)[1]

    before = session.run(weights)
    loss_start = float(session.run(loss, feed_dict=feed))

    def trained():
        moved = max(float(np.abs(a - b).max()) for a, b in zip(session.run(weights), before))
        return {"loss_start": loss_start, "loss_end": float(session.run(loss, feed_dict=feed)),
                "weight_change": moved}

    return tfspeedlab.Prepared(step, (), metrics=trained)


# %% [markdown]
# TF2: the same model and update, one `tf.function` per step (or ten).

# %%
def prepare_function(mode, batch_shape, filters, kernel, units):
    import tensorflow as tf

    X, y = make_data(batch_shape)
    weights = [tf.Variable(w) for w in initial_weights(batch_shape, filters, kernel, units)]

    def one_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_of(tf, weights, x, y)
        for weight, grad in zip(weights, tape.gradient(loss, weights)):
            weight.assign_sub(LEARNING_RATE * grad)
        return loss

    step = tf.function(one_step)
    if mode == "tf.function, NumPy arguments":  # converted to tensors on every call, as feed_dict was
        fn, args = step, (X, y)
    elif mode == "tf.function, tensor arguments":
        fn, args = step, (tf.constant(X), tf.constant(y))
    else:  # several steps per call: the per-call cost is paid once for all of them
        @tf.function
        def steps(xs, ys):
            loss = tf.constant(0.0)
            for i in tf.range(STEPS_PER_CALL):
                loss = one_step(xs[i], ys[i])
            return loss

        fn, args = steps, (tf.stack([X] * STEPS_PER_CALL), tf.stack([y] * STEPS_PER_CALL))
        step = steps

    before = [w.numpy() for w in weights]
    loss_start = float(loss_of(tf, weights, X, y))

    def trained():
        moved = max(float(np.abs(w.numpy() - b).max()) for w, b in zip(weights, before))
        return {"loss_start": loss_start, "loss_end": float(loss_of(tf, weights, X, y)), "weight_change": moved}

    return tfspeedlab.Prepared(fn, args, metrics=trained, watch=(step,))


MODES = ("TF1 Session.run, feed_dict", "tf.function, NumPy arguments", "tf.function, tensor arguments",
         f"tf.function, {STEPS_PER_CALL} steps per call")


def prepare(mode, shape):
    if mode == MODES[0]:
        return prepare_session(*shape)
    return prepare_function(mode, *shape)


# %%
def workload(quick=False):
    cases = [
        tfspeedlab.Case(
            f"{name} · {mode}",
            setup=functools.partial(prepare, mode, shape),
            params={"mode": mode, "model": name, "batch_shape": list(shape[0])},
            steps_per_call=STEPS_PER_CALL if mode == MODES[-1] else 1,
            rounds=1 if quick else ROUNDS,
            # TF1 graph mode is chosen for a whole process: the session's own; the TF2 modes share one
            # in a quick run.
            process=mode if not quick or mode == MODES[0] else "TF2",
        )
        for mode in MODES for name, shape in model_shapes(quick).items()
    ]
    return tfspeedlab.Workload(
        name="tf1_session",
        title="Hand-written TF1 Session.run against TF2 tf.function, per training step",
        params={"optimizer": f"gradient descent, learning rate {LEARNING_RATE}",
                "loss": "sigmoid cross-entropy", "steps_per_call": STEPS_PER_CALL},
        layout=tfspeedlab.Grid(rows="mode", columns="model", baseline=MODES[0]),
        cases=cases,
        budget_s=0.2 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
