# %% [markdown]
# # `fit`, `train_on_batch` or a custom loop? One epoch, every training API
#
# The same small classifier (an MLP, 32 features → 10 classes) trained for an
# epoch of 100 batches of 64, from the same NumPy arrays and the same starting
# weights, through each API Keras 3 offers: `fit` with `steps_per_execution`
# 1, 10 and 100, `fit` with `jit_compile=True` and with `run_eagerly=True`,
# `train_on_batch` in a Python loop, and a custom loop around a
# `tf.function` training step (plain and XLA-compiled). Then the retracing
# traps: `train_on_batch` when the batch size changes, the last partial batch
# of an epoch, and a step that takes a Python number instead of a tensor.
# Every case counts how many times its training step's Python code ran (once
# per trace, or once per step when nothing is traced) and shows its loss
# falling. Run it with `python examples/train_apis.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools

import numpy as np

import tfspeedlab

BATCH = 64
CLASSES = 10
FEATURES = 32
# Batch sizes train_on_batch is fed in turn when they vary (a ragged stream of requests).
VARYING_BATCHES = (64, 48, 56, 40)
# A step that retraces on every call takes tens of milliseconds: its epoch is cut short.
RETRACING_BATCHES = 10

FIT_OPTIONS = {
    "fit": {},
    "fit, steps_per_execution=10": {"steps_per_execution": 10},
    "fit, steps_per_execution=100": {"steps_per_execution": 100},
    "fit, jit_compile=True": {"jit_compile": True},
    "fit, run_eagerly=True": {"run_eagerly": True},
}


def make_data(batches):
    """A learnable task: labels from a fixed random linear teacher."""
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


class StepCounter:
    """Counts how often a training step's Python code runs: once per trace in graph modes,
    once per step when it runs eagerly."""

    def __init__(self):
        self.runs = 0

    def wrap(self, step):
        @functools.wraps(step)
        def counted(*args, **kwargs):
            self.runs += 1
            return step(*args, **kwargs)

        return counted


# %% [markdown]
# Each case: one epoch (or one call) of training, built on its own model.

# %%
def prepare(case, batches):
    import keras
    import tensorflow as tf

    model = make_model(keras)
    counter = StepCounter()
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    X, y = make_data(batches)
    X_eval, y_eval = X[:512], y[:512]
    steps = steps_of(case, batches)

    if case in FIT_OPTIONS:
        model.compile(keras.optimizers.SGD(0.05), loss_fn, **FIT_OPTIONS[case])
        model.train_step = counter.wrap(model.train_step)  # before the train function is made

        def run():
            return model.fit(X, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
    elif case.startswith("train_on_batch"):
        model.compile(keras.optimizers.SGD(0.05), loss_fn)
        model.train_step = counter.wrap(model.train_step)
        if case == "train_on_batch":
            sizes = [BATCH] * batches
        elif case == "train_on_batch, last batch partial":
            sizes = [BATCH] * (batches - 1) + [BATCH // 2]  # an epoch whose length isn't a multiple of 64
        else:  # "train_on_batch, batch size varies"
            sizes = [VARYING_BATCHES[i % len(VARYING_BATCHES)] for i in range(batches)]
        starts = np.cumsum([0, *sizes[:-1]])
        pieces = [(X[s:s + n], y[s:s + n]) for s, n in zip(starts, sizes)]

        def run():
            for xb, yb in pieces:
                loss = model.train_on_batch(xb, yb)
            return loss
    else:  # a custom loop around a hand-written step
        optimizer = keras.optimizers.SGD(0.05)

        def train_step(xb, yb, scale=1.0):
            with tf.GradientTape() as tape:
                loss = loss_fn(yb, model(xb, training=True)) * scale
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        step = tf.function(counter.wrap(train_step), jit_compile=case == "custom loop, XLA step")
        pieces = [(tf.constant(X[i * BATCH:(i + 1) * BATCH]), tf.constant(y[i * BATCH:(i + 1) * BATCH]))
                  for i in range(steps_of(case, batches))]
        call_index = iter(range(10**9))
        if case == "custom loop, Python float argument":
            # A loss scale from a schedule, passed as a Python float: a new value
            # is a new trace (it is baked into the graph as a constant).
            def run():
                for xb, yb in pieces:
                    loss = step(xb, yb, 1.0 + next(call_index) * 1e-9)
                return loss
        elif case == "custom loop, tensor argument":
            def run():
                for xb, yb in pieces:
                    loss = step(xb, yb, tf.constant(1.0 + next(call_index) * 1e-9))
                return loss
        else:
            def run():
                for xb, yb in pieces:
                    loss = step(xb, yb)
                return loss
        model.compile(optimizer, loss_fn)  # for evaluate() only

    def loss_now():
        return float(model.evaluate(X_eval, y_eval, batch_size=len(X_eval), verbose=0))

    loss_start = loss_now()
    calls = {"count": 0, "runs_after_first": 0}

    def counted_run():
        result = run()
        calls["count"] += 1
        if calls["count"] == 1:  # the first call traces (or runs eagerly) for the first time
            calls["runs_after_first"] = counter.runs
        return result

    def outcome():
        later_steps = max(calls["count"] - 1, 1) * steps
        metrics = {"loss_start": loss_start, "loss_end": loss_now(),
                   "step_runs_first_call": calls["runs_after_first"],
                   "step_runs_per_later_step": (counter.runs - calls["runs_after_first"]) / later_steps}
        if case == "fit":
            metrics["jit_compile_resolved"] = float(bool(model.jit_compile))  # what "auto" became here
        return metrics

    return tfspeedlab.Prepared(counted_run, metrics=outcome)


# %%
def steps_of(case, batches):
    return min(batches, RETRACING_BATCHES) if case == "custom loop, Python float argument" else batches


CASES = (*FIT_OPTIONS, "train_on_batch", "train_on_batch, last batch partial", "train_on_batch, batch size varies",
         "custom loop, tf.function step", "custom loop, XLA step",
         "custom loop, Python float argument", "custom loop, tensor argument")


def workload(quick=False):
    batches = 5 if quick else 100

    return tfspeedlab.Workload(
        name="train_apis",
        title="One epoch of training through each Keras 3 API, per step",
        params={"batch": BATCH, "batches_per_epoch": batches, "model": f"Dense {FEATURES}→64→64→{CLASSES}",
                "optimizer": "SGD(0.05)", "loss": "sparse categorical cross-entropy",
                "varying_batches": list(VARYING_BATCHES)},
        cases=[tfspeedlab.Case(case, setup=functools.partial(prepare, case, batches), params={"api": case},
                               steps_per_call=steps_of(case, batches))
               for case in CASES],
        baseline="fit",
        budget_s=0.1 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
