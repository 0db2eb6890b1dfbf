"""The Keras backends example read as answers: which backend is fastest per model and call, what a
compiling setting costs up front, after how many steps it pays back, whether every backend computed
the same function, and how memory moves.

The results file is a grid per model: rows ``"<backend> · jit on|off"``, columns the calls. Numbers
only here; the words are ``wording``'s.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from tfspeedlab.core.results.schema import CaseResult, ResultsFile
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.cost_model import break_even
from tfspeedlab.core.stats.grid import Pivot, pivots

TRAINING_CALL = "train_on_batch"  # the call short runs and paybacks are read from: one step per call
SHORT_RUNS = (1, 10, 100)  # steps of a short training run, first call included
# Predictions of one model on one fixed batch, before training, agree across backends within this
# (relative to 1 + |value|): float32 kernels summed in different orders differ in the last digits.
PREDICTION_TOLERANCE = 1e-4


@dataclass(frozen=True)
class Row:
    """One backend and compile setting, in one model's table."""

    label: str  # "JAX · jit on"
    backend: str  # "JAX"
    jit: bool


def row_of(label: str) -> Row:
    backend, _, setting = label.rpartition(" · jit ")
    if setting not in ("on", "off") or not backend:
        raise ValueError(f"{label!r} is not a backend row (\"<backend> · jit on|off\")")
    return Row(label, backend, setting == "on")


def model_pivots(results: ResultsFile) -> dict[str, Pivot]:
    return {pivot.part: pivot for pivot in pivots(results)}


@dataclass(frozen=True)
class Extremes:
    """The fastest and slowest rows of one column (a call), and the fastest against the slowest."""

    call: str
    fastest: str
    fastest_s: float
    slowest: str
    slowest_s: float
    spread: intervals.Ratio  # slowest's time ÷ fastest's


def extremes(pivot: Pivot, call: str) -> Extremes | None:
    found = [(row, pivot.cells[(row, call)]) for row in pivot.row_values if (row, call) in pivot.cells]
    if len(found) < 2:
        return None
    timed = sorted(found, key=lambda item: intervals.estimate_s(item[1]))
    (fast_row, fast), (slow_row, slow) = timed[0], timed[-1]
    return Extremes(call, fast_row, intervals.estimate_s(fast), slow_row, intervals.estimate_s(slow),
                    intervals.ratio(slow, fast))


def first_call_s(case: CaseResult) -> float:
    """The first call of a fresh process (tracing, compiling, one step or one epoch): the median over runs."""
    return statistics.median(run.first_call_s for run in case.runs)


def short_run_s(case: CaseResult, steps: int) -> float:
    """A run of ``steps`` calls from a fresh model: its first call, then the steady time per call."""
    return first_call_s(case) + (steps - 1) * intervals.estimate_s(case)


@dataclass(frozen=True)
class Payback:
    """``jit_compile=True`` against ``False`` on one backend's training call."""

    backend: str
    speedup: intervals.Ratio  # off's steady time ÷ on's
    extra_first_call_s: float  # what compiling adds to the first call
    steps: float | None  # steps after which compiling has paid for itself; None: it never does
    # The same at either end of the speed-up's interval (the faster end first): how far the count
    # can move with the per-step saving, the first calls taken as measured.
    steps_range: tuple[float, float] | None = None


def payback(pivot: Pivot, backend: str, call: str = TRAINING_CALL) -> Payback | None:
    off, on = pivot.cells.get((f"{backend} · jit off", call)), pivot.cells.get((f"{backend} · jit on", call))
    if off is None or on is None:
        return None
    speedup = intervals.ratio(off, on)
    # Paid back only by a clearly cheaper step: a difference inside the interval repays nothing.
    if not speedup.above_one:
        return Payback(backend, speedup, first_call_s(on) - first_call_s(off), None)
    on_s = intervals.estimate_s(on)
    steps = break_even(intervals.estimate_s(off), first_call_s(off), on_s, first_call_s(on))
    ends = tuple(break_even(on_s * factor, first_call_s(off), on_s, first_call_s(on))
                 for factor in (speedup.high, speedup.low))
    return Payback(backend, speedup, first_call_s(on) - first_call_s(off), steps,
                   ends if None not in ends else None)


def prediction_error(pivot: Pivot) -> tuple[float, str | None]:
    """The largest relative difference of any case's predictions on the fixed batch from the baseline
    row's first case (all taken before training, from the same weights), and the case that has it."""
    cases = [case for case in pivot.cells.values() if "prediction_0" in case.metrics]
    reference = next((case for (row, _), case in pivot.cells.items() if row == pivot.layout.baseline), None)
    if reference is None or not cases:
        return math.nan, None
    worst, where = 0.0, None
    for case in cases:
        for name, value in case.metrics.items():
            if name.startswith("prediction_") and name in reference.metrics:
                expected = reference.metrics[name]
                error = abs(value - expected) / (1 + abs(expected))
                if error > worst:
                    worst, where = error, case.label
    return worst, where


def trained(case: CaseResult) -> bool | None:
    """Whether a training case's loss fell and its weights moved (None for a case that does not train)."""
    metrics = case.metrics
    if metrics.loss_start is None:
        return None
    return metrics.loss_end < metrics.loss_start and (metrics.weight_change or 0) > 0
