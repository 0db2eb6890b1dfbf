"""What ``tfspeedlab diagnose`` found about a reader's function: the records and what follows from them.

The measuring is ``tfspeedlab.diagnosis.function``; this module holds what it measured (each mode
a case of the results files, its runs one per process; the retracing probe, the profiler's
host-time split, the function's place on the guide's cost model), derives the speed-ups and
break-evens from the runs, and pools the diagnoses of several processes (each mode's runs as
``results.pool`` pools a case's). The verdict's words are ``diagnosis.verdict``'s, the JSON
``diagnosis.codec``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, reduce
from typing import Any

from tfspeedlab.core.profiling.trace import Breakdown
from tfspeedlab.core.results.pool import pooled_case
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.cost_model import break_even
from tfspeedlab.core.stats.memory_growth import FollowedMemory
from tfspeedlab.core.wording import MODE_LABELS
from tfspeedlab.diagnosis import verdict as diagnosis_verdict

MODES = MODE_LABELS
# What ``Diagnosis.skipped`` calls the probe, and the host-time split (all of it, or one mode's).
PROBE_PART = "retracing probe"
HOST_SPLIT_PART = "host-time split"
MEMORY_PART = "memory over repeated calls"
CALIBRATION_PART = "this machine's op and call costs, for the cost model"


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
        return diagnosis_verdict.fixes(self)


@dataclass(frozen=True)
class MachineCosts:
    """The two costs of the cost model every break-even rests on, which move most from machine to
    machine: one eager op's and the fixed cost of a ``tf.function`` call (XLA's likewise), in seconds."""

    eager_op_s: float
    graph_call_s: float


@dataclass(frozen=True)
class Calibration:
    """The costs ``diagnosis.calibration`` timed on the reader's machine, which the prediction
    uses in place of the guide's, and the guide's own, to set side by side."""

    cpu: str  # the reader's CPU, as the environment names it
    here: MachineCosts
    guide: MachineCosts


@dataclass(frozen=True)
class Placement:
    """The function set against the guide's cost model: what a chain of as many elementwise ops,
    on tensors of its typical size, costs per call in each mode, beside what the function measured.
    The model is fitted on the guide's runner; with a ``calibration``, its costs per eager op and
    per ``tf.function`` call are this machine's."""

    runner: str
    fitted_on: str  # the CPU the model's sweeps ran on: the reader's machine may differ
    ops: int  # the traced graph's ops that compute (placeholders, constants, identities left out)
    elements: int  # the median element count of their outputs
    predicted_s: dict[str, float]  # by diagnosis mode
    band: dict[str, float]  # the model's worst relative miss on the guide's own chains, by mode
    extrapolated: bool  # ops or elements beyond what the model was fitted on
    # None: every cost is the guide's machine's (the budget left no time to time them here, or a
    # report kept before diagnose did).
    calibration: Calibration | None = None

    def measured_over_predicted(self, diagnosis: Diagnosis, mode: str) -> float | None:
        if mode not in diagnosis.modes or mode not in self.predicted_s:
            return None
        return diagnosis.per_call_s[mode] / self.predicted_s[mode]

    def reading(self, diagnosis: Diagnosis) -> str:
        """What the eager ratio says of the function, in words."""
        return diagnosis_verdict.placement_reading(self, self.measured_over_predicted(diagnosis, "eager"))


@dataclass(frozen=True)
class Diagnosis:
    target: str
    # Each mode that ran, as a case: its runs, one per process it was timed in.
    modes: dict[str, CaseResult]
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
    # Resident memory over repeated calls of the function as given; None: not followed (the budget
    # was spent, Ctrl-C, or a report kept before it was measured).
    memory: FollowedMemory | None = None
    # Each mode that could not run, with why (XLA cannot compile an op, say), as a results file's
    # ``unavailable``: every mode is in this or in ``modes``.
    unavailable: dict[str, str] = field(default_factory=dict)

    @property
    def processes(self) -> int:
        return len(self.modes["eager"].runs) if "eager" in self.modes else 0

    @cached_property
    def speedups(self) -> dict[str, intervals.Ratio]:
        """Eager time ÷ each compiled mode's, with its bootstrap interval (over processes, then
        blocks, where there are several, as for the guide's full runs)."""
        if "eager" not in self.modes:
            return {}
        return {mode: intervals.ratio(self.modes["eager"], case) for mode, case in self.modes.items()
                if mode != "eager"}

    @cached_property
    def xla_over_graph(self) -> intervals.Ratio | None:
        """The tf.function's time ÷ XLA's: above 1, XLA is the faster of the two compiled modes."""
        if "tf.function" in self.modes and "XLA" in self.modes:
            return intervals.ratio(self.modes["tf.function"], self.modes["XLA"])
        return None

    @cached_property
    def per_call_s(self) -> dict[str, float]:
        """Each mode's time per call by the guide's estimator (the 10th percentile of all blocks:
        a call nothing else on the machine got in the way of), which the speed-ups divide."""
        return {mode: intervals.estimate_s(case) for mode, case in self.modes.items()}

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
        return break_even(self.per_call_s[against], self.modes[against].measurement.first_call_s,
                          self.per_call_s[mode], self.modes[mode].measurement.first_call_s)

    @property
    def verdict(self) -> str:
        return diagnosis_verdict.verdict(self)

    @property
    def links(self) -> list[tuple[str, str]]:
        """The guide's pages that explain this diagnosis, as (page, title)."""
        return diagnosis_verdict.links(self)


def host_split_part(mode: str) -> str:
    return f"{HOST_SPLIT_PART}, {mode}"


def pool(diagnoses: list[Diagnosis]) -> Diagnosis:
    """Diagnoses of one target from several processes as one: each mode's runs side by side, so its
    interval covers how much a fresh process moves; the findings that do not vary with timing (op
    count, traces, the cost model) from the first that has them, each mode's profile and the memory
    followed over repeated calls likewise (each process follows the same calls)."""
    first = diagnoses[0]
    if any(found.target != first.target for found in diagnoses):
        raise ValueError("only diagnoses of one target pool: " + ", ".join(sorted({d.target for d in diagnoses})))
    # Each process profiles what its budget left room for: a mode's split from the first that has it.
    host_split = {}
    for found in diagnoses:
        for mode, split in found.host_split.items():
            host_split.setdefault(mode, split)
    retracing = next((found.retracing for found in diagnoses if found.retracing is not None), None)
    memory = next((found.memory for found in diagnoses if found.memory is not None), None)
    measured_parts = ({host_split_part(mode) for mode in host_split} | ({PROBE_PART} if retracing else set())
                      | ({MEMORY_PART} if memory else set()))
    skipped = {part: why for part, why in first.skipped.items() if part not in measured_parts}
    # A mode that failed in any process is not compared on the others' runs alone.
    unavailable = {}
    for found in diagnoses:
        for mode, why in found.unavailable.items():
            unavailable.setdefault(mode, why)
    modes = {mode: reduce(pooled_case, [found.modes[mode] for found in diagnoses])
             for mode in MODES if mode not in unavailable}
    return Diagnosis(first.target, modes, first.op_count, retracing, host_split, first.placement,
                     skipped, budget_s=_total(d.budget_s for d in diagnoses),
                     elapsed_s=_total(d.elapsed_s for d in diagnoses), tracing_s=_total(d.tracing_s for d in diagnoses),
                     interrupted=any(found.interrupted for found in diagnoses),
                     compute_op_count=first.compute_op_count, memory=memory, unavailable=unavailable)


def _total(values: Any) -> float | None:
    values = list(values)
    return None if any(value is None for value in values) else sum(values)
