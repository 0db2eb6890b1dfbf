"""The two costs the guide's cost model most depends on, timed on the reader's machine before their
function is set against the model.

The model is fitted on the guide's runner. How long one eager op and one ``tf.function`` call take
moves several times from machine to machine (the CPU model, its clock, the load), and a function
set against another machine's costs reads as made of cheaper or dearer ops when only the machine
differs. So ``diagnose`` first times the two on the reader's machine:

* an eager op as the cost model's op-count sweep (``examples/op_chain.py``) times it: a chain of
  ``CHAIN_OPS`` elementwise ops on a 10 × 10 tensor, multiply, add and ReLU in turn, per op (the
  model's eager call costs nothing apart from its ops);
* a ``tf.function`` call as the speed simulator's page has readers time it ("Your machine's two
  costs"): a call of a ``tf.function`` that computes nothing.

The two are timed block by block in turn and each read by the guide's estimator (the 10th
percentile of its blocks), as every case of the guide is. Each is a direct measurement: a cost
read as the slope or intercept between two chain lengths was lost in the noise of a loaded 2-core
machine (tried here: a graph op's, from chains of 1 and 30 ops, came out at zero in each of four
tries). And the ops are the sweep's, not one bare ReLU: a multiply or add by a Python number
converts that number first, and a ReLU alone took about a third of the sweep's cost per op here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfspeedlab.core.measure.timer import TimedCall, bench_interleaved
from tfspeedlab.core.stats import intervals
from tfspeedlab.diagnosis.function_core import MachineCosts

# Ops in the timed chain: enough that a call's own cost (a Python call) is lost among its ops.
CHAIN_OPS = 30
SHAPE = (10, 10)


def chain(n_ops: int) -> Callable[[Any], Any]:
    """The op-count sweep's function: ``n_ops`` elementwise ops, multiply, add and ReLU in turn."""
    import tensorflow as tf

    steps = (lambda x: x * 0.99, lambda x: x + 0.01, tf.nn.relu)

    def run(x: Any) -> Any:
        for index in range(n_ops):
            x = steps[index % len(steps)](x)
        return x

    return run


def measure_machine_costs(budget_s: float) -> MachineCosts:
    """One eager op's cost and a ``tf.function`` call's fixed cost on this machine, in about
    ``budget_s`` seconds of timed blocks (plus each one's first call and calibration)."""
    import tensorflow as tf

    x = tf.random.normal(SHAPE, seed=0)
    ops = TimedCall(chain(CHAIN_OPS), (x,), budget_s=budget_s / 2)
    empty_call = TimedCall(tf.function(lambda: x), (), budget_s=budget_s / 2)
    chained, call = bench_interleaved([ops, empty_call])
    return MachineCosts(eager_op_s=intervals.estimate_s([chained]) / CHAIN_OPS,
                        graph_call_s=intervals.estimate_s([call]))
