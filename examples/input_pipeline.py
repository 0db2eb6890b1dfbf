# %% [markdown]
# # Is my input pipeline the bottleneck? Feeding one training step
#
# One `tf.function` training step (an MLP, 32 features → 10 classes, batches
# of 64) fed an epoch of 100 batches in each way people write it: tensors
# already in memory (nothing to feed: the floor), slices of NumPy arrays,
# `tf.data.Dataset.from_tensor_slices` (with and without `cache` and
# `prefetch`), `from_generator`, and a per-example preprocessing `map` written
# as TensorFlow ops or as a Python `py_function`, each with and without
# `num_parallel_calls=AUTOTUNE` — and the standard remedy, batching first and
# mapping the same preprocessing over whole batches (vectorised), with and
# without `cache` and `prefetch`. For each, the share of the epoch the loop
# spent waiting for its next batch is measured by timing the loop's two halves
# (fetch, step) over one more epoch. Then what reading the loss back costs:
# `float(loss)` or `print` every step, or every 10 steps.
# Run it with `python examples/input_pipeline.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools
import io
import time

import numpy as np

import tfspeedlab

BATCH = 64
FEATURES = 32
CLASSES = 10
READ_BACK_EVERY = 10  # "every N steps"

FEEDS = ("tensors in memory", "NumPy slices", "from_tensor_slices", "from_tensor_slices + prefetch",
         "from_tensor_slices + cache + prefetch", "from_generator",
         "map, TF ops", "map, TF ops, parallel", "map, py_function", "map, py_function, parallel",
         "batch, then map (vectorised)", "batch, then map (vectorised) + cache + prefetch")
READ_BACKS = ("float(loss) every step", f"float(loss) every {READ_BACK_EVERY} steps", "print(loss) every step")


def make_data(batches):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((batches * BATCH, FEATURES)).astype("float32")
    y = (X @ rng.standard_normal((FEATURES, CLASSES))).argmax(axis=1).astype("int32")
    return X, y


def make_model(keras):
    keras.utils.set_random_seed(0)  # every case starts from the same weights
    return keras.Sequential([
        keras.Input((FEATURES,)),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(CLASSES),
    ])


# %% [markdown]
# The per-example preprocessing: standardise the features and add a little
# noise (a stand-in for augmentation), once as TensorFlow ops and once in NumPy.

# %%
def standardise_tf(tf, x, y):
    x = (x - tf.reduce_mean(x)) / (tf.math.reduce_std(x) + 1e-6)
    return x + tf.random.stateless_normal(tf.shape(x), seed=[0, 0], stddev=0.01), y


def standardise_batch_tf(tf, x, y):
    """The same preprocessing on a whole batch at once: each row standardised by its own mean and
    spread, and the same noise vector the per-example map adds (its seed and shape are the same)."""
    x = (x - tf.reduce_mean(x, axis=-1, keepdims=True)) / (tf.math.reduce_std(x, axis=-1, keepdims=True) + 1e-6)
    return x + tf.random.stateless_normal([FEATURES], seed=[0, 0], stddev=0.01), y


def standardise_numpy(x, y):
    x = x.numpy()
    x = (x - x.mean()) / (x.std() + 1e-6)
    return (x + np.random.default_rng(0).normal(0, 0.01, x.shape)).astype("float32"), y


