"""``tfspeedlab compare OLD NEW``: how a new run differs from an old one, with intervals, as benchstat
and pyperf's ``compare_to`` do, and what can be compared at all when the two come from different machines.

OLD and NEW are results files or results trees (a root of ``<runner>/`` folders or one runner's
folder). Files pair up by runner and example, cases by label.

* On one CPU model, each case's time is compared: new ÷ old, with its interval (``CaseChange``).
* On two CPU models (``run_environment.differences``), raw times say which machine is faster, not
  whether the code changed; what transfers is each example's speed-ups between its cases (graph
  against eager, each case against the baseline its layout declares: ``speedup_pairs``). So the
  comparison leads with each side's speed-up, side by side, and the change between them
  (``SpeedupChange``); raw times come only when asked for (``--times``).

Every comparison reads in the guide's four verdicts (``tfspeedlab.core.wording``), and none where a
side was timed in a single process ("one process: times only"), as on the pages. A comparison's
``gain`` is always new against old as a speed-up (above 1: the new run does better), so that both
kinds sort, count, average and fail a CI job alike.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tfspeedlab.core.results.schema import RUNNERS, ResultsFile
from tfspeedlab.core.results.store import load_results, load_runner
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.wording import Verdict, page_verdict
from tfspeedlab.harness.run_environment import Differences, EnvironmentSummary, differences, summarize
from tfspeedlab.harness.speedup_pairs import speedup_pairs


class CompareError(ValueError):
    """The two sides have nothing in common, or one cannot be read."""


class _Judged:
    """A change whose ``gain`` (new against old, above 1 better) is judged in the four verdicts."""

    gain: intervals.Ratio

    @property
    def verdict(self) -> Verdict | None:
        """The four verdicts' word for the new run; None where a side was timed in one process."""
        return page_verdict(self.gain)

    @property
    def significant(self) -> bool:
        return self.verdict is not None and self.verdict.clear


@dataclass(frozen=True)
class CaseChange(_Judged):
    """One case's time per call on both sides."""

    runner: str
    example: str
    case: str
    old_s: float
    new_s: float
    change: intervals.Ratio  # new ÷ old: above 1, the new run is slower

    @property
    def gain(self) -> intervals.Ratio:
        """New against old as a speed-up (old ÷ new): above 1, the new run is faster."""
        change = self.change
        return intervals.Ratio(1 / change.value, 1 / change.high, 1 / change.low, change.processes, change.drift)


@dataclass(frozen=True)
class SpeedupChange(_Judged):
    """One speed-up (a case against its baseline, timed in the same processes) on both sides."""

    runner: str
    example: str
    case: str
    baseline: str
    old: intervals.Ratio  # the baseline's time ÷ the case's, on the old side
    new: intervals.Ratio

    @property
    def gain(self) -> intervals.Ratio:
        """The new speed-up ÷ the old: above 1, the case does better against its baseline on the new side."""
        return ratio_of_independent(self.new, self.old)


Change = CaseChange | SpeedupChange


def ratio_of_independent(top: intervals.Ratio, bottom: intervals.Ratio) -> intervals.Ratio:
    """``top ÷ bottom`` of two ratios from independent runs (two machines), with an interval whose
    each end joins how far the two intervals reach that way in quadrature on the log scale: for two
    independent estimates the standard errors of their logarithms add so. One process on either side
    is one process for the result (no verdict)."""
    value = top.value / bottom.value
    down = math.hypot(math.log(top.value / top.low), math.log(bottom.high / bottom.value))
    up = math.hypot(math.log(top.high / top.value), math.log(bottom.value / bottom.low))
    counts = [count for count in (top.processes, bottom.processes) if count is not None]
    return intervals.Ratio(value, value * math.exp(-down), value * math.exp(up), min(counts) if counts else None)


def load_side(path: Path) -> dict[tuple[str, str], ResultsFile]:
    """Every results file under ``path``, by (runner, example)."""
    path = Path(path)
    if path.is_file():
        results = load_results(path)
        return {(results.runner, results.example): results}
    if not path.is_dir():
        raise CompareError(f"{path}: no such file or folder")
    if path.name in RUNNERS:
        return {(path.name, example): results for example, results in load_runner(path).items()}
    found = {}
    for runner in RUNNERS:
        if (path / runner).is_dir():
            found.update({(runner, example): results for example, results in load_runner(path / runner).items()})
    if not found:
        raise CompareError(f"{path}: no results files (expected <runner>/<example>.json under it)")
    return found


def paired_files(old: Path, new: Path) -> list[tuple[ResultsFile, ResultsFile]]:
    """(old, new) results files of the same runner and example, in that order."""
    before, after = load_side(old), load_side(new)
    # Two single files are compared whatever their names: a run against a modified copy.
    if len(before) == 1 and len(after) == 1 and Path(old).is_file() and Path(new).is_file():
        pairs = [(next(iter(before.values())), next(iter(after.values())))]
    else:
        pairs = [(before[key], after[key]) for key in sorted(before.keys() & after.keys())]
    if not pairs:
        raise CompareError(f"{old} and {new} have no runner/example in common")
    return pairs


