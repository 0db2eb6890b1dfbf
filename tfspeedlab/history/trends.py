"""How each case's time moves across TensorFlow releases: a trend per case, and the changes
between consecutive releases with their intervals (the same statistics as ``tfspeedlab compare``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from tfspeedlab.core.results.cpu import cpu_description
from tfspeedlab.core.results.history import ReleaseResults
from tfspeedlab.core.results.schema import CaseResult, NotInResults, ResultsFile
from tfspeedlab.core.spec.releases import Release
from tfspeedlab.core.stats import intervals

# A change between releases is listed when its interval excludes 1 and it is at least this large.
# Two passes over the same release moved its cases by a median of up to 1.18× on the machine the
# committed history was measured on (``sitting_shifts``; a test keeps this above that drift):
# smaller significant changes may be the machine's, not the release's.
MATERIAL_CHANGE = 1.25


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
        """A change the interval says, from two processes or more in each pass (``release_ratio``)."""
        return not self.change.one_process and (self.change.above_one or self.change.below_one)

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
    """The case's time per release (the 10th percentile of all blocks) with its 95% bootstrap interval,
    widened by the drift between sittings where the case carries one (as the verdicts between
    releases are), so that a bar never looks clearer than the table's words."""
    points = []
    for release, result in measured(history, example, case):
        resampled = intervals.resampled_estimates(result)
        low, high = (float(end) for end in np.percentile(resampled, [2.5, 97.5]))
        value = intervals.estimate_s(result)
        if result.drift is not None and result.drift[1] and result.drift[0] > 0:
            low, high = intervals.widened(value, low, high, result.drift[0], intervals.t975(result.drift[1]))
        points.append(TrendPoint(release, value, low, high))
    return points


def sitting_trends(history: list[ReleaseResults], example: str, case: str) -> list[list[TrendPoint]]:
    """Where every release measured the case in several sittings (``tfspeedlab pool``): per sitting,
    its time on each release from that sitting's processes alone (no interval: one or two processes
    each). Empty where any release has one sitting: then the pooled trend is the whole story."""
    per_sitting: list[list[TrendPoint]] = []
    for release, result in measured(history, example, case):
        results = next(item.results[example] for item in history if item.release == release)
        counts = results.environment.get("sitting_runs")
        if not counts or len(counts) < 2:
            return []
        starts = np.cumsum([0, *counts])
        for index, (start, stop) in enumerate(zip(starts, starts[1:])):
            if index == len(per_sitting):
                per_sitting.append([])
            time_s = intervals.estimate_s(result.runs[start:stop])
            per_sitting[index].append(TrendPoint(release, time_s, time_s, time_s))
    return per_sitting


def processes_per_pass(results: ResultsFile, case: CaseResult) -> int:
    """The fewest processes that timed ``case`` in one pass of its file: a file pooled from passes
    (``tfspeedlab pool``, ``history --passes 2``) records each pass's count in ``sitting_runs``; else
    every process ran in its one pass."""
    counts = results.environment.get("sitting_runs")
    return min(counts) if counts else len(case.runs)


def release_ratio(history: list[ReleaseResults], example: str, new: tuple[Release, CaseResult],
                  old: tuple[Release, CaseResult]) -> intervals.Ratio:
    """``new``'s time over ``old``'s, each a (release, case) of ``example``. A case timed in one process
    per pass gets no verdict, however many passes pooled it: its processes differ by the pass they ran
    in (the start-up history's passes moved cold starts by up to 1.44×), and two processes from two
    passes give an interval of that move, not of the release's time. The ratio then counts one process
    (``Ratio.one_process``), as a table's one-process mark and note say."""
    found = intervals.ratio(new[1], old[1])
    fewest = min(processes_per_pass(_file(history, example, release), case) for release, case in (new, old))
    return found if fewest >= 2 else dataclasses.replace(found, processes=fewest)


def _file(history: list[ReleaseResults], example: str, release: Release) -> ResultsFile:
    return next(item.results[example] for item in history if item.release == release)


def cpu_of(history: list[ReleaseResults], example: str, release: Release) -> str | None:
    item = next((item for item in history if item.release == release), None)
    results = item.results.get(example) if item else None
    return cpu_description(results.environment) if results else None


