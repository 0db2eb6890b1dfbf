"""Split the host time of a call into Python, op dispatch, executor and kernels, from a profiler trace.

``tf.profiler.experimental`` writes an XSpace protobuf
(``plugins/profile/<run>/<host>.xplane.pb``). XProf, the maintained successor
of TensorBoard's profile plugin, converts it to trace events (the JSON its
trace viewer draws); this module reads those events, never the protobuf.

The calling thread's time per call is split four ways (names as TensorFlow
2.21 records them on CPU):

* **Python**: time on the calling thread outside any runtime event, plus the
  self time of Python-side annotations (the ``tf.function`` call, whose event
  carries ``tf_function_call``; ``convert_to_tensor``; ``tf.constant``);
* **kernels**: within each ``EagerKernelExecute``, an eager op runs its kernel
  inline and records no op event, so all of it counts; for a function, the
  op events on any thread (graph nodes such as ``_MklMatMul`` on executor
  threads, XLA's compiled thunks) count, capped at the execution's length;
* **executor**: the rest of a function's ``EagerKernelExecute`` (scheduling
  nodes, thread hand-offs, waiting for them);
* **op dispatch**: everything else on the calling thread: the C++ fast path
  (``TFE_Py_FastPathExecute_C``), ``EagerExecute``, placement, handle cleanup.

On a GPU the trace also holds device streams; ``device_busy`` is the share of
the profiled wall time when at least one kernel ran there.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# The layers of host time a call is split into (not the op-layers example's entry points).
HOST_LAYERS = ("python", "dispatch", "executor", "kernels")
HOST_LAYER_LABELS = {"python": "Python", "dispatch": "op dispatch", "executor": "graph executor", "kernels": "kernels"}
# Python-side TraceMe annotations: their self time is Python work.
PYTHON_ANNOTATIONS = frozenset({"convert_to_tensor", "tf.constant"})
EXECUTION_EVENTS = ("EagerKernelExecute",)
# Inside an execution, these mark a function (graph executor or XLA program).
FUNCTION_EVENTS = ("FunctionRun", "__inference_", "CpuExecutable")
# Runtime frames around kernels: never counted as kernels themselves.
RUNTIME_FRAMES = ("ThreadpoolListener", "ExecutorState", "ExecutorDoneCallback", "FunctionRun",
                  "ThunkExecutor", "BlockUntilReady", "CpuExecutable", "end: ", "EagerCopyToDevice",
                  "TFE_", "Eager", "KernelAndDevice", "ValidateInputTypeAndPlacement")
_US = 1e-6


@dataclass(frozen=True)
class Event:
    """One complete ('X') trace event: microseconds, as XProf writes them."""

    name: str
    thread: str
    start_us: float
    duration_us: float
    args: dict

    @property
    def end_us(self) -> float:
        return self.start_us + self.duration_us


@dataclass(frozen=True)
class Breakdown:
    """Seconds per call spent in each layer while profiled (the profiler adds overhead)."""

    total_s: float
    python_s: float
    dispatch_s: float
    executor_s: float
    kernels_s: float
    calls: int
    device_busy: float | None = None

    def fractions(self) -> dict[str, float]:
        return {layer: getattr(self, f"{layer}_s") / self.total_s for layer in HOST_LAYERS}

    def metrics(self) -> dict[str, float]:
        """What a results file stores: each layer's share, and the profiled wall time per call."""
        values = {f"{layer}_fraction": share for layer, share in self.fractions().items()}
        values["profiled_call_s"] = self.total_s
        values["profiled_calls"] = float(self.calls)
        if self.device_busy is not None:
            values["device_busy_fraction"] = self.device_busy
        return values


def trace_events(trace: Path) -> list[Event]:
    """The trace's complete events, converted by XProf's trace viewer converter.

    XProf caches derived files beside the trace it reads, so it reads a copy:
    a trace kept in ``results/`` stays alone in its folder.
    """
    from xprof.convert import raw_to_tool_data

    with tempfile.TemporaryDirectory(prefix="tfspeedlab-xprof-") as scratch:
        copy = Path(scratch) / "plugins" / "profile" / "run" / "host.xplane.pb"
        copy.parent.mkdir(parents=True)
        shutil.copyfile(trace, copy)
        data, _ = raw_to_tool_data.xspace_to_tool_data([str(copy)], "trace_viewer", {"use_saved_result": False})
    if not data:
        raise RuntimeError(f"XProf could not convert {trace} to trace events")
    return parse_trace_json(data if isinstance(data, str) else data.decode())


def parse_trace_json(text: str) -> list[Event]:
    """Complete events of a Chrome trace-event JSON document, each with its thread's name."""
    document = json.loads(text)
    raw = document["traceEvents"] if isinstance(document, dict) else document
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in raw
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    processes = {e["pid"]: e["args"]["name"] for e in raw if e.get("ph") == "M" and e.get("name") == "process_name"}
    events = []
    for e in raw:
        if e.get("ph") != "X":
            continue
        thread = threads.get((e["pid"], e.get("tid")), str(e.get("tid")))
        process = processes.get(e["pid"], "")
        events.append(Event(e["name"], f"{process}|{thread}", float(e["ts"]), float(e.get("dur", 0.0)),
                            e.get("args") or {}))
    return events


