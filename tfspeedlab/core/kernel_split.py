"""Which kernels a call ran, and how long each family of them took, from a profiler trace.

(A module of its own, beside ``core.profiling``: the freshness check counts every module of a package
an example imports as that example's, and the examples that import ``core.profiling`` never use this.)

``trace`` splits a call's host time into layers; this module names the ops inside it. An op shows
in the trace events (``trace.trace_events``) in one of two ways, as TensorFlow 2.21 records them
on a CPU:

* run eagerly, as ``EagerLocalExecute: <op type>`` on the thread that called it: the op's kernel
  runs inline, inside that event (an event whose op is a function, ``__inference_…``, is the call
  of a graph, whose ops show the other way);
* run by a graph executor (a ``tf.function``, a TF1 ``Session``), as an event named after the op
  type (``_MklNativeFusedConv2D``, ``ResourceApplyAdam``) directly inside ``ExecutorState::Process``
  on an executor thread.

Times are summed over threads: two kernels running at once both count, so the families can add up
to more than the call's wall time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tfspeedlab.core.profiling.trace import Event

EAGER_OP = "EagerLocalExecute: "
EXECUTOR_NODE_PARENT = "ExecutorState::Process"
FUNCTION_PREFIXES = ("__inference_", "__forward_", "__backward_", "__wrapped")
# Families, in the order a table shows them.
KERNEL_FAMILIES = ("conv_forward", "conv_filter_grad", "conv_input_grad", "matmul", "fused_optimizer", "other")
KERNEL_FAMILY_LABELS = {
    "conv_forward": "convolution",
    "conv_filter_grad": "convolution's gradient for its filter",
    "conv_input_grad": "convolution's gradient for its input",
    "matmul": "matrix products",
    "fused_optimizer": "fused optimizer update",
    "other": "every other op",
}
# oneDNN's and Grappler's renamings of an op type: the family is the op's.
_RENAMED = re.compile(r"^(_MklNative|_Mkl|_)?(Fused)?")
_US = 1e-6


@dataclass(frozen=True)
class KernelSplit:
    """Seconds per call in each family of kernels (``KERNEL_FAMILIES``), and ops run per call."""

    seconds: dict[str, float]
    ops_per_call: float
    calls: int

    def metrics(self) -> dict[str, float]:
        """What a results file stores: ``kernel_<family>_s`` per family, and ``ops_per_call``."""
        return {**{f"kernel_{family}_s": self.seconds[family] for family in KERNEL_FAMILIES},
                "ops_per_call": self.ops_per_call}


def family_of(op_type: str) -> str:
    """The family of an op type, oneDNN's and Grappler's prefixes aside."""
    base = _RENAMED.sub("", op_type)
    if "Conv" in base:
        if "BackpropFilter" in base:
            return "conv_filter_grad"
        if "BackpropInput" in base:
            return "conv_input_grad"
        return "conv_forward"
    if "MatMul" in base:
        return "matmul"
    if base.startswith(("ResourceApply", "Apply")):
        return "fused_optimizer"
    return "other"


def op_events(events: list[Event]) -> list[tuple[str, Event]]:
    """(op type, event) for every op the trace ran, eagerly or in a graph executor."""
    found = []
    parents = _parents(events)
    for event in events:
        if event.name.startswith(EAGER_OP):
            op_type = event.name[len(EAGER_OP):]
            if not op_type.startswith(FUNCTION_PREFIXES):
                found.append((op_type, event))
        elif (parent := parents.get(id(event))) is not None and parent.name == EXECUTOR_NODE_PARENT:
            found.append((event.name, event))
    return found


def kernel_split(events: list[Event], calls: int) -> KernelSplit:
    """Per call: each family's kernel time, summed over threads, and how many ops ran."""
    if calls < 1:
        raise ValueError(f"a split needs at least one profiled call, not {calls}")
    ops = op_events(events)
    if not ops:
        raise RuntimeError("the trace holds no op: profile at host_tracer_level 3 (profiling.capture does)")
    totals = dict.fromkeys(KERNEL_FAMILIES, 0.0)
    for op_type, event in ops:
        totals[family_of(op_type)] += event.duration_us
    return KernelSplit({family: value * _US / calls for family, value in totals.items()}, len(ops) / calls, calls)


def _parents(events: list[Event]) -> dict[int, Event]:
    """Each event's innermost enclosing event on its own thread."""
    parents: dict[int, Event] = {}
    by_thread: dict[str, list[Event]] = {}
    for event in events:
        by_thread.setdefault(event.thread, []).append(event)
    for thread_events in by_thread.values():
        stack: list[Event] = []
        for event in sorted(thread_events, key=lambda e: (e.start_us, -e.duration_us)):
            while stack and stack[-1].end_us <= event.start_us:
                stack.pop()
            if stack:
                parents[id(event)] = stack[-1]
            stack.append(event)
    return parents
