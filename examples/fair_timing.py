# %% [markdown]
# # Timing TensorFlow fairly: the wrong ways next to the right way
#
# One workload, a `tf.function` multiplying two 512 × 512 matrices, timed
# four ways. TensorFlow's executor runs asynchronously here, as it always
# does on a GPU: a call returns once its work is queued, not done.
# Run it with `python examples/fair_timing.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab

# Must run before TensorFlow executes anything in this process.
tf.config.experimental.set_synchronous_execution(False)

SIZE = 512


def matmul(a):
    return tf.matmul(a, a)


# %%
def workload(quick=False):
    a = tf.random.normal([SIZE, SIZE], seed=0)
    traced = tf.function(matmul)
    cases = [
        # Warm-up, calibrated blocks, results read back before the clock stops.
        tfspeedlab.Case("right way", traced, (a,)),
        # A fresh tf.function each time: every timed call also traces.
        tfspeedlab.Case("tracing inside the timing",
                        lambda: tf.function(matmul)(a)),
        # Thirty separate one-call timings: what "run it once" can give you.
        tfspeedlab.Case("one call at a time", traced, (a,),
                        bench_options={"number": 1, "repeat": 30, "warmup": 0}),
        # The clock stops when the work is queued, not when it is done.
        # Few calls, so the unfinished queue stays small.
        tfspeedlab.Case("no sync", traced, (a,),
                        bench_options={"force_completion": False,
                                       "number": 20, "repeat": 10}),
    ]
    return tfspeedlab.Workload(
        name="fair_timing",
        title="Four ways to time one matmul",
        params={"size": SIZE, "synchronous_execution": False},
        cases=cases,
        baseline="right way",
        budget_s=0.5 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
