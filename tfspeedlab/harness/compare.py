"""``tfspeedlab compare OLD NEW``: per case, how much the new run differs, with an interval (as benchstat).

OLD and NEW are results files or results trees (a root of ``<runner>/`` folders
or one runner's folder). Files pair up by runner and example, cases by label.
A difference is significant only when the whole bootstrap interval of
new ÷ old lies on one side of 1 (see ``intervals``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfspeedlab.core.results.schema import RUNNERS, ResultsFile
from tfspeedlab.core.results.store import load_results, load_runner
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.wording import Verdict, change_verdict


class CompareError(ValueError):
    """The two sides have nothing in common, or one cannot be read."""


@dataclass(frozen=True)
class CaseChange:
    runner: str
    example: str
    case: str
    old_s: float
    new_s: float
    change: intervals.Ratio  # new ÷ old: above 1, the new run is slower

    @property
    def significant(self) -> bool:
        return self.change.above_one or self.change.below_one

    @property
    def verdict(self) -> Verdict:
        return change_verdict(self.change)


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


def compare(old: Path, new: Path) -> list[CaseChange]:
    before, after = load_side(old), load_side(new)
    # Two single files are compared whatever their names: a run against a modified copy.
    if len(before) == 1 and len(after) == 1 and Path(old).is_file() and Path(new).is_file():
        pairs = [(next(iter(before.values())), next(iter(after.values())))]
    else:
        pairs = [(before[key], after[key]) for key in sorted(before.keys() & after.keys())]
    if not pairs:
        raise CompareError(f"{old} and {new} have no runner/example in common")
    changes = []
    for old_results, new_results in pairs:
        labels = [case.label for case in old_results.cases if case.label in {c.label for c in new_results.cases}]
        for label in labels:
            old_case, new_case = old_results.case(label), new_results.case(label)
            change = intervals.ratio(new_case, old_case)
            changes.append(CaseChange(new_results.runner, new_results.example, label,
                                      intervals.estimate_s(old_case), intervals.estimate_s(new_case), change))
    if not changes:
        raise CompareError(f"{old} and {new} have no case in common: nothing to compare")
    return changes
