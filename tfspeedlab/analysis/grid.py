"""A grid results file pivoted: rows × columns of cases, as its ``Grid`` layout names them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tfspeedlab.results.schema import CaseResult, ResultsFile
from tfspeedlab.spec.layout import Grid


@dataclass(frozen=True)
class Pivot:
    layout: Grid
    row_values: list[Any]
    column_values: list[Any]
    cells: dict[tuple[Any, Any], CaseResult]

    def baseline(self, column: Any) -> CaseResult | None:
        """The baseline row's case in ``column``, if the grid has a baseline and it was measured there."""
        return self.cells.get((self.layout.baseline, column))


def grid_layout(results: ResultsFile) -> Grid:
    if not isinstance(results.layout, Grid):
        raise KeyError(f"{results.example} is not a grid (its layout is {results.layout.kind!r})")
    return results.layout


def pivot(results: ResultsFile) -> Pivot:
    """Row and column values in the order cases first show them, and the case at each crossing."""
    layout = grid_layout(results)
    cells = {(case.params[layout.rows], case.params[layout.columns]): case for case in results.cases}
    row_values = list(dict.fromkeys(row for row, _ in cells))
    column_values = list(dict.fromkeys(column for _, column in cells))
    return Pivot(layout, row_values, column_values, cells)
