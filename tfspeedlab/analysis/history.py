"""How each case's time moves across TensorFlow releases: a trend per case, and the changes
between consecutive releases with their intervals (the same statistics as ``tfspeedlab compare``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tfspeedlab.analysis import intervals
from tfspeedlab.history.releases import Release
from tfspeedlab.results.history import ReleaseResults
from tfspeedlab.results.schema import CaseResult

# A change between releases is listed when its interval excludes 1 and it is at least this large:
# smaller significant changes are within what a re-run of the same release can move here.
MATERIAL_CHANGE = 1.10


@dataclass(frozen=True)
class TrendPoint:
    release: Release
    estimate_s: float
    low_s: float
    high_s: float


@dataclass(frozen=True)
class ReleaseStep:
    """One case from one release to the next release that measured it: ``change`` is new ÷ old."""

    case: str
    before: Release
    after: Release
    old_s: float
    new_s: float
    change: intervals.Ratio

    @property
    def significant(self) -> bool:
        return self.change.above_one or self.change.below_one

    @property
    def material(self) -> bool:
        return self.significant and max(self.change.value, 1 / self.change.value) >= MATERIAL_CHANGE

    @property
    def size(self) -> float:
        """How large the change is either way: 2.0 for twice as slow and for twice as fast."""
        return max(self.change.value, 1 / self.change.value)


def case_labels(history: list[ReleaseResults], example: str) -> list[str]:
    """Every case measured in any release, in the order the newest file lists them."""
    labels: dict[str, None] = {}
    for item in reversed(history):
        if example in item.results:
            labels.update((case.label, None) for case in item.results[example].cases)
    return list(labels)


def measured(history: list[ReleaseResults], example: str, case: str) -> list[tuple[Release, CaseResult]]:
    found = []
    for item in history:
        results = item.results.get(example)
        if results is not None and case in {c.label for c in results.cases}:
            found.append((item.release, results.case(case)))
    return found


def trend(history: list[ReleaseResults], example: str, case: str) -> list[TrendPoint]:
    """The case's time per release (the 10th percentile of all blocks) with its 95% bootstrap interval."""
    points = []
    for release, result in measured(history, example, case):
        resampled = intervals.resampled_estimates(result)
        low, high = np.percentile(resampled, [2.5, 97.5])
        points.append(TrendPoint(release, intervals.estimate_s(result), float(low), float(high)))
    return points


def steps(history: list[ReleaseResults], example: str) -> list[ReleaseStep]:
    """Every case's change from each release to the next that measured it."""
    found = []
    for case in case_labels(history, example):
        series = measured(history, example, case)
        for (before, old), (after, new) in zip(series, series[1:]):
            found.append(ReleaseStep(case, before, after, intervals.estimate_s(old), intervals.estimate_s(new),
                                     intervals.ratio(new, old)))
    return found


def material_steps(history: list[ReleaseResults], example: str) -> list[ReleaseStep]:
    """The changes worth reading, largest first."""
    return sorted((step for step in steps(history, example) if step.material), key=lambda step: -step.size)


def across(history: list[ReleaseResults], example: str, case: str, first: Release, last: Release) -> intervals.Ratio:
    """``last``'s time over ``first``'s for one case (KeyError when either did not measure it)."""
    by_release = dict(measured(history, example, case))
    return intervals.ratio(by_release[last], by_release[first])

def workload_groups(history: list[ReleaseResults], example: str) -> dict[str, dict[str, str]]:
    """Per value of the layout's column parameter (the workload), its cases by row value (the mode)."""
    newest = next((item.results[example] for item in reversed(history) if example in item.results), None)
    if newest is None:
        return {}
    columns, rows = newest.layout.columns, newest.layout.rows
    groups: dict[str, dict[str, str]] = {}
    for item in history:
        results = item.results.get(example)
        for case in results.cases if results else ():
            groups.setdefault(str(case.params[columns]), {})[str(case.params[rows])] = case.label
    order = [str(case.params[columns]) for case in newest.cases]
    return {name: groups[name] for name in sorted(groups, key=lambda name: (order + [name]).index(name))}


def mode_label(history: list[ReleaseResults], example: str, label: str, mode: str) -> str:
    """The mode's name, saying when its time is per step of a longer call (``fit``)."""
    for item in reversed(history):
        results = item.results.get(example)
        if results and label in {case.label for case in results.cases}:
            steps = results.case(label).params.get("steps_per_call", 1)
            return f"{mode} (per step)" if isinstance(steps, int) and steps > 1 else mode
    return mode
