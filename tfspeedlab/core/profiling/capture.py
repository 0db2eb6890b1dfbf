"""Profile calls of a function with TensorFlow's profiler and split their host time (``profile``)."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tfspeedlab.core.measure.completion import materialize
from tfspeedlab.core.profiling.trace import Breakdown, breakdown, trace_events


def capture(fn: Callable[..., Any], args: tuple, calls: int, logdir: Path | None = None) -> tuple[float, Path]:
    """Profile ``calls`` calls after two warm-up calls; return wall seconds per call and the trace file."""
    import tensorflow as tf

    for _ in range(2):
        _complete(fn(*args))
    logdir = Path(logdir or tempfile.mkdtemp(prefix="tfspeedlab-profile-"))
    # Level 3 (verbose): the graph executor traces only kernels it deems
    # expensive at the default level, and after a few hundred calls it deems
    # small ones cheap, so their time would vanish into "executor".
    options = tf.profiler.experimental.ProfilerOptions(host_tracer_level=3)
    tf.profiler.experimental.start(str(logdir), options=options)
    try:
        start = time.perf_counter()
        for _ in range(calls):
            _complete(fn(*args))
        wall_s = (time.perf_counter() - start) / calls
    finally:
        tf.profiler.experimental.stop()
    traces = sorted((logdir / "plugins" / "profile").glob("*/*.xplane.pb"))
    if not traces:
        raise RuntimeError(f"the profiler wrote no trace under {logdir}")
    return wall_s, traces[-1]


def profile(fn: Callable[..., Any], args: tuple, calls: int = 20, keep_trace_as: Path | None = None) -> Breakdown:
    """Profile ``calls`` calls and split their host time; optionally keep the raw trace (for XProf/TensorBoard).

    Give a freshly built ``tf.function``: the graph executor stops tracing the
    kernels it has measured as cheap after a while, and a function that ran
    for a whole benchmark would show no kernels at all.
    """
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-profile-") as logdir:
        wall_s, trace = capture(fn, args, calls, Path(logdir))
        if keep_trace_as is not None:
            shutil.copyfile(trace, keep_trace_as)
        return breakdown(trace_events(trace), wall_s, calls)


def _complete(output: Any) -> None:
    materialize(output)