def make_feed(tf, feed, X, y):
    """A function returning a fresh iterable of (x, y) batches for one epoch."""
    if feed == "tensors in memory":
        batches = [(tf.constant(X[i:i + BATCH]), tf.constant(y[i:i + BATCH])) for i in range(0, len(X), BATCH)]
        return lambda: batches
    if feed == "NumPy slices":
        return lambda: ((X[i:i + BATCH], y[i:i + BATCH]) for i in range(0, len(X), BATCH))
    if feed == "from_generator":
        def examples():
            yield from zip(X, y)

        spec = (tf.TensorSpec([FEATURES], tf.float32), tf.TensorSpec([], tf.int32))
        dataset = tf.data.Dataset.from_generator(examples, output_signature=spec).batch(BATCH)
        return lambda: dataset
    dataset = tf.data.Dataset.from_tensor_slices((X, y))
    if feed.startswith("batch, then map"):  # the standard remedy: one map call per batch, not per example
        dataset = dataset.batch(BATCH).map(functools.partial(standardise_batch_tf, tf))
        if feed.endswith("cache + prefetch"):
            dataset = dataset.cache().prefetch(tf.data.AUTOTUNE)
        return lambda: dataset
    parallel = {"num_parallel_calls": tf.data.AUTOTUNE} if feed.endswith("parallel") else {}
    if feed.startswith("map, TF ops"):
        dataset = dataset.map(functools.partial(standardise_tf, tf), **parallel)
    elif feed.startswith("map, py_function"):
        def standardise(x, y):
            x, y = tf.py_function(standardise_numpy, [x, y], (tf.float32, tf.int32))
            return tf.ensure_shape(x, [FEATURES]), tf.ensure_shape(y, [])

        dataset = dataset.map(standardise, **parallel)
    elif feed.endswith("cache + prefetch"):
        dataset = dataset.cache()
    dataset = dataset.batch(BATCH)
    if "prefetch" in feed:
        dataset = dataset.prefetch(tf.data.AUTOTUNE)
    return lambda: dataset


# %%
def prepare(case, batches):
    import keras
    import tensorflow as tf

    model = make_model(keras)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = keras.optimizers.SGD(0.05)

    @tf.function(reduce_retracing=True)
    def train_step(xb, yb):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    X, y = make_data(batches)
    epoch = make_feed(tf, case if case in FEEDS else "tensors in memory", X, y)
    sink = io.StringIO()  # print() goes somewhere real, but not to the terminal

    def read_back(loss, step):
        if case == "float(loss) every step" or (case.endswith("steps") and step % READ_BACK_EVERY == 0):
            return float(loss)
        if case == "print(loss) every step":
            print(f"step {step}: loss {loss}", file=sink)  # formats the tensor: reads its value
            sink.seek(0), sink.truncate()
        return loss

    def run():
        for step, (xb, yb) in enumerate(epoch()):
            loss = read_back(train_step(xb, yb), step)
        return loss

    def wait_share():
        """One more epoch with the loop's two halves timed apart: fetching a batch, then the step
        (its loss read back, so the step has finished when the clock stops)."""
        waiting = stepping = 0.0
        batches = iter(epoch())
        while True:
            start = time.perf_counter()
            try:
                xb, yb = next(batches)
            except StopIteration:
                break
            fetched = time.perf_counter()
            train_step(xb, yb).numpy()
            waiting, stepping = waiting + fetched - start, stepping + time.perf_counter() - fetched
        return waiting / (waiting + stepping)

    X_eval, y_eval = tf.constant(X[:512]), tf.constant(y[:512])

    def loss_now():
        return float(loss_fn(y_eval, model(X_eval, training=False)))

    loss_start = loss_now()

    def outcome():
        return {"loss_start": loss_start, "loss_end": loss_now(), "data_wait_share": wait_share(),
                "traces": train_step.experimental_get_tracing_count()}

    return tfspeedlab.Prepared(run, metrics=outcome, watch=(train_step,))


# %%
def workload(quick=False):
    batches = 10 if quick else 100
    return tfspeedlab.Workload(
        name="input_pipeline",
        title="Feeding one tf.function training step, per step",
        params={"batch": BATCH, "batches_per_epoch": batches, "model": f"Dense {FEATURES}→64→64→{CLASSES}",
                "optimizer": "SGD(0.05)", "read_back_every": READ_BACK_EVERY},
        cases=[tfspeedlab.Case(case, setup=functools.partial(prepare, case, batches),
                               params={"feed": case}, steps_per_call=batches)
               for case in (*FEEDS, *READ_BACKS)],
        baseline="tensors in memory",
        budget_s=0.1 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
