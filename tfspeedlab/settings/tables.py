"""The CPU settings page's summary: per workload, which settings were clearly slower or faster than
TensorFlow's default, and which could not be told from it (a grid of setting × workload, each cell
against the grid's baseline row in its column)."""

from __future__ import annotations

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.grid import pivots
from tfspeedlab.core.units import format_time
from tfspeedlab.core.wording import NEITHER_VERDICT, ONE_PROCESS, Verdict, format_speedup, page_verdict
from tfspeedlab.render.markdown import LEFT, RIGHT, Markdown, table, text

# The column of settings whose interval holds 1: the same, or inconclusive here.
NEITHER = NEITHER_VERDICT.capitalize()
# Where a workload had no setting in a group.
NONE = "none"
# Settings named in the "the same or inconclusive" column at most; more are counted.
NAMED_AT_MOST = 3


def settings_summary(results: ResultsFile) -> Markdown:
    """Per workload (column): the baseline row's time, then the other rows grouped by what their
    interval against it says, each with its factor."""
    body = []
    for grid in pivots(results):
        baseline = grid.layout.baseline
        for column in grid.column_values:
            reference = grid.baseline(column)
            if reference is None:
                continue
            slower, faster, neither = [], [], []
            for row in grid.row_values:
                if row == baseline or (row, column) not in grid.cells:
                    continue
                found = intervals.ratio(reference, grid.cells[(row, column)])
                word = page_verdict(found)
                if word is None:
                    neither.append(f"{text(row)}: {ONE_PROCESS}")
                elif word.clear:
                    (faster if word is Verdict.FASTER else slower).append(f"{text(row)}: {format_speedup(found)}")
                else:
                    neither.append(text(row))
            # One setting a line where each carries its factor; the rest, a list, or their count where
            # naming them all would stand a column of names screens tall on a phone (the grid has them).
            body.append([text(column), format_time(reference.measurement.per_call_s),
                         Markdown("<br>".join(slower) or NONE),
                         Markdown("<br>".join(faster) or NONE),
                         Markdown(", ".join(neither) if len(neither) <= NAMED_AT_MOST
                                  else f"the other {len(neither)}" if len(neither) < len(grid.row_values) - 1
                                  else f"all {len(neither)}") if neither else NONE])
    return table(["Workload", f"Time, {text(grid.layout.baseline)}", str(Verdict.SLOWER).capitalize(),
                  str(Verdict.FASTER).capitalize(), NEITHER], body, [LEFT, RIGHT, LEFT, LEFT, LEFT])


def precision_check(results: ResultsFile) -> Markdown:
    """Per workload and policy: what it computed, beside its time. A training case's loss after the
    same number of steps from the same start (computed in float32 on a fixed batch); the matmul's
    largest difference from float32's product, relative to that product's largest value."""
    steps = results.params["train_steps"]
    body = []
    for grid in pivots(results):
        for column in grid.column_values:
            for row in grid.row_values:
                case = grid.cells.get((row, column))
                if case is None:
                    continue
                m = case.metrics
                if m.loss_after_steps(steps) is not None:
                    check = f"loss {m.loss_start:.3g} → {m.loss_after_steps(steps):.3g}"
                elif row == grid.layout.baseline:
                    check = "the reference product"
                else:
                    check = f"largest difference {m.relative_error_vs_float32:.2g} of the largest value"
                body.append([text(column), text(row), format_time(case.measurement.per_call_s), text(check)])
    return table(["Workload", "Policy", "Time per call", f"What it computed (training: after {steps} steps)"],
                 body, [LEFT, LEFT, RIGHT, LEFT])


def onednn_default(results: ResultsFile) -> str:
    """Whether TensorFlow ran its oneDNN operations with no setting of the reader's, in words: "on" or
    "off", as every process of the baseline row recorded it (metric ``onednn_opts``, TensorFlow's own
    decision for this CPU); "not recorded" for results that predate the metric. Processes that
    disagree are an error: the page would otherwise state one of them as the default."""
    seen = {metrics.onednn_opts for grid in pivots(results)
            for (row, _), case in grid.cells.items() if row == grid.layout.baseline
            for metrics in case.metrics_by_process}
    seen.discard(None)
    if not seen:
        return "not recorded"
    if len(seen) > 1:
        raise ValueError(f"{results.example}: the baseline's processes disagree on whether oneDNN was on")
    return "on" if seen.pop() else "off"
