"""What ``tfspeedlab diagnose`` found about a reader's function, and what to do about it.

The measuring is ``tfspeedlab.run.diagnose``; this module holds what it measured (each mode's
raw blocks, the retracing probe, the profiler's host-time split, the function's place on the
guide's cost model), derives the speed-ups and break-evens from the raw blocks, and words the
verdict. A diagnosis round-trips through JSON unchanged, so a committed report renders on the site
exactly as the terminal printed it: everything derived is recomputed from the same blocks (the
bootstrap is seeded by the samples, so it gives the same interval again).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tfspeedlab.analysis import intervals
from tfspeedlab.measure.measurement import Measurement
from tfspeedlab.profiling.trace import HOST_LAYERS, Breakdown
from tfspeedlab.units import format_ratio, format_significant, format_time

MODES = ("eager", "tf.function", "XLA")
# The cost model's name for each mode (analysis.cost_model.MODES).
COST_MODEL_MODES = {"eager": "eager", "tf.function": "graph", "XLA": "xla"}
# A speed-up smaller than this is reported as no material difference, whatever its interval:
# a graph that saves 1% on a kernel-bound function is not worth its tracing.
MATERIAL_SPEEDUP = 1.10
# The fixes for the two retracing traps the probe looks for.
NUMBER_FIX = "Pass the numbers as tensors (tf.constant) instead of Python floats or ints."
BATCH_FIX = ("A new batch size traces it again: if it will see batches of several sizes, give the tf.function "
             "an input_signature with None for the batch dimension, or reduce_retracing=True.")
# What ``Diagnosis.skipped`` calls the probe (and, by ``host_split_part``, one mode's profile).
PROBE_PART = "retracing probe"
# The guide's pages each finding links to (relative to the site's root).
PAGES = {"overhead": ("small-ops.md", "Many small ops"), "kernel": ("matmul.md", "One big op"),
         "xla": ("xla.md", "XLA: when jit_compile=True pays"), "tracing": ("tracing.md", "The cost of tracing"),
         "layers": ("where-time-goes.md", "Where the time goes"),
         "worth": ("worth-it.md", "When is tf.function worth it?")}


@dataclass(frozen=True)
class ModeResult:
    mode: str
    runs: tuple[Measurement, ...]  # one per process the mode was timed in
    error: str | None = None  # why the mode could not run (XLA cannot compile an op, say)

    @cached_property
    def measurement(self) -> Measurement | None:
        """The runs as one: every block, and the median first call."""
        if len(self.runs) <= 1:
            return self.runs[0] if self.runs else None
        first = self.runs[0]
        return Measurement(tuple(sample for run in self.runs for sample in run.samples_s), first.calls_per_block,
                           statistics.median(run.first_call_s for run in self.runs), first.completion)

    @property
    def first_call_s(self) -> float | None:
        return self.measurement.first_call_s if self.measurement else None


@dataclass(frozen=True)
class RetraceProbe:
    """How often a ``tf.function`` of the reader's function traced when called the ways programs
    call it: once as given, then with another batch size, then with other Python numbers."""

    first_traces: int
    batch_size_traces: int | None  # extra traces for another batch size (None: not probed, see below)
    python_number_traces: int | None  # extra traces for two other Python numbers (None: none taken)
    # Why the batch size was not probed: "no tensor argument", or "the function does not accept
    # one more row" (a square matrix); None when it was.
    batch_size_unprobed: str | None = None
    # Seconds per call that retraced for a new Python number: what each such call costs.
    retrace_s: float | None = None

    @property
    def fixes(self) -> list[str]:
        """The fix for each trap found, as the verdict words it."""
        return ([NUMBER_FIX] if self.python_number_traces else []) + ([BATCH_FIX] if self.batch_size_traces else [])


@dataclass(frozen=True)
class Placement:
    """The function set against the guide's cost model: what a chain of as many elementwise ops,
    on tensors of its typical size, costs per call in each mode on the runner the model was fitted
    on, beside what the function measured."""

    runner: str
    fitted_on: str  # the CPU the model's sweeps ran on: the reader's machine may be faster or slower
    ops: int  # the traced graph's ops that compute (placeholders, constants, identities left out)
    elements: int  # the median element count of their outputs
    predicted_s: dict[str, float]  # by diagnosis mode
    band: dict[str, float]  # the model's worst relative miss on the guide's own chains, by mode
    extrapolated: bool  # ops or elements beyond what the model was fitted on

    def measured_over_predicted(self, diagnosis: Diagnosis, mode: str) -> float | None:
        runs = diagnosis.modes[mode].runs
        if not runs or mode not in self.predicted_s:
            return None
        return intervals.estimate_s(list(runs)) / self.predicted_s[mode]

    def reading(self, diagnosis: Diagnosis) -> str:
        """What the eager ratio says: the model counts issuing ops and elementwise arithmetic, so a
        function far above it spends its time in heavier kernels."""
        ratio = self.measured_over_predicted(diagnosis, "eager")
        if ratio is None:
            return ""
        band = self.band["eager"]
        chain, verb = (f"{self.ops:,} elementwise ops of this size", "cost") if self.ops != 1 else (
            "1 elementwise op of this size", "costs")
        if ratio > 1 + max(band, 1.0):
            return (f"eagerly it takes {ratio:.3g}× what {chain} {verb}: its kernels do "
                    "more work than elementwise arithmetic (a matmul, a convolution), and that work is "
                    "the same in every mode")
        if ratio < 1 / (1 + max(band, 1.0)):
            return (f"eagerly it takes {ratio:.3g}× what {chain} {verb}: many of its "
                    "ops are cheaper to issue than the guide's (shape or control ops)")
        return (f"eagerly it costs what {chain} {verb} in the guide "
                f"({ratio:.3g}× the model's prediction): its time is the cost of issuing ops")


@dataclass(frozen=True)
class Diagnosis:
    target: str
    modes: dict[str, ModeResult]
    op_count: int | None  # every op of the traced graph
    retracing: RetraceProbe | None  # None when the probe was skipped (budget spent, Ctrl-C)
    host_split: dict[str, Breakdown] = field(default_factory=dict)  # by mode, from the profiler
    placement: Placement | None = None
    skipped: dict[str, str] = field(default_factory=dict)  # part → why it was not measured
    budget_s: float | None = None
    elapsed_s: float | None = None
    tracing_s: float | None = None  # of elapsed_s: first calls and the retracing probe, outside the budget
    interrupted: bool = False
    # The traced graph's ops that compute: placeholders, constants and identities left out.
    compute_op_count: int | None = None

    @cached_property
    def measured(self) -> dict[str, Measurement]:
        return {mode: result.measurement for mode, result in self.modes.items() if result.measurement}

    @property
    def processes(self) -> int:
        return len(self.modes["eager"].runs)

    @cached_property
    def speedups(self) -> dict[str, intervals.Ratio]:
        """Eager time ÷ each compiled mode's, with its bootstrap interval (over processes, then
        blocks, where there are several, as for the guide's full runs)."""
        if "eager" not in self.measured:
            return {}
        return {mode: intervals.ratio(list(self.modes["eager"].runs), list(self.modes[mode].runs))
                for mode in self.measured if mode != "eager"}

    @cached_property
    def xla_over_graph(self) -> intervals.Ratio | None:
        """The tf.function's time ÷ XLA's: above 1, XLA is the faster of the two compiled modes."""
        if "tf.function" in self.measured and "XLA" in self.measured:
            return intervals.ratio(list(self.modes["tf.function"].runs), list(self.modes["XLA"].runs))
        return None

    @cached_property
    def per_call_s(self) -> dict[str, float]:
        """Each mode's time per call by the guide's estimator (the 10th percentile of all blocks:
        a call nothing else on the machine got in the way of), which the speed-ups divide."""
        return {mode: intervals.estimate_s(list(self.modes[mode].runs)) for mode in self.measured}

    @cached_property
    def break_even_calls(self) -> dict[str, float | None]:
        """Calls after which each mode's first call is paid back against eager; None where the
        mode is not clearly faster per call (its interval reaches 1), as a saving that may be
        noise pays back nothing."""
        return {mode: self._paid_back(mode, "eager", self.speedups[mode]) for mode in self.speedups}

    @cached_property
    def xla_break_even_over_graph(self) -> float | None:
        """Calls after which XLA's compiling is paid back against the plain tf.function."""
        versus = self.xla_over_graph
        return None if versus is None else self._paid_back("XLA", "tf.function", versus)

    def _paid_back(self, mode: str, against: str, speedup: intervals.Ratio) -> float | None:
        if speedup.low <= 1:
            return None
        return break_even(self.per_call_s[against], self.measured[against].first_call_s,
                          self.per_call_s[mode], self.measured[mode].first_call_s)

    @property
    def verdict(self) -> str:
        return verdict(self)

    @property
    def links(self) -> list[tuple[str, str]]:
        """The guide's pages that explain this diagnosis, as (page, title)."""
        return [PAGES[topic] for topic in topics(self)]


