"""Diagnose a reader's own function: eager, ``tf.function`` and XLA timed side by side, the cost of
each first call and after how many calls it pays off, the traced graph's op count, a retracing
probe, and a verdict in plain words.

The three modes are timed in this process, block by block in turn (A B C A B C …) so that a burst
of load from elsewhere hits them alike; each mode's first call (tracing, compiling) is timed on
its own. The speed-ups come with the same bootstrap intervals as every page of the guide.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tfspeedlab.analysis import intervals
from tfspeedlab.measure.measurement import Measurement
from tfspeedlab.measure.timer import TimedCall, bench_interleaved

MODES = ("eager", "tf.function", "XLA")
# A speed-up smaller than this is reported as no material difference, whatever its interval:
# a graph that saves 1% on a kernel-bound function is not worth its tracing.
MATERIAL_SPEEDUP = 1.10


@dataclass(frozen=True)
class ModeResult:
    mode: str
    measurement: Measurement | None
    error: str | None = None  # why the mode could not run (XLA cannot compile an op, say)

    @property
    def first_call_s(self) -> float | None:
        return self.measurement.first_call_s if self.measurement else None


@dataclass(frozen=True)
class RetraceProbe:
    """How often a ``tf.function`` of the reader's function traced when called the ways programs
    call it: once as given, then with another batch size, then with other Python numbers."""

    first_traces: int
    batch_size_traces: int | None  # extra traces for another batch size (None: no tensor argument)
    python_number_traces: int | None  # extra traces for two other Python numbers (None: none taken)

    @property
    def fixes(self) -> list[str]:
        found = []
        if self.batch_size_traces:
            found.append("give the tf.function an input_signature with None for the batch dimension, "
                         "or reduce_retracing=True")
        if self.python_number_traces:
            found.append("pass the numbers as tensors (tf.constant) instead of Python floats or ints")
        return found


@dataclass(frozen=True)
class Diagnosis:
    modes: dict[str, ModeResult]
    speedups: dict[str, intervals.Ratio]  # eager time ÷ the mode's time
    break_even_calls: dict[str, float | None]  # calls after which the mode's first call has paid off
    op_count: int | None
    retracing: RetraceProbe
    # The tf.function's time ÷ XLA's: above 1, XLA is the faster of the two compiled modes.
    xla_over_graph: intervals.Ratio | None = None

    @property
    def verdict(self) -> str:
        return verdict(self)


def diagnose(fn: Callable[..., Any], *args: Any, budget_s: float = 1.0, **kwargs: Any) -> Diagnosis:
    """Time ``fn(*args, **kwargs)`` eagerly, as a ``tf.function`` and with XLA, and say what to do."""
    import tensorflow as tf

    call = _bind(fn, kwargs)
    compiled = {"eager": call, "tf.function": tf.function(call),
                "XLA": tf.function(call, jit_compile=True)}
    prepared, errors = {}, {}
    for mode, function in compiled.items():
        try:
            prepared[mode] = TimedCall(function, args, budget_s=budget_s)
        except Exception as error:  # noqa: BLE001 (the reader's code may raise anything; say what)
            if mode == "eager":
                raise
            errors[mode] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    measured = dict(zip(prepared, bench_interleaved(list(prepared.values()))))
    modes = {mode: ModeResult(mode, measured.get(mode), errors.get(mode)) for mode in MODES}
    eager = measured["eager"]
    speedups = {mode: intervals.ratio([eager], [measurement]) for mode, measurement in measured.items()
                if mode != "eager"}
    both = "tf.function" in measured and "XLA" in measured
    return Diagnosis(modes, speedups,
                     {mode: break_even(eager, measurement) for mode, measurement in measured.items() if mode != "eager"},
                     _op_count(compiled["tf.function"], args), probe_retracing(fn, args, kwargs),
                     intervals.ratio([measured["tf.function"]], [measured["XLA"]]) if both else None)


def break_even(eager: Measurement, mode: Measurement) -> float | None:
    """Calls after which ``mode``'s costlier first call (tracing, compiling) is paid back by its
    cheaper calls; None when it is not cheaper per call."""
    saving = eager.median_s - mode.median_s
    if saving <= 0:
        return None
    extra = mode.first_call_s - eager.first_call_s
    # The tolerance keeps 9 ms ÷ 0.9 ms at 10 calls, not the 11 that rounding error would give.
    return max(1.0, math.ceil(extra / saving - 1e-9)) if extra > 0 else 1.0


def probe_retracing(fn: Callable[..., Any], args: tuple, kwargs: Mapping[str, Any]) -> RetraceProbe:
    import tensorflow as tf

    function = tf.function(_bind(fn, kwargs))
    function(*args)
    first = function.experimental_get_tracing_count()
    batch_traces = None
    if any(_batched(arg) for arg in args):
        batch_traces = _extra_traces(function, [tuple(_other_batch(arg) for arg in args)])
    number_traces = None
    if any(_python_number(arg) for arg in args):
        number_traces = _extra_traces(function, [tuple(arg * factor if _python_number(arg) else arg for arg in args)
                                                 for factor in (2, 3)])
    return RetraceProbe(first, batch_traces, number_traces)


def _extra_traces(function: Any, calls: list[tuple]) -> int | None:
    """Traces the calls added; None when the function does not accept such inputs (a square
    matrix given one more row), which is no retracing problem."""
    before = function.experimental_get_tracing_count()
    try:
        for args in calls:
            function(*args)
    except Exception:  # noqa: BLE001 (the reader's function decides what it accepts)
        return None
    return function.experimental_get_tracing_count() - before


def verdict(diagnosis: Diagnosis) -> str:
    """What to do, in plain words, from the intervals: never a word the interval does not carry."""
    graph = diagnosis.speedups.get("tf.function")
    lines = []
    if graph is None:
        lines.append(f"tf.function could not run: {diagnosis.modes['tf.function'].error}.")
    elif graph.low >= MATERIAL_SPEEDUP:
        calls = diagnosis.break_even_calls["tf.function"]
        lines.append(f"Wrap it in tf.function: {graph.value:.3g}× faster per call (95% interval "
                     f"{graph.low:.3g}–{graph.high:.3g}×); its first call is paid back after "
                     f"{calls:,.0f} call{'s' if calls != 1 else ''}.")
    elif graph.high <= 1 / MATERIAL_SPEEDUP:
        lines.append(f"tf.function makes it slower ({1 / graph.value:.3g}× slower per call, 95% interval "
                     f"{1 / graph.high:.3g}–{1 / graph.low:.3g}×): a graph call costs more than this "
                     "function's ops take eagerly, so leave it eager.")
    else:
        lines.append("tf.function makes no material difference per call: the time is in the kernels, "
                     "not in issuing ops from Python.")
    graph_helps = graph is not None and graph.low >= MATERIAL_SPEEDUP
    # XLA against the better of the two it would replace: the tf.function where that helps, else eager.
    versus, against = ((diagnosis.xla_over_graph, "the plain tf.function") if graph_helps
                       else (diagnosis.speedups.get("XLA"), "eager"))
    if versus is not None:
        if versus.low >= MATERIAL_SPEEDUP:
            lines.append(f"XLA (jit_compile=True) is faster than {against}: {versus.value:.3g}× "
                         f"(95% interval {versus.low:.3g}–{versus.high:.3g}×).")
        elif versus.high <= 1 / MATERIAL_SPEEDUP:
            lines.append(f"XLA (jit_compile=True) is slower than {against} ({1 / versus.value:.3g}× slower): "
                         "leave it off.")
    elif "XLA" not in diagnosis.speedups:
        lines.append(f"XLA could not compile it: {diagnosis.modes['XLA'].error}.")
    if fixes := diagnosis.retracing.fixes:
        lines.append("It retraces when called differently: " + "; ".join(fixes) + ".")
    return " ".join(lines)


def _bind(fn: Callable[..., Any], kwargs: Mapping[str, Any]) -> Callable[..., Any]:
    if not kwargs:
        return fn

    def bound(*args: Any) -> Any:
        return fn(*args, **kwargs)

    return bound


def _op_count(function: Any, args: tuple) -> int | None:
    try:
        return len(function.get_concrete_function(*args).graph.get_operations())
    except Exception:  # noqa: BLE001 (a function that cannot be traced has no graph to count)
        return None


def _batched(value: Any) -> bool:
    shape = getattr(value, "shape", None)
    return shape is not None and len(shape) >= 1 and hasattr(value, "dtype")


def _other_batch(value: Any) -> Any:
    """The same tensor with one more row: another batch size."""
    import tensorflow as tf

    return tf.concat([value, value[:1]], axis=0) if _batched(value) else value


def _python_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
