"""Split the time of a call into Python, TensorFlow runtime and kernels, from a profiler trace.

``tf.profiler.experimental`` records host events in an XSpace protobuf
(``plugins/profile/<run>/<host>.xplane.pb``), times in picoseconds. The events
used here, checked on TensorFlow 2.21's CPU runtime:

* eager: each op is one ``TFE_Py_FastPathExecute_C`` (the C++ fast path entered
  from the Python op wrapper), inside which ``KernelAndDeviceFunc::Run`` runs the kernel;
* ``tf.function``: one ``TFE_Py_ExecuteCancelable`` per call; the executor runs
  each graph node as its own event on a ``tf_Compute`` thread;
* XLA: the compiled program runs as ``CpuExecutable::ExecuteAsyncOnStream``.

What lies outside those events within the wall time of a call is Python: the
op wrappers, argument conversion, ``tf.function``'s signature and cache work.
"""

from __future__ import annotations

import glob
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Events on executor threads that frame nodes rather than run them.
_EXECUTOR_FRAMES = ("ExecutorState", "ThreadpoolListener")
_PS = 1e-12


@dataclass(frozen=True)
class Breakdown:
    """Seconds per call spent in each layer while profiled (the profiler adds overhead)."""

    total_s: float
    python_s: float
    runtime_s: float
    kernels_s: float

    def fractions(self) -> dict[str, float]:
        return {name: getattr(self, f"{name}_s") / self.total_s for name in ("python", "runtime", "kernels")}


def capture(fn: Callable[..., Any], args: tuple, calls: int, logdir: Path | None = None) -> tuple[float, Path]:
    """Profile ``calls`` calls after two warm-up calls; return wall seconds per call and the trace file."""
    import tensorflow as tf

    for _ in range(2):
        _complete(fn(*args))
    logdir = Path(logdir or tempfile.mkdtemp(prefix="tfspeedlab-profile-"))
    tf.profiler.experimental.start(str(logdir))
    try:
        start = time.perf_counter()
        for _ in range(calls):
            _complete(fn(*args))
        wall_s = (time.perf_counter() - start) / calls
    finally:
        tf.profiler.experimental.stop()
    traces = sorted(glob.glob(str(logdir / "plugins" / "profile" / "*" / "*.xplane.pb")))
    if not traces:
        raise RuntimeError(f"the profiler wrote no trace under {logdir}")
    return wall_s, Path(traces[-1])


def event_totals(trace: Path) -> dict[str, float]:
    """Total seconds per event name: host-thread events by name, executor nodes as ``node``."""
    from tensorflow.tsl.profiler.protobuf import xplane_pb2

    space = xplane_pb2.XSpace()
    space.ParseFromString(trace.read_bytes())
    totals: dict[str, float] = {}
    for plane in space.planes:
        names = {key: meta.name for key, meta in plane.event_metadata.items()}
        for line in plane.lines:
            executor_thread = line.name.startswith("tf_Compute")
            for event in line.events:
                name = names.get(event.metadata_id, "")
                if executor_thread and not name.startswith(_EXECUTOR_FRAMES):
                    name = "node"
                totals[name] = totals.get(name, 0.0) + event.duration_ps * _PS
    return totals


def breakdown(totals: dict[str, float], wall_s: float, calls: int, mode: str) -> Breakdown:
    per_call = {name: seconds / calls for name, seconds in totals.items()}
    if mode == "eager":
        entered_runtime = per_call.get("TFE_Py_FastPathExecute_C", 0.0)
        kernels = per_call.get("KernelAndDeviceFunc::Run", 0.0)
    else:
        entered_runtime = per_call.get("TFE_Py_ExecuteCancelable", 0.0)
        kernels = per_call.get("CpuExecutable::ExecuteAsyncOnStream" if mode == "xla" else "node", 0.0)
    if not entered_runtime or not kernels:
        raise RuntimeError(f"the trace lacks the events this {mode} breakdown needs; found {sorted(per_call)[:20]}")
    return Breakdown(
        total_s=wall_s,
        python_s=max(wall_s - entered_runtime, 0.0),
        runtime_s=entered_runtime - kernels,
        kernels_s=kernels,
    )


def profile(fn: Callable[..., Any], args: tuple, mode: str, calls: int = 20,
            logdir: Path | None = None) -> Breakdown:
    wall_s, trace = capture(fn, args, calls, logdir)
    return breakdown(event_totals(trace), wall_s, calls, mode)


def _complete(output: Any) -> None:
    from tfspeedlab.completion import materialize

    materialize(output)
