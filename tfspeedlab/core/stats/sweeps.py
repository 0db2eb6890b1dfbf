"""Quantities derived from results files: fits, break-evens, crossovers, paybacks.

Everything here is computed from each case's time per call (``Timing.per_call_s``, the time every
speed-up divides) when the site is built, so a page that states a break-even states the one its
results file implies; fitted costs and break-evens carry intervals from the same fit on every
hierarchical resample of the points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tfspeedlab.core.results.schema import NotInResults, ResultsFile
from tfspeedlab.core.results.timing import Timing
from tfspeedlab.core.spec.layout import Sweep
from tfspeedlab.core.stats import intervals, line_fit
from tfspeedlab.core.stats.materiality import MATERIAL_SPEEDUP

# A gain below the guide's material threshold is within what the spread of a 2-core runner can
# produce; the size sweep reports where graph mode's gain falls under it.
NEGLIGIBLE_GAIN = MATERIAL_SPEEDUP - 1


@dataclass(frozen=True)
class LinearFit:
    """time ≈ intercept + slope · x, fitted to minimise *relative* error."""

    intercept_s: float
    slope_s: float
    worst_relative_error: float

    def predict(self, x: float) -> float:
        return self.intercept_s + self.slope_s * x


def fit_line(xs: list[float], ys: list[float]) -> LinearFit:
    """Weighted least squares with weights 1/y², so a 10% miss at N=1 counts as
    much as a 10% miss at N=1000 (plain least squares would fit only the
    largest points and leave the intercept, the fixed call cost, to chance)."""
    if len(xs) < 2:
        raise ValueError("a line needs at least two points")
    (intercept,), (slope,) = line_fit.fit_line(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float))
    fit = LinearFit(float(intercept), float(slope), 0.0)
    worst = max(abs(fit.predict(x) - y) / y for x, y in zip(xs, ys))
    return LinearFit(fit.intercept_s, fit.slope_s, worst)


def sweep(results: ResultsFile, mode: str) -> list[tuple[float, Timing]]:
    """(x, measurement) of one mode along the results file's sweep parameter, x ascending."""
    return [(x, case.measurement) for x, case in sweep_cases(results, mode)]


def sweep_layout(results: ResultsFile) -> Sweep:
    if not isinstance(results.layout, Sweep):
        raise NotInResults(f"{results.example} is not a sweep (its layout is {results.layout.kind!r})")
    return results.layout


def sweep_parameter(results: ResultsFile) -> str:
    return sweep_layout(results).parameter


def modes(results: ResultsFile) -> list[str]:
    """The sweep's series (modes), in the order their cases appear."""
    series = sweep_layout(results).series
    return list(dict.fromkeys(case.params[series] for case in results.cases))


@dataclass(frozen=True)
class ModeFit:
    """One mode's time along the sweep, fitted as a line: the fixed cost of a call and the cost per
    swept unit (an op), with intervals, and the resampled fits the intervals come from."""

    intercept: intervals.Estimate
    slope: intervals.Estimate
    worst_relative_error: float
    intercept_resamples: np.ndarray
    slope_resamples: np.ndarray

    @property
    def intercept_s(self) -> float:
        return self.intercept.value

    @property
    def slope_s(self) -> float:
        return self.slope.value


def mode_fit(results: ResultsFile, mode: str) -> ModeFit:
    points = sweep_cases(results, mode)
    n = np.array([float(x) for x, _ in points])
    times = np.array([case.measurement.per_call_s for _, case in points])
    resampled = np.stack([intervals.resampled_estimates(case, line_fit.RESAMPLES) for _, case in points])
    (intercept,), (slope,) = line_fit.fit_line(n, times)
    intercepts, slopes = line_fit.fit_line(n, resampled)
    worst = float(np.max(np.abs(intercept + slope * n - times) / times))
    return ModeFit(intervals.estimate_of(intercept, intercepts), intervals.estimate_of(slope, slopes), worst,
                   intercepts, slopes)


