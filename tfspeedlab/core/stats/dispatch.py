"""Per-op dispatch cost from a grid with a ``PerOp`` column: a loop of small ops, divided by its op count."""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.core.results.schema import NotInResults, ResultsFile
from tfspeedlab.core.spec.layout import PerOp
from tfspeedlab.core.stats.grid import pivot


@dataclass(frozen=True)
class DispatchRow:
    mode: str
    per_op_s: float
    step_s: float
    op_by_op: bool


def per_op_layout(results: ResultsFile) -> PerOp:
    per_op = pivot(results).layout.per_op
    if per_op is None:
        raise NotInResults(f"{results.example} has no per-op column in its grid layout")
    return per_op


def dispatch_rows(results: ResultsFile) -> list[DispatchRow]:
    """Every mode measured on both the small-op loop and the step column."""
    per_op, grid = per_op_layout(results), pivot(results)
    rows = []
    for mode in grid.row_values:
        loop, step = grid.cells.get((mode, per_op.column)), grid.cells.get((mode, per_op.step_column))
        if loop is not None and step is not None:
            rows.append(DispatchRow(mode, loop.measurement.per_call_s / per_op.ops, step.measurement.per_call_s,
                                    bool(loop.params[per_op.op_by_op])))
    return rows