def break_even(before_s: float, before_first_s: float, after_s: float, after_first_s: float) -> float | None:
    """Calls after which a mode's costlier first call (tracing, compiling) is paid back by its
    cheaper calls, against the mode it replaces; None when it is not cheaper per call."""
    saving = before_s - after_s
    if saving <= 0:
        return None
    extra = after_first_s - before_first_s
    # The tolerance keeps 9 ms ÷ 0.9 ms at 10 calls, not the 11 that rounding error would give.
    return max(1.0, math.ceil(extra / saving - 1e-9)) if extra > 0 else 1.0


def material(speedup: intervals.Ratio) -> str:
    """A speed-up in the verdict's words: "faster" or "slower" only when its whole interval is past
    the material threshold, else "no material difference"."""
    if speedup.low >= MATERIAL_SPEEDUP:
        return "faster"
    if speedup.high <= 1 / MATERIAL_SPEEDUP:
        return "slower"
    return "no material difference"


def agrees(diagnosed: intervals.Ratio, full_run: intervals.Ratio) -> bool:
    """Whether a diagnosis's speed-up says what a full run's does. The diagnosis words it with the
    material threshold, the guide's pages with the side of 1 the interval lies on: the two agree
    when both say faster, or both slower, or the diagnosis finds no material difference and the
    full run finds none either or one smaller than the threshold (its interval reaches into the
    band between 1/1.10 and 1.10)."""
    word, page_word = material(diagnosed), intervals.verdict(full_run)
    if word != "no material difference":
        return word == page_word
    return page_word == "no clear difference" or (full_run.low < MATERIAL_SPEEDUP and
                                                  full_run.high > 1 / MATERIAL_SPEEDUP)


