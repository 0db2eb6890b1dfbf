# %% [markdown]
# # The cost of tracing: first calls, retracing pitfalls and their fixes
#
# A `tf.function` traces its Python code into a graph on the first call for
# each new input signature. Each case below starts from a *fresh*
# `tf.function` and makes 10 calls, the way the first steps of a training
# loop do; the table reports time per call and how many traces it took.
# Run it with `python examples/tracing.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import tensorflow as tf

import tfspeedlab

CALLS = 10


def scaled_sum(x, scale):
    for _ in range(10):
        x = tf.nn.relu(x * scale + 1.0)
    return tf.reduce_sum(x)


def sum_of(x):
    return scaled_sum(x, 0.5)


x = tf.random.normal([100], seed=0)
vectors = [tf.random.normal([100 + i], seed=i) for i in range(CALLS)]


class Scenario:
    """Ten calls of a brand-new tf.function; remembers it to count its traces."""

    def __init__(self, calls):
        self.calls = calls
        self.last = None
        self.side_effects = 0

    def __call__(self):
        self.side_effects = 0
        self.last = self.calls(self)
        return self.last

    def metrics(self):
        traced = sum(f.experimental_get_tracing_count() for f in self.functions)
        return {"traces": traced, "python_side_effects": self.side_effects}


# %%
def python_scalars(s):
    f = s.functions = [tf.function(scaled_sum)]
    return [f[0](x, step / 100) for step in range(CALLS)]  # a new float each call


def tensor_scalars(s):
    f = s.functions = [tf.function(scaled_sum)]
    return [f[0](x, tf.constant(step / 100)) for step in range(CALLS)]


def changing_shapes(s):
    f = s.functions = [tf.function(sum_of)]
    return [f[0](v) for v in vectors]


def changing_shapes_reduce_retracing(s):
    f = s.functions = [tf.function(sum_of, reduce_retracing=True)]
    return [f[0](v) for v in vectors]


def changing_shapes_input_signature(s):
    spec = [tf.TensorSpec([None], tf.float32)]
    f = s.functions = [tf.function(sum_of, input_signature=spec)]
    return [f[0](v) for v in vectors]


def new_function_each_call(s):
    s.functions = [tf.function(sum_of) for _ in range(CALLS)]
    return [f(x) for f in s.functions]


def python_side_effect(s):
    def counted(x):
        s.side_effects += 1  # Python code: runs while tracing, not on each call
        return sum_of(x)

    f = s.functions = [tf.function(counted)]
    return [f[0](x) for _ in range(CALLS)]


def eager_calls(s):
    s.functions = []
    return [sum_of(x) for _ in range(CALLS)]


# %%
def workload(quick=False):
    scenarios = {
        "python scalars": python_scalars,
        "fix: tensor scalars": tensor_scalars,
        "changing shapes": changing_shapes,
        "fix: reduce_retracing": changing_shapes_reduce_retracing,
        "fix: input_signature": changing_shapes_input_signature,
        "new tf.function per call": new_function_each_call,
        "python side effect": python_side_effect,
        "eager, no tf.function": eager_calls,
    }
    cases = []
    for label, calls in scenarios.items():
        scenario = Scenario(calls)
        cases.append(tfspeedlab.Case(
            label, scenario, params={"scenario": calls.__name__, "calls": CALLS},
            steps_per_call=CALLS, metrics=scenario.metrics,
        ))
    return tfspeedlab.Workload(
        name="tracing",
        title="Tracing and retracing",
        params={"calls_per_scenario": CALLS, "ops_per_call": 31},
        cases=cases,
        baseline="eager, no tf.function",
        budget_s=0.5 if quick else 2.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