def steps(history: list[ReleaseResults], example: str) -> list[ReleaseStep]:
    """Every case's change from each release to the next that measured it on the same CPU model
    (a CI matrix may measure releases on different machines: those are not compared)."""
    found = []
    for case in case_labels(history, example):
        series = measured(history, example, case)
        for (before, old), (after, new) in zip(series, series[1:]):
            if cpu_of(history, example, before) != cpu_of(history, example, after):
                continue
            found.append(ReleaseStep(case, before, after, intervals.estimate_s(old), intervals.estimate_s(new),
                                     release_ratio(history, example, (after, new), (before, old))))
    return found


def material_steps(history: list[ReleaseResults], example: str) -> list[ReleaseStep]:
    """The changes worth reading, largest first."""
    return sorted((step for step in steps(history, example) if step.material), key=lambda step: -step.size)


def across(history: list[ReleaseResults], example: str, case: str, first: Release, last: Release) -> intervals.Ratio:
    """``last``'s time over ``first``'s for one case (``NotInResults`` when either did not measure it,
    ``DifferentMachines`` when they were measured on different CPU models)."""
    by_release = dict(measured(history, example, case))
    if first not in by_release or last not in by_release:
        raise NotInResults(f"{example} · {case!r} was not measured on both {first.name} and {last.name}")
    if cpu_of(history, example, first) != cpu_of(history, example, last):
        raise DifferentMachines(f"{first.name} and {last.name} were measured on different CPU models; not compared")
    return release_ratio(history, example, (last, by_release[last]), (first, by_release[first]))


class DifferentMachines(NotInResults):
    """Two releases measured on different CPU models: their times are not compared."""

# The case parameters a history example names its workload and mode with, unless its layout is a
# grid (whose columns and rows then say which).
WORKLOAD_PARAMETER, MODE_PARAMETER = "workload", "mode"
# The parameter marking a case an example re-measures on every release (``tfspeedlab history
# --only in_history=True``), and the one trend group such cases form where no workload is named.
HISTORY_PARAMETER, HISTORY_GROUP = "in_history", "re-measured on every release"


def workload_groups(history: list[ReleaseResults], example: str) -> dict[str, dict[str, str]]:
    """Per workload (a grid's column parameter, else the ``workload`` parameter), its cases by
    mode (the grid's row parameter, else ``mode``). An example whose cases name no workload and
    mode (memory, start-up) has one group, ``HISTORY_GROUP``: the cases it re-measures on every
    release (``in_history``), each named by its label."""
    newest = next((item.results[example] for item in reversed(history) if example in item.results), None)
    if newest is None:
        return {}
    columns = getattr(newest.layout, "columns", WORKLOAD_PARAMETER)
    rows = getattr(newest.layout, "rows", MODE_PARAMETER)
    groups: dict[str, dict[str, str]] = {}
    for item in history:
        results = item.results.get(example)
        for case in results.cases if results else ():
            if columns in case.params and rows in case.params:
                groups.setdefault(str(case.params[columns]), {})[str(case.params[rows])] = case.label
    if not groups:
        marked = {case.label for item in history if example in item.results
                  for case in item.results[example].cases if case.params.get(HISTORY_PARAMETER) is True}
        in_history = {label: label for label in case_labels(history, example) if label in marked}
        return {HISTORY_GROUP: in_history} if in_history else {}
    order = [str(case.params[columns]) for case in newest.cases if columns in case.params]
    return {name: groups[name] for name in sorted(groups, key=lambda name: (order + [name]).index(name))}


def mode_label(history: list[ReleaseResults], example: str, label: str, mode: str) -> str:
    """The mode's name, saying when its time is per step of a longer call (``fit``)."""
    for item in reversed(history):
        results = item.results.get(example)
        if results and label in {case.label for case in results.cases}:
            steps = results.case(label).params.get("steps_per_call", 1)
            return f"{mode} (per step)" if isinstance(steps, int) and steps > 1 else mode
    return mode


@dataclass(frozen=True)
class SittingShift:
    """How a release's cases moved between the first two sittings pooled in its file."""

    release: Release
    differing: int | None  # cases whose two sittings differ significantly; None: one process a sitting, no verdict
    cases: int
    median_change: float  # median over cases of second sitting ÷ first