def host_split_part(mode: str) -> str:
    return f"host-time split, {mode}"


def graph_helps(diagnosis: Diagnosis) -> bool:
    graph = diagnosis.speedups.get("tf.function")
    return graph is not None and material(graph) == "faster"


def verdict(diagnosis: Diagnosis) -> str:
    """What to do, in plain words, from the intervals: never a word the interval does not carry."""
    if "eager" not in diagnosis.measured:
        return "Nothing was timed (interrupted before the first timed block)."
    graph = diagnosis.speedups.get("tf.function")
    probe = diagnosis.retracing
    lines = []
    # A function that retraces on every new number pays a first call each time: that comes first.
    retraces = probe is not None and bool(probe.python_number_traces)
    if retraces:
        lines.append(_retracing_first(diagnosis))
    word = material(graph) if graph is not None else None
    if graph is None:
        lines.append(f"tf.function could not run: {diagnosis.modes['tf.function'].error}.")
    elif word == "faster":
        calls = diagnosis.break_even_calls["tf.function"]
        lines.append(f"{'With that fixed, wrap' if retraces else 'Wrap'} it in tf.function: "
                     f"{_faster(graph, 'per call')}; its first call is paid back after {calls:,.0f} "
                     f"call{'s' if calls != 1 else ''}.")
    elif word == "slower":
        lines.append(f"tf.function makes it slower per call ({_slower(graph)}): a graph call costs more "
                     "than this function's ops take eagerly, so leave it eager.")
    else:
        lines.append(f"tf.function makes no material difference per call ({_bare(graph)}): the time is in "
                     "the kernels, not in issuing ops from Python.")
    # XLA against the better of the two it would replace: the tf.function where that helps, else eager.
    versus, against = ((diagnosis.xla_over_graph, "the plain tf.function") if graph_helps(diagnosis)
                       else (diagnosis.speedups.get("XLA"), "eager"))
    if versus is not None:
        if material(versus) == "faster":
            calls = diagnosis.xla_break_even_over_graph if against != "eager" else diagnosis.break_even_calls["XLA"]
            lines.append(f"XLA (jit_compile=True) is faster than {against}: {_faster(versus)}"
                         + (f"; its compiling is paid back against {against} after {calls:,.0f} calls." if calls
                            else "."))
        elif material(versus) == "slower":
            lines.append(f"XLA (jit_compile=True) is slower than {against} ({_slower(versus)}): leave it off.")
        else:
            lines.append(f"XLA (jit_compile=True) makes no material difference against {against} "
                         f"({_bare(versus)}: the interval does not lie wholly past {MATERIAL_SPEEDUP:.2f}× "
                         "either way).")
    elif diagnosis.modes["XLA"].error:
        lines.append(f"XLA could not compile it: {diagnosis.modes['XLA'].error}.")
    if probe is not None and probe.batch_size_traces:
        lines.append(BATCH_FIX)
    if diagnosis.interrupted:
        lines.append("(Interrupted: these are the blocks timed so far.)")
    return " ".join(lines)


