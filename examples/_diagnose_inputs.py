"""Inputs for the three sample diagnoses on "Diagnose your own code" (``docs/diagnose.md``).

Each returns ``(args, kwargs)`` for a function of the guide's own examples, with the inputs the
example's full run times it on, so the diagnosis can be set against that run:

    tfspeedlab diagnose examples/small_ops.py:small_ops --inputs examples/_diagnose_inputs.py:small_ops_inputs

Not an example itself (the leading ``_``): ``tfspeedlab run`` skips it.
"""

import tensorflow as tf


def small_ops_inputs():
    """150 small ops on a 10 × 10 tensor, as ``examples/small_ops.py`` times them."""
    return (tf.random.normal([10, 10], seed=0),), {}


def matmul_inputs():
    """The largest matrix ``examples/matmul.py`` multiplies: 2048 × 2048."""
    return (tf.random.normal([2048, 2048], seed=0),), {}


def scaled_sum_inputs():
    """A 100-vector and a Python float scale, as the "python scalars" case of ``examples/tracing.py``."""
    return (tf.random.normal([100], seed=0), 0.5), {}