def largest_drift(history: list[ReleaseResults], example: str) -> float | None:
    """The largest median move of a release's cases between its passes (either way), or None."""
    shifts = sitting_shifts(history, example)
    return max((max(s.median_change, 1 / s.median_change) for s in shifts), default=None)


def sitting_shifts(history: list[ReleaseResults], example: str) -> list[SittingShift]:
    """Per release measured in two or more sittings (``tfspeedlab pool``), its first two compared."""
    found = []
    for item in history:
        results = item.results.get(example)
        counts = results.environment.get("sitting_runs") if results else None
        if not counts or len(counts) < 2:
            continue
        first, second = counts[0], counts[1]
        changes = [intervals.ratio(case.runs[first:first + second], case.runs[:first]) for case in results.cases]
        differing = (None if any(change.one_process for change in changes)
                     else sum(c.above_one or c.below_one for c in changes))
        found.append(SittingShift(item.release, differing, len(changes), float(np.median([c.value for c in changes]))))
    return found


def pass_times(history: list[ReleaseResults], example: str, case: str) -> list[tuple[Release, list[float]]]:
    """Per release whose file pools two or more passes (``sitting_runs``), the case's time in each pass:
    the 10th percentile of that pass's blocks alone, as the chart's line per pass draws it."""
    found = []
    for release, result in measured(history, example, case):
        counts = _file(history, example, release).environment.get("sitting_runs")
        if not counts or len(counts) < 2:
            continue
        starts = np.cumsum([0, *counts])
        found.append((release, [intervals.estimate_s(result.runs[start:stop])
                                for start, stop in zip(starts, starts[1:])]))
    return found


@dataclass(frozen=True)
class PassMove:
    """The largest move of one case of one release between its first two passes, as ``pass_times``
    gives each pass's time (the per-pass table's): the slower pass's time over the faster's."""

    release: Release
    case: str
    factor: float


def largest_pass_move(history: list[ReleaseResults], example: str) -> PassMove | None:
    """Over every case of every release measured in passes, the largest move between its first two
    passes (either way), or None where no release was: one case's move, not a median over cases."""
    found = None
    for label in case_labels(history, example):
        for release, times in pass_times(history, example, label):
            first, second = times[0], times[1]
            factor = max(first, second) / min(first, second)
            if found is None or factor > found.factor:
                found = PassMove(release, label, factor)
    return found


@dataclass(frozen=True)
class PassGap:
    """Why changes between releases of a history pooled from passes of one process each get no verdict:
    the passes disagree beyond their own spread, so an interval over them measures the gap between
    the passes, not the release. ``apart`` of the ``pairs`` (release, case) had the two passes' blocks
    in ranges that do not overlap."""

    passes: int
    blocks_per_pass: int  # the fewest blocks one pass of one case timed (for start-up, cold starts)
    cold_starts: bool  # each block a fresh process's cold start (the startup example), not a call
    apart: int
    pairs: int


def pass_gap(history: list[ReleaseResults], example: str) -> PassGap | None:
    """The gap between the first two passes of every release measured in passes of one process each
    (``processes_per_pass`` 1), or None where no release was: its one-process verdicts then have the
    plain reason, one process."""
    passes, blocks, apart, pairs, cold = 0, None, 0, 0, False
    for item in history:
        results = item.results.get(example)
        counts = results.environment.get("sitting_runs") if results else None
        if not counts or len(counts) < 2 or min(counts) > 1:
            continue
        passes = max(passes, len(counts))
        cold = cold or bool(results.params.get("cold_starts_per_process"))
        first, second = counts[0], counts[1]
        for case in results.cases:
            one = [t for run in case.runs[:first] for t in run.samples_s]
            two = [t for run in case.runs[first:first + second] for t in run.samples_s]
            if not one or not two:
                continue
            blocks = min(blocks or len(one), len(one), len(two))
            pairs += 1
            apart += max(one) < min(two) or max(two) < min(one)
    if not pairs:
        return None
    return PassGap(passes, blocks, cold, apart, pairs)