def breakdown(events: list[Event], wall_s: float, calls: int) -> Breakdown:
    """Per-call host time by layer; see the module docstring for the rules."""
    calling = calling_thread(events)
    host = [e for e in events if e.thread == calling]
    nested = _nesting(events)
    # Op events: innermost non-runtime events on worker threads, or on the
    # calling thread inside an execution (XLA runs small thunks inline).
    kernel_events = [e for e in events if not _on_device(e) and nested[id(e)].is_leaf
                     and not e.name.startswith(RUNTIME_FRAMES) and not _is_python(e)
                     and (e.thread != calling or nested[id(e)].in_execution)]
    totals = dict.fromkeys(HOST_LAYERS, 0.0)
    covered = 0.0
    for event in host:
        place = nested[id(event)]
        if place.depth == 0:
            covered += event.duration_us
        if place.in_execution:
            continue  # accounted for by the execution event around it
        if event.name.startswith(EXECUTION_EVENTS):
            kernels = _kernel_time(event, place.runs_function, kernel_events)
            totals["kernels"] += kernels
            totals["executor"] += event.duration_us - kernels
        elif _is_python(event):
            totals["python"] += place.self_us
        else:
            totals["dispatch"] += place.self_us
    wall_us = wall_s * calls / _US
    totals["python"] += max(wall_us - covered, 0.0)
    scale = _US / calls
    return Breakdown(total_s=sum(totals.values()) * scale, calls=calls,
                     **{f"{layer}_s": value * scale for layer, value in totals.items()},
                     device_busy=device_busy(events, wall_us))


@dataclass
class _Place:
    """Where an event sits among the events of its thread."""

    depth: int = 0
    self_us: float = 0.0
    is_leaf: bool = True
    in_execution: bool = False
    # For an execution event: it runs a function (graph or XLA), not one op.
    runs_function: bool = False


def _nesting(events: list[Event]) -> dict[int, _Place]:
    """Depth, self time, 'holds no op event' and 'inside an execution event' per event, thread by thread."""
    places: dict[int, _Place] = {}
    by_thread: dict[str, list[Event]] = {}
    for event in events:
        by_thread.setdefault(event.thread, []).append(event)
    for thread_events in by_thread.values():
        stack: list[Event] = []
        for event in sorted(thread_events, key=lambda e: (e.start_us, -e.duration_us)):
            while stack and stack[-1].end_us <= event.start_us:
                stack.pop()
            place = places[id(event)] = _Place(depth=len(stack), self_us=event.duration_us)
            if stack:
                parent = places[id(stack[-1])]
                parent.self_us -= event.duration_us
                place.in_execution = parent.in_execution or stack[-1].name.startswith(EXECUTION_EVENTS)
                if event.name.startswith(FUNCTION_EVENTS):
                    for ancestor in stack:
                        places[id(ancestor)].runs_function = True
            if not event.name.startswith(RUNTIME_FRAMES):
                # An op event inside another (an XLA thunk inside its launch)
                # makes the outer one a frame, however deep it sits.
                for ancestor in stack:
                    places[id(ancestor)].is_leaf = False
            stack.append(event)
    return places


def _kernel_time(run: Event, is_function: bool, kernel_events: list[Event]) -> float:
    """Kernel time within one execution event.

    A function's kernels are the op events within its span, on any thread
    (graph nodes on executor threads, XLA thunks). An eager op records no op
    event: its kernel runs inline, so the whole execution counts as kernel.
    """
    overlap = sum(min(e.end_us, run.end_us) - max(e.start_us, run.start_us)
                  for e in kernel_events if e.start_us < run.end_us and e.end_us > run.start_us)
    if overlap == 0.0 and is_function:
        raise RuntimeError(
            "the trace has a tf.function call with no kernel events inside it: TensorFlow's graph executor "
            "stops tracing kernels it has measured as cheap, so profile a freshly built tf.function "
            "(tf.function(python_fn)), not one that already ran many times")
    return run.duration_us if overlap == 0.0 else min(overlap, run.duration_us)


def calling_thread(events: Iterable[Event]) -> str:
    """The thread that entered the TensorFlow runtime from Python most: the one that made the calls."""
    entered: dict[str, float] = {}
    for event in events:
        if event.name.startswith("TFE_Py_"):
            entered[event.thread] = entered.get(event.thread, 0.0) + event.duration_us
    if not entered:
        raise RuntimeError("the trace has no TFE_Py_* events: no TensorFlow op was called from Python while profiling")
    return max(entered, key=entered.get)


def device_busy(events: list[Event], wall_us: float) -> float | None:
    """Share of the wall time when a GPU ran at least one kernel; None when the trace has no GPU."""
    intervals = sorted((e.start_us, e.end_us) for e in events if _on_device(e))
    if not intervals:
        return None
    busy, current_start, current_end = 0.0, *intervals[0]
    for start, end in intervals[1:]:
        if start > current_end:
            busy += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    busy += current_end - current_start
    return min(busy / wall_us, 1.0)


def _on_device(event: Event) -> bool:
    return event.thread.startswith("/device:GPU")


def _is_python(event: Event) -> bool:
    return event.name in PYTHON_ANNOTATIONS or "tf_function_call" in event.args
