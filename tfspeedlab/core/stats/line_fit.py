"""A fixed cost per call and a cost per item, fitted along a grid row: time ≈ fixed + per_item × n.

A call that handles ``n`` items (a batch of ``n`` samples) pays once for
getting into the runtime and then for each item. Along a row of a grid whose
columns are ``n`` (batch sizes 1 … 512), the fit splits the two. It weighs each
point by its relative error: the times span two or three decades, and an
unweighted fit would let the largest batch decide the fixed cost alone.
Intervals come from fitting hierarchical bootstrap resamples of every cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tfspeedlab.core.results.schema import NotInResults, ResultsFile
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.grid import pivots

RESAMPLES = 1000


@dataclass(frozen=True)
class RowFit:
    part: Any  # the split value (a model), None for an unsplit grid
    row: Any  # the rung
    fixed_s: intervals.Estimate  # seconds per call, whatever n is
    per_item_s: intervals.Estimate  # seconds per item
    # Where the two are equal: below it the fixed cost is most of a call.
    break_even_items: float
    worst_miss: float  # the largest relative miss of the fit at a measured point
    largest_items: float = float("inf")  # the largest n measured: a break-even past it is extrapolated


def fit_line(n: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least squares of ``times`` on ``n`` in relative terms, minimising Σ ((t − fixed − per_item·n) / t)²:
    ``times`` is one time per ``n``, or a column of resamples per ``n`` (shape n × resamples).
    Returns (fixed, per_item), one value per resample."""
    t = np.asarray(times, dtype=float).reshape(len(n), -1)
    w = 1.0 / t  # weights, one column per resample
    n = np.asarray(n, dtype=float)[:, None]
    # The 2 × 2 normal equations of the weighted problem, solved for every column at once.
    s00, s01, s11 = (w**2).sum(0), (w**2 * n).sum(0), (w**2 * n**2).sum(0)
    r0, r1 = w.sum(0), (w * n).sum(0)
    determinant = s00 * s11 - s01**2
    return (r0 * s11 - r1 * s01) / determinant, (s00 * r1 - s01 * r0) / determinant


def row_fits(results: ResultsFile) -> list[RowFit]:
    """One fit per row of every part, over the row's numeric columns (at least three)."""
    fits = []
    for grid in pivots(results):
        for row in grid.row_values:
            points = [(column, case) for column, case in grid.row(row) if isinstance(column, int | float)]
            if len(points) < 3:
                continue
            n = np.array([float(column) for column, _ in points])
            best = np.array([case.measurement.per_call_s for _, case in points])
            resampled = np.stack([intervals.resampled_estimates(case, RESAMPLES) for _, case in points], axis=1)
            (fixed,), (per_item,) = fit_line(n, best)
            fixed_resamples, per_item_resamples = fit_line(n, resampled.T)
            predicted = fixed + per_item * n
            fits.append(RowFit(
                part=grid.part, row=row,
                fixed_s=intervals.estimate_of(fixed, fixed_resamples),
                per_item_s=intervals.estimate_of(per_item, per_item_resamples),
                break_even_items=float(fixed / per_item) if per_item > 0 else float("inf"),
                worst_miss=float(np.max(np.abs(predicted - best) / best)),
                largest_items=float(n.max()),
            ))
    return fits


def measured_row(results: ResultsFile, part: Any, row: Any) -> bool:
    """Whether the grid has the row at all (fitted or not)."""
    return any(str(grid.part) == str(part) and any(str(value) == str(row) for value in grid.row_values)
               for grid in pivots(results))


def row_fit(results: ResultsFile, part: Any, row: Any) -> RowFit:
    for fit in row_fits(results):
        if str(fit.part) == str(part) and str(fit.row) == str(row):
            return fit
    raise NotInResults(f"{results.example} has no fitted row {row!r} in part {part!r}")