def common_labels(old: ResultsFile, new: ResultsFile) -> list[str]:
    """The case labels both files measured, in the old file's order."""
    labels = {case.label for case in new.cases}
    return [case.label for case in old.cases if case.label in labels]


def time_changes(pairs: list[tuple[ResultsFile, ResultsFile]]) -> list[CaseChange]:
    changes = []
    for old_results, new_results in pairs:
        for label in common_labels(old_results, new_results):
            old_case, new_case = old_results.case(label), new_results.case(label)
            changes.append(CaseChange(new_results.runner, new_results.example, label,
                                      intervals.estimate_s(old_case), intervals.estimate_s(new_case),
                                      intervals.ratio(new_case, old_case)))
    return changes


def speedup_changes(pairs: list[tuple[ResultsFile, ResultsFile]]) -> list[SpeedupChange]:
    """Every speed-up both sides measured: the pairs the new file's layout declares, where the old
    file has the same case and baseline."""
    changes = []
    for old_results, new_results in pairs:
        old_pairs = set(speedup_pairs(old_results))
        for pair in speedup_pairs(new_results):
            if pair in old_pairs:
                changes.append(SpeedupChange(
                    new_results.runner, new_results.example, pair.case, pair.baseline,
                    intervals.ratio(old_results.case(pair.baseline), old_results.case(pair.case)),
                    intervals.ratio(new_results.case(pair.baseline), new_results.case(pair.case))))
    return changes


def compare(old: Path, new: Path) -> list[CaseChange]:
    """Each case's time on both sides, in the order of the files and their cases."""
    changes = time_changes(paired_files(old, new))
    if not changes:
        raise CompareError(f"{old} and {new} have no case in common: nothing to compare")
    return changes


def by_change(changes: list[Change]) -> list[Change]:
    """The biggest slow-down first, the biggest gain last (as benchstat sorts by delta)."""
    return sorted(changes, key=lambda change: change.gain.value)


@dataclass(frozen=True)
class Summary:
    """The comparisons a report leads with, in one line's numbers."""

    compared: int
    geometric_mean: float  # of the gains: above 1, the new run does better on the whole
    counts: dict[Verdict | None, int]  # None: no verdict (one process)

    @property
    def differing(self) -> int:
        return self.counts.get(Verdict.FASTER, 0) + self.counts.get(Verdict.SLOWER, 0)


def summarize_changes(changes: list[Change]) -> Summary:
    gains = [change.gain.value for change in changes]
    mean = math.exp(sum(math.log(gain) for gain in gains) / len(gains)) if gains else 1.0
    return Summary(len(changes), mean, dict(Counter(change.verdict for change in changes)))


def slowed(changes: list[Change], percent: float) -> list[Change]:
    """The comparisons significantly slower on the new side (their whole interval says so), by
    ``percent`` or more at their estimate, as ``asv continuous --factor`` judges a regression."""
    return [change for change in changes
            if change.verdict is Verdict.SLOWER and 1 / change.gain.value >= 1 + percent / 100]


@dataclass(frozen=True)
class Comparison:
    """Everything ``compare`` reports: each side's environment, where they differ, and both kinds of
    comparison, each sorted by change."""

    old_path: Path
    new_path: Path
    old: EnvironmentSummary
    new: EnvironmentSummary
    differences: Differences
    times: list[CaseChange]
    speedups: list[SpeedupChange]
    # Compared examples with no speed-up on both sides (no baseline): only their times compare.
    without_speedups: list[str]

    @property
    def leads_with_speedups(self) -> bool:
        """Across machines, speed-ups lead (raw times do not transfer); on one machine, times do."""
        return self.differences.machines_differ

    @property
    def leading(self) -> list[Change]:
        return self.speedups if self.leads_with_speedups else self.times


def compare_runs(old: Path, new: Path) -> Comparison:
    pairs = paired_files(old, new)
    times = time_changes(pairs)
    if not times:
        raise CompareError(f"{old} and {new} have no case in common: nothing to compare")
    speedups = speedup_changes(pairs)
    compared = {(change.runner, change.example) for change in speedups}
    labels = [set(common_labels(*pair)) for pair in pairs]
    old_summary, new_summary = (summarize([(pair[side], wanted) for pair, wanted in zip(pairs, labels)])
                                for side in (0, 1))
    return Comparison(
        Path(old), Path(new), old_summary, new_summary, differences(pairs, old_summary, new_summary),
        by_change(times), by_change(speedups),
        [f"{after.runner}/{after.example}" for _, after in pairs if (after.runner, after.example) not in compared])