def _retracing_first(diagnosis: Diagnosis) -> str:
    probe = diagnosis.retracing
    sentence = (f"Fix the retracing first: every new Python number it is given traces it again "
                f"({probe.python_number_traces} traces for two new values)")
    if probe.retrace_s is not None:
        sentence += (f", and each such call took {format_time(probe.retrace_s)}, "
                     f"{format_ratio(probe.retrace_s / diagnosis.per_call_s['eager'])} an eager call")
    return f"{sentence}. {NUMBER_FIX}"


def _faster(found: intervals.Ratio, what: str = "") -> str:
    return f"{format_ratio(found.value)} faster{' ' + what if what else ''} (95% interval {_span(found.low, found.high)})"


def _slower(found: intervals.Ratio) -> str:
    return f"{format_ratio(1 / found.value)} slower, 95% interval {_span(1 / found.high, 1 / found.low)}"


def _bare(found: intervals.Ratio) -> str:
    """A ratio with no verdict word of its own, as a slow-down where its whole interval is below 1
    (as the guide's tables write it)."""
    if found.high < 1:
        return _slower(found)
    return f"{format_ratio(found.value)}, 95% interval {_span(found.low, found.high)}"


def _span(low: float, high: float) -> str:
    return f"{format_significant(low, 3)}–{format_ratio(high)}"


def topics(diagnosis: Diagnosis) -> list[str]:
    graph = diagnosis.speedups.get("tf.function")
    found = []
    if graph is not None:
        found.append("overhead" if material(graph) == "faster" else "kernel")
        found.append("worth")
    if "XLA" in diagnosis.speedups:
        found.append("xla")
    if diagnosis.retracing is not None and diagnosis.retracing.fixes:
        found.append("tracing")
    if diagnosis.host_split:
        found.append("layers")
    return found


# -- JSON: the raw blocks and findings, never the derived ratios (they are recomputed on load). --

def to_json(diagnosis: Diagnosis) -> dict[str, Any]:
    def ratio(found: intervals.Ratio | None) -> dict[str, float] | None:
        return None if found is None else {"value": found.value, "low": found.low, "high": found.high}

    modes = {}
    for mode, result in diagnosis.modes.items():
        modes[mode] = {"error": result.error} if not result.runs else {
            "runs": [{"samples_s": list(run.samples_s), "calls_per_block": run.calls_per_block,
                      "first_call_s": run.first_call_s, "completion": run.completion,
                      "tracing_count": run.tracing_count} for run in result.runs],
            # For readers of the file; recomputed from the runs on load.
            "median_s": result.measurement.median_s, "per_call_s": diagnosis.per_call_s[mode],
            "speedup_over_eager": ratio(diagnosis.speedups.get(mode)),
            "break_even_calls": diagnosis.break_even_calls.get(mode)}
    probe = diagnosis.retracing
    placement = diagnosis.placement
    return {
        "kind": "function", "target": diagnosis.target, "modes": modes,
        "xla_over_tf_function": ratio(diagnosis.xla_over_graph), "op_count": diagnosis.op_count,
        "compute_op_count": diagnosis.compute_op_count,
        "retracing": None if probe is None else {
            "first_traces": probe.first_traces, "batch_size_traces": probe.batch_size_traces,
            "python_number_traces": probe.python_number_traces, "batch_size_unprobed": probe.batch_size_unprobed,
            "retrace_s": probe.retrace_s, "fixes": probe.fixes},
        "host_split": {mode: {"total_s": split.total_s, "calls": split.calls,
                              **{f"{layer}_s": getattr(split, f"{layer}_s") for layer in HOST_LAYERS}}
                       for mode, split in diagnosis.host_split.items()},
        "placement": None if placement is None else {
            "runner": placement.runner, "fitted_on": placement.fitted_on, "ops": placement.ops, "elements": placement.elements,
            "predicted_s": placement.predicted_s, "band": placement.band, "extrapolated": placement.extrapolated},
        "skipped": diagnosis.skipped, "budget_s": diagnosis.budget_s, "elapsed_s": diagnosis.elapsed_s,
        "tracing_s": diagnosis.tracing_s,
        "interrupted": diagnosis.interrupted, "verdict": diagnosis.verdict,
    }