def sweep_cases(results: ResultsFile, mode: str) -> list:
    """(x, case) of one mode along the sweep, x ascending."""
    layout = sweep_layout(results)
    points = [(case.params[layout.parameter], case) for case in results.cases if case.params[layout.series] == mode]
    if not points:
        raise NotInResults(f"{results.example} has no cases of mode {mode!r}")
    return sorted(points, key=lambda point: point[0])


@dataclass(frozen=True)
class OpCosts:
    """The op-count sweep, reduced to the numbers that explain it: each mode's line, its intercept
    the fixed cost of a call, its slope the cost of each op."""

    eager: ModeFit
    graph: ModeFit

    @property
    def break_even_ops(self) -> float:
        """Op count at which the two fitted lines cross: below it, eager is faster."""
        return (self.graph.intercept_s - self.eager.intercept_s) / (self.eager.slope_s - self.graph.slope_s)

    @property
    def break_even(self) -> intervals.Estimate:
        """The break-even with its interval: the crossing of the two lines on every resample."""
        crossings = ((self.graph.intercept_resamples - self.eager.intercept_resamples)
                     / (self.eager.slope_resamples - self.graph.slope_resamples))
        return intervals.estimate_of(self.break_even_ops, crossings)


def op_costs(results: ResultsFile) -> OpCosts:
    return OpCosts(eager=mode_fit(results, "eager"), graph=mode_fit(results, "graph"))


def first_x_where_faster(results: ResultsFile, faster: str, slower: str) -> float | None:
    """Smallest swept value from which ``faster`` beats ``slower`` at every larger value."""
    return holds_from([(x, found.above_one) for x, found in speedups(results, faster, slower)])


def holds_from(points: list[tuple[float, bool]]) -> float | None:
    """Smallest x from which the condition holds at every larger x; None if not even at the last."""
    answer = None
    for x, holds in reversed(points):
        if not holds:
            break
        answer = x
    return answer


def speedups(results: ResultsFile, faster: str, slower: str) -> list[tuple[float, intervals.Ratio]]:
    """(x, speed-up of ``faster`` over ``slower`` with its interval) along the sweep.

    From the cases, not their measurements: a case carries the drift its machine's re-measures
    found, so a sweep's table and a sentence quoting one of its points give one interval."""
    return [(x, intervals.ratio(slow, fast))
            for (x, fast), (_, slow) in zip(sweep_cases(results, faster), sweep_cases(results, slower))]


def clearly_faster(speedup: intervals.Ratio, margin: float = NEGLIGIBLE_GAIN) -> bool:
    """A speed-up of at least ``margin`` over its whole interval.

    A gain that fits inside the noise of the two measurements is not a gain.
    """
    return speedup.low >= 1.0 + margin


def clear_gain_points(results: ResultsFile, faster: str = "graph", slower: str = "eager") -> list[float]:
    """Swept values where ``faster`` clearly (see ``clearly_faster``) beats ``slower``."""
    return [x for x, found in speedups(results, faster, slower) if clearly_faster(found)]


def tracing_payback_calls(results: ResultsFile, traced: str = "graph", eager: str = "eager") -> float:
    """Calls after which tracing has paid for itself.

    n calls cost ``first + (n − 1) × per_call`` in either mode, and eager's
    first call is dearer than its later ones too, so graph mode is ahead once
    ``n − 1 > (graph first − eager first) ÷ (eager per call − graph per call)``.
    Infinite when graph mode is not faster per call at all.
    """
    graph = results.case(traced).measurement
    eager_run = results.case(eager).measurement
    saving = eager_run.per_call_s - graph.per_call_s
    if saving <= 0:
        return math.inf
    return 1 + max(0.0, graph.first_call_s - eager_run.first_call_s) / saving


def difference_fades_at(results: ResultsFile, threshold: float = NEGLIGIBLE_GAIN) -> float | None:
    """Smallest swept value from which eager and graph differ by less than ``threshold`` either way,
    over the whole interval of the speed-up."""
    inside = [(x, 1 / (1 + threshold) < found.low and found.high < 1 + threshold)
              for x, found in speedups(results, "graph", "eager")]
    return holds_from(inside)
