"""The CPU settings page's summary: per workload, which settings were clearly slower or faster than
TensorFlow's default, and which could not be told from it (a grid of setting × workload, each cell
against the grid's baseline row in its column)."""

from __future__ import annotations

from tfspeedlab.analysis import intervals
from tfspeedlab.analysis.grid import pivots
from tfspeedlab.analysis.wording import Verdict, format_speedup, page_speedup, verdict
from tfspeedlab.results.schema import ResultsFile
from tfspeedlab.site.markdown import LEFT, RIGHT, Markdown, table, text
from tfspeedlab.units import format_time

# Where a workload had no setting in a group.
NONE = "none"
# Settings named in the last column ("neither clearly slower nor faster") at most; more are counted.
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
            groups: dict[Verdict, list[str]] = {Verdict.SLOWER: [], Verdict.FASTER: [], Verdict.UNCLEAR: []}
            for row in grid.row_values:
                if row == baseline or (row, column) not in grid.cells:
                    continue
                found = intervals.ratio(reference, grid.cells[(row, column)])
                if found.one_process:
                    groups[Verdict.UNCLEAR].append(f"{text(row)} ({page_speedup(found)})")
                    continue
                word = verdict(found)
                groups[word].append(f"{text(row)}: {format_speedup(found)}" if word is not Verdict.UNCLEAR
                                    else text(row))
            # One setting a line where each carries its factor; the rest, a list, or their count where
            # naming them all would stand a column of names screens tall on a phone (the grid has them).
            unclear = groups[Verdict.UNCLEAR]
            body.append([text(column), format_time(reference.measurement.per_call_s),
                         Markdown("<br>".join(groups[Verdict.SLOWER]) or NONE),
                         Markdown("<br>".join(groups[Verdict.FASTER]) or NONE),
                         Markdown(", ".join(unclear) if len(unclear) <= NAMED_AT_MOST
                                  else f"the other {len(unclear)}" if len(unclear) < len(grid.row_values) - 1
                                  else f"all {len(unclear)}") if unclear else NONE])
    return table(["Workload", f"Time, {text(grid.layout.baseline)}", "Clearly slower", "Clearly faster",
                  "Neither clearly slower nor faster"], body, [LEFT, RIGHT, LEFT, LEFT, LEFT])


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
                if f"loss_after_{steps}_steps" in m:
                    check = f"loss {m['loss_start']:.3g} → {m[f'loss_after_{steps}_steps']:.3g}"
                elif row == grid.layout.baseline:
                    check = "the reference product"
                else:
                    check = f"largest difference {m['relative_error_vs_float32']:.2g} of the largest value"
                body.append([text(column), text(row), format_time(case.measurement.per_call_s), text(check)])
    return table(["Workload", "Policy", "Time per call", f"What it computed (training: after {steps} steps)"],
                 body, [LEFT, LEFT, RIGHT, LEFT])


def onednn_default(results: ResultsFile) -> str:
    """Whether TensorFlow ran its oneDNN operations with no setting of the reader's, in words: "on" or
    "off", as every process of the baseline row recorded it (metric ``onednn_opts``, TensorFlow's own
    decision for this CPU); "not recorded" for results that predate the metric. Processes that
    disagree are an error: the page would otherwise state one of them as the default."""
    seen = {metrics.get("onednn_opts") for grid in pivots(results)
            for (row, _), case in grid.cells.items() if row == grid.layout.baseline
            for metrics in case.metrics_by_process}
    seen.discard(None)
    if not seen:
        return "not recorded"
    if len(seen) > 1:
        raise ValueError(f"{results.example}: the baseline's processes disagree on whether oneDNN was on")
    return "on" if seen.pop() else "off"
