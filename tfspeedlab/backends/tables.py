"""Tables of the Keras backends page: the fastest and slowest backend per call, what compiling
costs and when it pays back, short training runs, the checks that every backend computed the same
function, and memory."""

from __future__ import annotations

import math

from tfspeedlab.backends import grid
from tfspeedlab.core.results.schema import MissingCaseError, ResultsFile
from tfspeedlab.core.units import format_bytes, format_time
from tfspeedlab.core.wording import signed_bytes, speedup_cell
from tfspeedlab.render.markdown import LEFT, RIGHT, Markdown, table, text


def extremes_table(results: ResultsFile) -> Markdown:
    """Per model and call: the fastest row and its time, the slowest, and the fastest against the slowest."""
    body = []
    for model, pivot in grid.model_pivots(results).items():
        for call in pivot.column_values:
            found = grid.extremes(pivot, call)
            if found is None:
                continue
            body.append([text(model), text(call), text(found.fastest), format_time(found.fastest_s),
                         text(found.slowest), format_time(found.slowest_s), speedup_cell(found.spread)])
    return table(["Model", "Call", "Fastest", "Time", "Slowest", "Time", "Fastest compared with slowest"], body,
                 [LEFT, LEFT, LEFT, RIGHT, LEFT, RIGHT, LEFT])


def payback_steps(found: grid.Payback) -> str:
    """The steps after which ``jit_compile=True`` paid for itself, with the range at the speed-up
    interval's ends: ``255 steps [166–397]``, or why it never does."""
    if found.steps is None:
        return "never: slower per step" if found.speedup.below_one else "never: no gain per step"
    steps = f"{found.steps:,.0f} step{'s' if found.steps != 1 else ''}"
    if found.steps_range is not None and len(set(found.steps_range)) == 2:
        low, high = found.steps_range
        steps += f" [{low:,.0f}–{high:,.0f}]"
    return steps


def payback_table(results: ResultsFile, call: str = grid.TRAINING_CALL) -> Markdown:
    """Per model and backend: ``jit_compile=True`` against ``False`` per step, what it adds to the
    first call, and the steps after which it has paid for itself."""
    body = []
    for model, pivot in grid.model_pivots(results).items():
        for backend in dict.fromkeys(grid.row_of(row).backend for row in pivot.row_values):
            found = grid.payback(pivot, backend, call)
            if found is None:
                continue
            body.append([text(model), text(backend), speedup_cell(found.speedup),
                         _signed_time(found.extra_first_call_s), payback_steps(found)])
    return table(["Model", "Backend", "jit on compared with jit off, per step", "Added to the first call",
                  "Pays back after [at the speed-up interval's ends]"], body, [LEFT, LEFT, LEFT, RIGHT, LEFT])


def short_runs_table(results: ResultsFile, model: str, call: str = grid.TRAINING_CALL) -> Markdown:
    """One model: the time of a short training run from a fresh model (first call included) per row; the
    run of one step is the first call alone, so no column repeats it."""
    found = grid.model_pivots(results)
    if model not in found:
        # A quick run measures fewer models: the page builds and says so.
        raise MissingCaseError(f"{results.example} has no model {model!r}; it has {sorted(found)}", results.quick)
    pivot = found[model]
    body = []
    for row in pivot.row_values:
        case = pivot.cells.get((row, call))
        if case is not None:
            body.append([text(row), *(format_time(grid.short_run_s(case, steps)) for steps in grid.SHORT_RUNS)])
    # A run of one step is its first call: that column is the first call's, and says so.
    headers = ["1 step: the first call" if steps == 1 else f"{steps:,} steps" for steps in grid.SHORT_RUNS]
    return table(["Backend", *headers], body, [LEFT, *[RIGHT] * len(grid.SHORT_RUNS)])


def checks_table(results: ResultsFile) -> Markdown:
    """Per model: how far the predictions on the fixed batch differ across every case, and whether
    every training case trained."""
    body = []
    for model, pivot in grid.model_pivots(results).items():
        error, where = grid.prediction_error(pivot)
        outcomes = [grid.trained(case) for case in pivot.cells.values()]
        training = [outcome for outcome in outcomes if outcome is not None]
        within = "—" if math.isnan(error) else ("within" if error <= grid.PREDICTION_TOLERANCE else "**outside**")
        body.append([text(model), "—" if math.isnan(error) else f"{error:.1e}", within,
                     text(where) if where and error > grid.PREDICTION_TOLERANCE else "",
                     f"{sum(training)} of {len(training)}"])
    return table(["Model", "Largest prediction difference (relative)",
                  f"Tolerance {grid.PREDICTION_TOLERANCE:.0e}", "Where", "Training cases whose loss fell"],
                 body, [LEFT, RIGHT, LEFT, LEFT, RIGHT])


def memory_table(results: ResultsFile) -> Markdown:
    """Per model and backend: resident memory after the repeated calls, and its growth per call: the
    slope of one process's readings, with no interval (the header says so), signed as the memory page
    signs a change (``signed_bytes``)."""
    body = []
    for model, pivot in grid.model_pivots(results).items():
        for (row, call), case in pivot.cells.items():
            metrics = case.metrics
            if metrics.rss_growth_per_call_bytes is not None:
                body.append([text(model), text(row), text(call), format_bytes(metrics.rss_bytes),
                             signed_bytes(metrics.rss_growth_per_call_bytes, plus=True),
                             f"{metrics.memory_calls:,.0f}"])
    return table(["Model", "Backend", "Call", "Resident memory after", "Growth per call: one process's slope, no interval",
                  "Calls followed"],
                 body, [LEFT, LEFT, LEFT, RIGHT, RIGHT, RIGHT])


def skipped_note(results: ResultsFile) -> Markdown:
    skipped = results.params.get("skipped_backends") or {}
    if not skipped:
        return Markdown("")
    items = "; ".join(f"{text(backend)}: {text(reason)}" for backend, reason in skipped.items())
    return Markdown(f"Not measured in this run: {items}.")


def _signed_time(seconds: float) -> str:
    return ("+" if seconds >= 0 else "−") + format_time(abs(seconds))