def from_json(data: Any) -> Diagnosis:
    """A diagnosis from ``to_json``'s output; ``ValueError`` naming what is wrong otherwise."""
    try:
        if data.get("kind") != "function":
            raise ValueError(f"kind is {data.get('kind')!r}, not 'function'")
        modes = {}
        for mode in MODES:
            entry = data["modes"][mode]
            modes[mode] = ModeResult(mode, (), str(entry["error"])) if "runs" not in entry else ModeResult(
                mode, tuple(Measurement(tuple(float(s) for s in run["samples_s"]), int(run["calls_per_block"]),
                                        float(run["first_call_s"]), str(run["completion"]),
                                        _optional_int(run.get("tracing_count")))
                            for run in entry["runs"]))
            if "runs" in entry and not entry["runs"]:
                raise ValueError(f"mode {mode} has an empty list of runs")
        probe = data["retracing"]
        placement = data["placement"]
        return Diagnosis(
            target=str(data["target"]), modes=modes,
            op_count=None if data["op_count"] is None else int(data["op_count"]),
            retracing=None if probe is None else RetraceProbe(
                int(probe["first_traces"]), _optional_int(probe["batch_size_traces"]),
                _optional_int(probe["python_number_traces"]),
                None if probe.get("batch_size_unprobed") is None else str(probe["batch_size_unprobed"]),
                _optional_float(probe.get("retrace_s"))),
            host_split={mode: Breakdown(total_s=float(split["total_s"]), calls=int(split["calls"]),
                                        **{f"{layer}_s": float(split[f"{layer}_s"]) for layer in HOST_LAYERS})
                        for mode, split in data["host_split"].items()},
            placement=None if placement is None else Placement(
                str(placement["runner"]), str(placement["fitted_on"]), int(placement["ops"]), int(placement["elements"]),
                {str(k): float(v) for k, v in placement["predicted_s"].items()},
                {str(k): float(v) for k, v in placement["band"].items()}, bool(placement["extrapolated"])),
            skipped={str(k): str(v) for k, v in data["skipped"].items()},
            budget_s=_optional_float(data["budget_s"]), elapsed_s=_optional_float(data["elapsed_s"]),
            tracing_s=_optional_float(data["tracing_s"]),
            interrupted=bool(data["interrupted"]), compute_op_count=_optional_int(data.get("compute_op_count")))
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"not a diagnosis: missing or malformed {error}") from None


def pool(diagnoses: list[Diagnosis]) -> Diagnosis:
    """Diagnoses of one target from several processes as one: each mode's runs side by side, so its
    interval covers how much a fresh process moves; the findings that do not vary with timing (op
    count, traces, the cost model) from the first that has them, each mode's profile likewise."""
    first = diagnoses[0]
    if any(found.target != first.target for found in diagnoses):
        raise ValueError("only diagnoses of one target pool: " + ", ".join(sorted({d.target for d in diagnoses})))
    # Each process profiles what its budget left room for: a mode's split from the first that has it.
    host_split = {}
    for found in diagnoses:
        for mode, split in found.host_split.items():
            host_split.setdefault(mode, split)
    retracing = next((found.retracing for found in diagnoses if found.retracing is not None), None)
    measured_parts = {host_split_part(mode) for mode in host_split} | ({PROBE_PART} if retracing else set())
    skipped = {part: why for part, why in first.skipped.items() if part not in measured_parts}
    modes = {}
    for mode in MODES:
        runs = tuple(run for found in diagnoses for run in found.modes[mode].runs)
        errors = [found.modes[mode].error for found in diagnoses if found.modes[mode].error]
        # A mode that failed in any process is not compared on the others' runs alone.
        modes[mode] = ModeResult(mode, (), errors[0]) if errors else ModeResult(mode, runs)
    return Diagnosis(first.target, modes, first.op_count, retracing, host_split, first.placement,
                     skipped, budget_s=_total(d.budget_s for d in diagnoses),
                     elapsed_s=_total(d.elapsed_s for d in diagnoses), tracing_s=_total(d.tracing_s for d in diagnoses),
                     interrupted=any(found.interrupted for found in diagnoses),
                     compute_op_count=first.compute_op_count)


def _total(values: Any) -> float | None:
    values = list(values)
    return None if any(value is None for value in values) else sum(values)


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)
