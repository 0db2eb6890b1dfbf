"""A grid results file pivoted: rows × columns of cases, as its ``Grid`` layout names them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tfspeedlab.core.results.schema import CaseResult, NotInResults, ResultsFile
from tfspeedlab.core.spec.layout import Grid


@dataclass(frozen=True)
class Pivot:
    layout: Grid
    row_values: list[Any]
    column_values: list[Any]
    cells: dict[tuple[Any, Any], CaseResult]
    # The value of the layout's ``split`` parameter this pivot holds (None: the grid is not split).
    part: Any = None

    def baseline(self, column: Any) -> CaseResult | None:
        """The baseline row's case in ``column``, if the grid has a baseline and it was measured there."""
        return self.cells.get((self.layout.baseline, column))

    def row(self, row: Any) -> list[tuple[Any, CaseResult]]:
        """(column value, case) along one row, in column order, where measured."""
        return [(column, self.cells[(row, column)]) for column in self.column_values if (row, column) in self.cells]


def grid_layout(results: ResultsFile) -> Grid:
    if not isinstance(results.layout, Grid):
        raise NotInResults(f"{results.example} is not a grid (its layout is {results.layout.kind!r})")
    return results.layout


def parts(results: ResultsFile) -> list[Any]:
    """The split parameter's values in the order cases first show them ([None] for an unsplit grid)."""
    layout = grid_layout(results)
    if layout.split is None:
        return [None]
    return list(dict.fromkeys(case.params[layout.split] for case in results.cases))


def pivot(results: ResultsFile, part: Any = None) -> Pivot:
    """Row and column values in the order cases first show them, and the case at each crossing.

    A split grid is pivoted one part at a time: ``part`` is a value of its split parameter
    (default: the first).
    """
    layout = grid_layout(results)
    cases = results.cases
    if layout.split is not None:
        part = parts(results)[0] if part is None else part
        cases = [case for case in cases if case.params[layout.split] == part]
        if not cases:
            raise NotInResults(f"{results.example} has no cases with {layout.split} = {part!r}")
    cells = {(case.params[layout.rows], case.params[layout.columns]): case for case in cases}
    row_values = list(dict.fromkeys(row for row, _ in cells))
    column_values = list(dict.fromkeys(column for _, column in cells))
    return Pivot(layout, row_values, column_values, cells, part)


def pivots(results: ResultsFile) -> list[Pivot]:
    """One pivot per part of a split grid; a single one otherwise."""
    return [pivot(results, part) for part in parts(results)]
