"""Quantities derived from results files: fits, break-evens, crossovers, paybacks.

Everything here is computed from measured medians when the site is built, so
a page that states a break-even states the one its results file implies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tfspeedlab.analysis import intervals
from tfspeedlab.measure.measurement import Measurement
from tfspeedlab.results.schema import NotInResults, ResultsFile
from tfspeedlab.results.timing import Timing
from tfspeedlab.spec.layout import Sweep

# A gain below this is within what the spread of a 2-core runner can produce;
# the size sweep reports where graph mode's gain falls under it.
NEGLIGIBLE_GAIN = 0.10


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
    weights = [1.0 / (y * y) for y in ys]
    sw = sum(weights)
    sx = sum(w * x for w, x in zip(weights, xs))
    sy = sum(w * y for w, y in zip(weights, ys))
    sxx = sum(w * x * x for w, x in zip(weights, xs))
    sxy = sum(w * x * y for w, x, y in zip(weights, xs, ys))
    slope = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    intercept = (sy - slope * sx) / sw
    fit = LinearFit(intercept, slope, 0.0)
    worst = max(abs(fit.predict(x) - y) / y for x, y in zip(xs, ys))
    return LinearFit(intercept, slope, worst)


def sweep(results: ResultsFile, mode: str) -> list[tuple[float, Measurement]]:
    """(x, measurement) of one mode along the results file's sweep parameter, x ascending."""
    layout = sweep_layout(results)
    points = [(case.params[layout.parameter], case.measurement) for case in results.cases
              if case.params[layout.series] == mode]
    if not points:
        raise NotInResults(f"{results.example} has no cases of mode {mode!r}")
    return sorted(points, key=lambda point: point[0])


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


def mode_fit(results: ResultsFile, mode: str) -> LinearFit:
    points = sweep(results, mode)
    return fit_line([x for x, _ in points], [m.median_s for _, m in points])


@dataclass(frozen=True)
class OpCosts:
    """The op-count sweep, reduced to the numbers that explain it."""

    eager: LinearFit
    graph: LinearFit

    @property
    def graph_call_s(self) -> float:
        """Fixed cost of one tf.function call, whatever it contains."""
        return self.graph.intercept_s

    @property
    def eager_call_s(self) -> float:
        return self.eager.intercept_s

    @property
    def eager_per_op_s(self) -> float:
        return self.eager.slope_s

    @property
    def graph_per_op_s(self) -> float:
        return self.graph.slope_s

    @property
    def break_even_ops(self) -> float:
        """Op count at which the two fitted lines cross: below it, eager is faster."""
        return (self.graph.intercept_s - self.eager.intercept_s) / (self.eager.slope_s - self.graph.slope_s)


def op_costs(results: ResultsFile) -> OpCosts:
    return OpCosts(eager=mode_fit(results, "eager"), graph=mode_fit(results, "graph"))


def first_x_where_faster(results: ResultsFile, faster: str, slower: str) -> float | None:
    """Smallest swept value from which ``faster`` beats ``slower`` at every larger value."""
    pairs = zip(sweep(results, faster), sweep(results, slower))
    return holds_from([(x, _speedup(fast, slow, x).above_one) for (x, fast), (_, slow) in pairs])


def holds_from(points: list[tuple[float, bool]]) -> float | None:
    """Smallest x from which the condition holds at every larger x; None if not even at the last."""
    answer = None
    for x, holds in reversed(points):
        if not holds:
            break
        answer = x
    return answer


def _speedup(fast: Timing, slow: Timing, x: float) -> intervals.Ratio:
    return intervals.ratio(slow.runs, fast.runs)


def speedups(results: ResultsFile, faster: str, slower: str) -> list[tuple[float, intervals.Ratio]]:
    """(x, speed-up of ``faster`` over ``slower`` with its interval) along the sweep."""
    return [(x, _speedup(fast, slow, x)) for (x, fast), (_, slow) in zip(sweep(results, faster), sweep(results, slower))]


def gains(results: ResultsFile, faster: str = "graph", slower: str = "eager") -> list[tuple[float, float]]:
    """(x, speed-up − 1) along the sweep: 0.25 means 25% faster."""
    return [(x, _speedup(fast, slow, x).value - 1.0)
            for (x, fast), (_, slow) in zip(sweep(results, faster), sweep(results, slower))]


def clearly_faster(fast: Timing, slow: Timing, margin: float = NEGLIGIBLE_GAIN, x: float = 0) -> bool:
    """``fast`` beats ``slow`` by ``margin`` over the whole interval of the speed-up.

    A gain that fits inside the noise of the two measurements is not a gain.
    """
    return _speedup(fast, slow, x).low >= 1.0 + margin


def clear_gain_points(results: ResultsFile, faster: str = "graph", slower: str = "eager") -> list[float]:
    """Swept values where ``faster`` clearly (see ``clearly_faster``) beats ``slower``."""
    return [x for (x, fast), (_, slow) in zip(sweep(results, faster), sweep(results, slower))
            if clearly_faster(fast, slow, x=x)]


def gain_fades_at(results: ResultsFile) -> float | None:
    """Smallest swept value from which graph mode never clearly gains ``NEGLIGIBLE_GAIN`` over eager.

    The first swept value when it never does; None when it still does at the
    largest value measured.
    """
    points = [x for x, _ in sweep(results, "graph")]
    winning = clear_gain_points(results)
    if not winning:
        return points[0]
    later = [x for x in points if x > max(winning)]
    return later[0] if later else None


def tracing_payback_calls(results: ResultsFile, traced: str = "graph", eager: str = "eager") -> float:
    """Calls after which tracing has paid for itself.

    The first traced call costs ``first − per_call`` more than a later one;
    every later call saves ``eager − per_call``. Infinite when graph mode is
    not faster per call at all.
    """
    graph = results.case(traced).measurement
    saving = results.case(eager).measurement.median_s - graph.median_s
    if saving <= 0:
        return math.inf
    return (graph.first_call_s - graph.median_s) / saving


def difference_fades_at(results: ResultsFile, threshold: float = NEGLIGIBLE_GAIN) -> float | None:
    """Smallest swept value from which eager and graph differ by less than ``threshold`` either way,
    over the whole interval of the speed-up."""
    pairs = zip(sweep(results, "graph"), sweep(results, "eager"))
    inside = [(x, 1 / (1 + threshold) < found.low and found.high < 1 + threshold)
              for (x, fast), (_, slow) in pairs for found in [_speedup(fast, slow, x)]]
    return holds_from(inside)
