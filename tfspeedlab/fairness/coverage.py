"""Do the intervals hold up? How often a re-measured speed-up lands inside the committed 95% interval.

A 95% interval claims something checkable: measure again, in another sitting, and the new speed-up
should usually fall inside the old interval. For a fresh estimate of the same spread, normal
theory gives about 83% (the difference of two estimates has √2 times the spread of one); far
fewer says the interval leaves out how much the machine moves between sittings.

The comparisons checked are the speed-ups an example's table shows (its baseline against every
other case, or within each column of a grid, its baseline row against the others), optionally
narrowed to the cells a page leads with (``HEADLINE``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.spec.layout import Grid, Sweep
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.grid import pivots

# The headline examples re-measured for the coverage table, each with the parameters that narrow
# it to the cells its page leads with (the predict ladder's batch-1 rungs, the TF1 question's
# small model).
HEADLINE: dict[str, dict[str, Any]] = {
    "small_ops": {},
    "train_step": {},
    "predict_ladder": {"batch": 1},
    "tf1_vs_tf2": {"model": "small"},
}
# What normal theory expects of a fresh estimate against another run's 95% interval.
EXPECTED_INSIDE = 0.83
# The share below which the intervals do not hold up and the method must change.
REQUIRED_INSIDE = 0.80


@dataclass(frozen=True)
class Comparison:
    """The speed-up of ``faster`` over ``slower`` (its baseline) in one example."""

    example: str
    slower: str
    faster: str


@dataclass(frozen=True)
class Landing:
    comparison: Comparison
    committed: intervals.Ratio
    remeasured: tuple[float, ...]  # each sitting's speed-up (its point estimate)

    @property
    def inside(self) -> int:
        return sum(self.committed.low <= value <= self.committed.high for value in self.remeasured)


def comparisons(results: ResultsFile, narrowed: Mapping[str, Any] | None = None) -> list[Comparison]:
    """The speed-ups the example's table shows, among the cases whose parameters match ``narrowed``."""
    wanted = dict(narrowed or {})

    def matches(case) -> bool:
        return all(case.params.get(name) == value for name, value in wanted.items())

    found = []
    if isinstance(results.layout, Grid):
        for grid in pivots(results):
            for column in grid.column_values:
                base = grid.baseline(column)
                for row in grid.row_values:
                    case = grid.cells.get((row, column))
                    if base is not None and case is not None and case is not base and matches(case):
                        found.append(Comparison(results.example, base.label, case.label))
    elif isinstance(results.layout, Sweep) and results.layout.baseline:
        layout = results.layout
        by_point = {(case.params[layout.series], case.params[layout.parameter]): case for case in results.cases}
        for (series, point), case in by_point.items():
            base = by_point.get((layout.baseline, point))
            if series != layout.baseline and base is not None and matches(case):
                found.append(Comparison(results.example, base.label, case.label))
    elif results.baseline is not None:
        found = [Comparison(results.example, results.baseline, case.label) for case in results.cases
                 if case.label != results.baseline and matches(case)]
    return found


def landings(committed: ResultsFile, remeasures: list[ResultsFile], narrowed: Mapping[str, Any] | None = None,
             method: str | None = None, drift: tuple[float, int] | None = None) -> list[Landing]:
    """Each comparison's committed interval (by ``method``, widened by ``drift`` under "with drift":
    estimated without these re-measures, so that none is checked against an interval it widened)
    and where each re-measure put it; a comparison a re-measure lacks (a run narrowed with
    ``--only``) is left out of that sitting."""
    found = []
    for comparison in comparisons(committed, narrowed):
        labels = {case.label for case in committed.cases}
        values = tuple(intervals.speedup(again, comparison.slower, comparison.faster).value for again in remeasures
                       if {comparison.slower, comparison.faster} <= {case.label for case in again.cases})
        if values and comparison.slower in labels:
            committed_ratio = intervals.ratio(committed.case(comparison.slower), committed.case(comparison.faster),
                                              method, drift=drift or (0.0, 0))
            found.append(Landing(comparison, committed_ratio, values))
    return found


@dataclass(frozen=True)
class Coverage:
    example: str
    landed: int
    total: int
    sittings: int

    @property
    def share(self) -> float:
        return self.landed / self.total if self.total else float("nan")


def summarise(by_example: Mapping[str, list[Landing]], sittings: Mapping[str, int]) -> list[Coverage]:
    """Per example, how many re-measured speed-ups landed inside the committed intervals."""
    return [Coverage(example, sum(landing.inside for landing in found),
                     sum(len(landing.remeasured) for landing in found), sittings[example])
            for example, found in by_example.items()]


# ------------------------------------------------------------ times, not speed-ups


@dataclass(frozen=True)
class TimeLanding:
    """One case's committed time with its one-sitting 95% interval (the hierarchical bootstrap of its
    processes and blocks; no drift widens a time), and each re-measure's time of the same case."""

    example: str
    case: str
    committed: intervals.Estimate
    remeasured: tuple[float, ...]

    @property
    def inside(self) -> int:
        return sum(self.committed.low <= value <= self.committed.high for value in self.remeasured)


def time_landings(committed: ResultsFile, remeasures: list[ResultsFile],
                  narrowed: Mapping[str, Any] | None = None) -> list[TimeLanding]:
    """Every case the checked speed-ups compare (``comparisons``), and where each re-measure put its
    time against the committed time's interval: the check a page's absolute times would face."""
    labels = dict.fromkeys(label for comparison in comparisons(committed, narrowed)
                           for label in (comparison.slower, comparison.faster))
    found = []
    for label in labels:
        case = committed.case(label)
        values = tuple(again.case(label).measurement.per_call_s for again in remeasures
                       if label in {other.label for other in again.cases})
        if values:
            estimate = intervals.estimate_of(case.measurement.per_call_s, intervals.resampled_estimates(case))
            found.append(TimeLanding(committed.example, label, estimate, values))
    return found
