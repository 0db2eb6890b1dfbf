"""Diagnose a reader's own function: eager, ``tf.function`` and XLA timed side by side, the cost of
each first call and after how many calls it pays off, the traced graph's op count, a retracing
probe, the profiler's split of host time, and the function's place on the guide's cost model, with
the model's costs of an eager op and a ``tf.function`` call first timed on this machine
(``calibration``).

The three modes are timed in this process, block by block in turn (A B C A B C …) so that a burst
of load from elsewhere hits them alike; each mode's first call (tracing, compiling) is timed on
its own. The whole run keeps to one budget, counted from ``started`` (the command's first call of
the function): half of it goes to the timed blocks, which stop at the deadline once every mode has
``FLOOR_BLOCKS``; a mode whose first call would start after the deadline is not run; this
machine's costs, the retracing probe and the profiler run only while what they are expected to
cost still fits. A first call already started cannot be cut short, so a slow compile can overrun;
the report says by how much. Ctrl-C during the timed blocks keeps the blocks timed so far; during
a later part, what came before it. A ``KeyboardInterrupt`` the function raised itself is no Ctrl-C
(``reader_code.is_ctrl_c``): it goes on up, to be reported as the function's failure.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.measure.timer import TimedCall, bench_interleaved
from tfspeedlab.core.profiling.capture import profile
from tfspeedlab.core.profiling.trace import Breakdown
from tfspeedlab.core.resident_memory import HEAP_SHARE
from tfspeedlab.core.results.repo import REPO_ROOT
from tfspeedlab.core.results.schema import CaseResult, ResultsFileError
from tfspeedlab.core.results.store import load_runner
from tfspeedlab.core.stats import cost_model
from tfspeedlab.core.stats.memory_growth import FollowedMemory
from tfspeedlab.core.wording import Mode
from tfspeedlab.diagnosis.calibration import measure_machine_costs
from tfspeedlab.diagnosis.function_core import (CALIBRATION_PART, HOST_SPLIT_PART, MEMORY_PART, MODES, PROBE_PART,
                                                Calibration, Diagnosis, MachineCosts, Placement, RetraceProbe,
                                                host_split_part)
from tfspeedlab.diagnosis.memory_follow import calls_within, follow_within
from tfspeedlab.diagnosis.reader_code import is_ctrl_c
from tfspeedlab.diagnosis.targets import error_line
from tfspeedlab.harness import machine

# Share of the budget the timed blocks of the three modes get between them.
TIMING_SHARE = 0.5
# Profiled calls per mode: enough for shares that hold still, few enough for a slow function
# (as many as fit in this share of the budget, within those bounds).
PROFILED_CALLS = (3, 20)
PROFILE_SHARE = 0.02
# What one profile costs besides the calls: starting the profiler and converting its trace.
PROFILE_FIXED_S = 1.5
# The profiler slows each call (it records every op); the estimate allows for that.
PROFILER_SLOWDOWN = 3.0
# Graph ops that move or name values rather than compute: left out of the count the cost model takes.
NON_COMPUTE_OPS = frozenset({"Placeholder", "Const", "Identity", "IdentityN", "NoOp", "ReadVariableOp",
                             "VarHandleOp", "StopGradient", "_Arg", "_Retval"})
# Why a part Ctrl-C came before or during was not measured.
INTERRUPTED = "interrupted"
# Timed blocks each mode gets even when the deadline has passed: one block is no spread.
FLOOR_BLOCKS = 2
# The calls the least diagnosis makes: per mode, its first call, a warm-up, a calibration call and
# FLOOR_BLOCKS blocks of one call each (the command refuses a budget these would not fit in).
LEAST_CALLS = len(MODES) * (3 + FLOOR_BLOCKS)
# The retracing probe traces up to four times; each trace costs about a tf.function first call.
PROBE_TRACES = 4
# Share of the budget the memory follow of repeated calls gets; what it costs per call, against
# a timed call: the calls themselves, then HEAP_SHARE as many again under tracemalloc, which slows
# Python's allocations two to three times.
MEMORY_SHARE = 0.1
MEMORY_SLOWDOWN = 1 + 3 * HEAP_SHARE
BUDGET_SPENT_FIRST = "the budget was spent before its first call (give a larger --budget)"
# This machine's costs for the cost model (``calibration``): their timed blocks get this share of
# the budget, within these bounds (seconds); first calls and calibration add about half again.
CALIBRATION_SHARE = 0.05
CALIBRATION_S = (0.5, 3.0)
CALIBRATION_OVERHEAD = 1.5


def diagnose(fn: Callable[..., Any], *args: Any, budget_s: float = 10.0, **kwargs: Any) -> Diagnosis:
    """Time ``fn(*args, **kwargs)`` eagerly, as a ``tf.function`` and with XLA, and say what to do.

    ``budget_s`` caps the whole diagnosis (first calls excepted: tracing cannot be cut short)."""
    return measure(fn, args, kwargs, budget_s=budget_s, target=getattr(fn, "__qualname__", repr(fn)))


def measure(fn: Callable[..., Any], args: tuple, kwargs: Mapping[str, Any], *, budget_s: float, target: str,
            progress: Callable[[str], None] = lambda line: None, started: float | None = None) -> Diagnosis:
    """The diagnosis within ``budget_s`` seconds from ``started`` (``time.perf_counter``; default now)."""
    started = time.perf_counter() if started is None else started
    deadline = started + budget_s
    call = _bind(fn, kwargs)
    compiled = {mode: compile_as(call, mode) for mode in MODES}
    progress("first calls, warm-up and calibration of eager, tf.function and XLA (tracing, compiling) …")
    prepared, errors = _first_calls(compiled, args, budget_s, deadline)
    # Tracing and compiling, reported apart: it is paid once, however long the function runs.
    tracing_s = sum(timed.first_call_s for timed in prepared.values())
    progress(f"timing {', '.join(prepared)} in turn (about {budget_s * TIMING_SHARE:.3g} s) …")
    measured, interrupted = _time_in_turn(prepared, deadline)
    modes = {mode: CaseResult(mode, {}, measured[mode]) for mode in MODES if mode in measured}
    unavailable = {mode: errors.get(mode, "interrupted before its first timed block") for mode in MODES
                   if mode not in measured}
    graph = _concrete_graph(compiled["tf.function"], args)
    op_count = None if graph is None else len(graph.get_operations())
    compute_ops = None if graph is None else len(compute_operations(graph))
    # What Ctrl-C during the timed blocks, this machine's costs or the probe leaves: neither the
    # probe nor the split.
    cut_short = {PROBE_PART: INTERRUPTED, HOST_SPLIT_PART: INTERRUPTED}
    retracing, host_split, skipped = None, {}, dict(cut_short) if interrupted else {}
    placement = None
    if graph is not None:
        placement, why, cut = _placement(graph, budget_s, deadline, progress, calibrate=not interrupted)
        skipped.update({CALIBRATION_PART: why} if why else {})
        if cut:
            interrupted = True
            skipped.update(cut_short)
    if not interrupted:
        probe_needs_s = PROBE_TRACES * (prepared["tf.function"].first_call_s if "tf.function" in prepared else 0.0)
        if "tf.function" in prepared and probe_needs_s > deadline - time.perf_counter():
            skipped[PROBE_PART] = f"the budget was spent; it needs about {probe_needs_s:.2g} s"
        else:
            retracing, probe_s = _probe(fn, args, kwargs, progress)
            tracing_s += probe_s
            interrupted = retracing is None
            if interrupted:
                skipped.update(cut_short)
    if not interrupted:
        host_split, split_skipped, interrupted = _host_splits(call, args, measured, budget_s=budget_s,
                                                              spent_at=deadline, progress=progress)
        skipped.update(split_skipped)
    memory = None
    if interrupted:
        skipped[MEMORY_PART] = INTERRUPTED
    else:
        memory, why, interrupted = _follow_memory(call, args, measured["eager"], budget_s, deadline, progress)
        if why:
            skipped[MEMORY_PART] = why
    return Diagnosis(target, modes, op_count, retracing, host_split, placement, skipped,
                     budget_s=budget_s, elapsed_s=time.perf_counter() - started, tracing_s=tracing_s,
                     interrupted=interrupted, compute_op_count=compute_ops, memory=memory, unavailable=unavailable)


def _follow_memory(call: Callable[..., Any], args: tuple, eager: Measurement, budget_s: float, deadline: float,
                   progress: Callable[[str], None]) -> tuple[FollowedMemory | None, str | None, bool]:
    """Resident memory over repeated calls of the function as the reader gave it, when what that is
    expected to cost fits before the deadline: the memory followed, why it was not (or None), and
    whether Ctrl-C cut it short."""
    calls = calls_within(eager.median_s, MEMORY_SHARE * budget_s)
    expected = calls * eager.median_s * MEMORY_SLOWDOWN
    if expected > deadline - time.perf_counter():
        return None, f"the budget was spent; it needs about {expected:.2g} s", False
    try:
        return follow_within(lambda: call(*args), calls, "function", progress), None, False
    except KeyboardInterrupt:
        if not is_ctrl_c():
            raise
        return None, INTERRUPTED, True


def _first_calls(compiled: Mapping[str, Callable[..., Any]], args: tuple, budget_s: float,
                 deadline: float) -> tuple[dict[str, TimedCall], dict[str, str]]:
    """Each mode's first call, warm-up and calibration, ready to time; and why each mode that
    raised, or would have started after the deadline, could not run (eager raising is the
    reader's error, and stops the diagnosis; eager always runs)."""
    prepared, errors = {}, {}
    for mode, function in compiled.items():
        if mode != "eager" and time.perf_counter() >= deadline:
            errors[mode] = BUDGET_SPENT_FIRST
            continue
        try:
            prepared[mode] = TimedCall(function, args, budget_s=budget_s * TIMING_SHARE / len(MODES))
        except Exception as error:  # noqa: BLE001 (the reader's code may raise anything; say what)
            if mode == "eager":
                raise
            errors[mode] = error_line(error)
    return prepared, errors


def _time_in_turn(prepared: Mapping[str, TimedCall], deadline: float) -> tuple[dict[str, Measurement], bool]:
    """Each mode's blocks, timed in turn until their share of the budget or the deadline, and
    whether Ctrl-C cut them short: the blocks timed so far still stand (a shorter run, not a wrong
    one), unless eager has none."""
    try:
        found = bench_interleaved(list(prepared.values()), until=deadline, floor=FLOOR_BLOCKS)
        return dict(zip(prepared, found)), False
    except KeyboardInterrupt:
        measured = {mode: timed.result() for mode, timed in prepared.items() if timed.samples}
        if "eager" not in measured or not is_ctrl_c():
            raise
        return measured, True


def _probe(fn: Callable[..., Any], args: tuple, kwargs: Mapping[str, Any],
           progress: Callable[[str], None]) -> tuple[RetraceProbe | None, float]:
    """The retracing probe and the seconds it took; (None, 0) when Ctrl-C cut it short."""
    progress("probing for retracing (another batch size, other Python numbers) …")
    started = time.perf_counter()
    try:
        return probe_retracing(fn, args, kwargs), time.perf_counter() - started
    except KeyboardInterrupt:
        if not is_ctrl_c():
            raise
        return None, 0.0


def compile_as(call: Callable[..., Any], mode: str) -> Callable[..., Any]:
    """``call`` as ``mode`` runs it: itself, or a new ``tf.function`` (with XLA for "XLA")."""
    import tensorflow as tf

    if mode == "eager":
        return call
    # jit_compile left unset for the plain tf.function: False would also turn off auto-clustering.
    return tf.function(call, jit_compile=True) if mode == "XLA" else tf.function(call)


def _host_splits(call: Callable[..., Any], args: tuple, measured: Mapping[str, Measurement], *, budget_s: float,
                 spent_at: float, progress: Callable[[str], None]) -> tuple[dict[str, Breakdown], dict[str, str], bool]:
    """Each mode profiled while what that is expected to cost fits before the budget is spent (at
    ``spent_at``, on ``time.perf_counter``'s clock): the host-time splits, the parts skipped and
    why, and whether Ctrl-C cut it short."""
    splits: dict[str, Breakdown] = {}
    skipped: dict[str, str] = {}
    try:
        for mode, measurement in measured.items():
            calls = int(min(max(PROFILE_SHARE * budget_s / measurement.median_s, PROFILED_CALLS[0]),
                            PROFILED_CALLS[1]))
            expected = (measurement.first_call_s + PROFILE_FIXED_S
                        + (calls + 2) * measurement.median_s * PROFILER_SLOWDOWN)
            if expected > spent_at - time.perf_counter():
                skipped[host_split_part(mode)] = f"the budget was spent; it needs about {expected:.2g} s"
                continue
            progress(f"profiling {calls} {mode} calls for the host-time split …")
            # A fresh function each time: the graph executor stops tracing kernels it has timed as
            # cheap, so a function that ran through the whole benchmark would show no kernel time.
            function = compile_as(call, mode)
            try:
                splits[mode] = profile(function, args, calls=calls)
            except Exception as error:  # noqa: BLE001 (a profiler that cannot run costs this part, not the report)
                skipped[host_split_part(mode)] = f"the profiler failed: {error_line(error)}"
    except KeyboardInterrupt:
        if not is_ctrl_c():
            raise
        if len(splits) < len(measured):
            skipped[HOST_SPLIT_PART] = INTERRUPTED
        return splits, skipped, True
    return splits, skipped, False


def _placement(graph: Any, budget_s: float, deadline: float, progress: Callable[[str], None], *,
               calibrate: bool) -> tuple[Placement | None, str | None, bool]:
    """The function on the guide's cost model, with this machine's costs timed first when that is
    expected to fit before the deadline: the placement (None without the guide's sweeps or a
    shape to place), why this machine's costs were not timed (None when they were), and whether
    Ctrl-C cut their timing short. Without them, every cost is the guide's machine's, and the
    report says so."""
    fitted = guide_cost_model()
    if fitted is None or chain_shape(graph) is None:
        return None, None, False
    if not calibrate:
        return place_on_cost_model(graph, fitted), INTERRUPTED, False
    seconds = calibration_seconds(budget_s)
    needs_s = seconds * CALIBRATION_OVERHEAD
    if needs_s > deadline - time.perf_counter():
        return place_on_cost_model(graph, fitted), f"the budget was spent; it needs about {needs_s:.2g} s", False
    progress(f"timing eager ops and a tf.function call on this machine, for the cost model (about {seconds:.2g} s) …")
    try:
        here = measure_machine_costs(seconds)
    except KeyboardInterrupt:
        return place_on_cost_model(graph, fitted), INTERRUPTED, True
    return place_on_cost_model(graph, fitted, here), None, False


def calibration_seconds(budget_s: float) -> float:
    """The timed blocks of this machine's costs: a share of the budget, within bounds."""
    return min(max(CALIBRATION_SHARE * budget_s, CALIBRATION_S[0]), CALIBRATION_S[1])


@dataclass(frozen=True)
class FittedModel:
    """The guide's cost model and the CPU its sweeps ran on."""

    model: cost_model.CostModel
    fitted_on: str


def guide_cost_model(results_root: Path = REPO_ROOT / "results") -> FittedModel | None:
    """The guide's cost model, fitted on the GPU runner's sweeps when this machine has a GPU and
    they exist, else the CPU runner's; None without committed sweeps."""
    import tensorflow as tf

    runners = (["gpu"] if tf.config.list_physical_devices("GPU") else []) + ["cpu"]
    for runner in runners:
        folder = results_root / runner
        try:
            results = load_runner(folder, runner) if folder.is_dir() else {}
        except ResultsFileError:
            continue
        if cost_model.can_fit(results):
            return FittedModel(cost_model.fit(results, runner),
                               cost_model.fitting_sweeps(results)["n_ops"].environment["cpu_model"])
    return None


def place_on_cost_model(graph: Any, fitted: FittedModel, here: MachineCosts | None = None) -> Placement | None:
    """The function beside the guide's cost model: a chain of as many elementwise ops on tensors of
    its median size, with this machine's costs (``here``) in place of the guide's where given;
    None where the graph has no compute op of a known size."""
    shape = chain_shape(graph)
    if shape is None:
        return None
    model, calibration = fitted.model, None
    if here is not None:
        guide = MachineCosts(eager_op_s=model.modes["eager"].op_s, graph_call_s=model.modes["graph"].call_s)
        calibration = Calibration(machine.cpu_model(), here, guide)
        model = model.with_reader_costs(graph_call_s=here.graph_call_s, eager_op_s=here.eager_op_s)
    ops, elements = shape
    return Placement(model.runner, fitted.fitted_on, ops, elements,
                     {mode: model.per_call(Mode.named(mode).cost_model_name, ops, elements) for mode in MODES},
                     {mode: model.band[Mode.named(mode).cost_model_name] for mode in MODES},
                     extrapolated=ops > model.measured_ops or elements > model.measured_elements,
                     calibration=calibration)


def chain_shape(graph: Any) -> tuple[int, int] | None:
    """(ops, elements): the graph's compute ops and the median element count of their outputs, the
    chain the cost model prices; None where no compute op has an output of known size."""
    compute = compute_operations(graph)
    sizes = [shape.num_elements() for op in compute for shape in [op.outputs[0].shape] if op.outputs
             and shape.is_fully_defined()]
    if not compute or not sizes:
        return None
    return len(compute), int(statistics.median(sizes))


def compute_operations(graph: Any) -> list[Any]:
    return [op for op in graph.get_operations() if op.type not in NON_COMPUTE_OPS]


def probe_retracing(fn: Callable[..., Any], args: tuple, kwargs: Mapping[str, Any]) -> RetraceProbe:
    """Call a fresh ``tf.function`` of ``fn`` as given, then with one more row in every tensor
    argument, then twice with every Python number argument (positional or keyword) scaled: the
    traces each adds, and how long a call that retraced for a new number took."""
    import tensorflow as tf

    function = tf.function(fn)
    function(*args, **kwargs)
    first = function.experimental_get_tracing_count()
    batch_traces, unprobed = None, "no tensor argument"
    if any(_batched(arg) for arg in (*args, *kwargs.values())):
        batch_traces = _extra_traces(function, [(tuple(_other_batch(arg) for arg in args),
                                                 {key: _other_batch(value) for key, value in kwargs.items()})])
        unprobed = "the function does not accept one more row" if batch_traces is None else None
    number_traces, retrace_s = None, None
    if any(_python_number(arg) for arg in (*args, *kwargs.values())):
        calls = [(tuple(_scaled(arg, factor) for arg in args),
                  {key: _scaled(value, factor) for key, value in kwargs.items()}) for factor in (2, 3)]
        started = time.perf_counter()
        number_traces = _extra_traces(function, calls)
        if number_traces:
            retrace_s = (time.perf_counter() - started) / len(calls)
    return RetraceProbe(first, batch_traces, number_traces, unprobed, retrace_s)


def _extra_traces(function: Any, calls: list[tuple[tuple, dict]]) -> int | None:
    """Traces the calls added; None when the function does not accept such inputs (a square
    matrix given one more row), which is no retracing problem."""
    before = function.experimental_get_tracing_count()
    try:
        for args, kwargs in calls:
            function(*args, **kwargs)
    except Exception:  # noqa: BLE001 (the reader's function decides what it accepts)
        return None
    return function.experimental_get_tracing_count() - before


def _scaled(value: Any, factor: int) -> Any:
    return value * factor if _python_number(value) else value


def _bind(fn: Callable[..., Any], kwargs: Mapping[str, Any]) -> Callable[..., Any]:
    if not kwargs:
        return fn

    def bound(*args: Any) -> Any:
        return fn(*args, **kwargs)

    return bound


def _concrete_graph(function: Any, args: tuple) -> Any:
    try:
        return function.get_concrete_function(*args).graph
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
