"""Pool two sittings of the same examples: each case's processes from both, in one results file.

A case is a set of runs, one per fresh process. Two sittings of the same code
on the same machine are more processes of it, taken at two times: pooled, the
case's interval covers how far the machine moved between them. This matters
for the release history, where each release is timed at its own time of the
sitting: measured once, a release that fell in a slow quarter of an hour
carried it into every comparison with its neighbours (a re-run of one release
moved nearly all of its cases the same way). ``tfspeedlab history --passes 2`` measures every
release twice, in opposite orders, and pools the two; ``tfspeedlab pool``
does the same with two results trees measured apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tfspeedlab.core.results.cpu import CPU_ID_FIELDS
from tfspeedlab.core.results.history import ENVIRONMENT_RECORD, HISTORY_FOLDER, check_not_linked, read_record
from tfspeedlab.core.results.schema import FAILURE_SUFFIX, RUNNERS, CaseResult, ResultsFile, to_dict
from tfspeedlab.core.results.store import check_placement, load_results, write_json_atomic

# Environment fields that must agree for two sittings to be the same code on the same software.
SAME_ENVIRONMENT = ("git_commit", "tensorflow", "keras", "tf_keras", "numpy", "python", "cpu_model", "cpu_flags",
                    *CPU_ID_FIELDS)


# Pools two saved diagnoses' ``diagnosis`` blocks (the diagnosis package's, given by the command).
DiagnosisPooler = Callable[[ResultsFile, ResultsFile], Mapping[str, Any]]


class PoolError(ValueError):
    """Two files that are not two sittings of the same measurement."""


def pool(first: ResultsFile, second: ResultsFile, pool_diagnosis: DiagnosisPooler | None = None) -> ResultsFile:
    """``second`` with every case's runs preceded by ``first``'s (PoolError where they differ); a
    saved diagnosis's block pooled by ``pool_diagnosis``."""
    where = f"{first.source or first.example} and {second.source or second.example}"
    for name in ("example", "runner", "quick", "baseline", "layout"):
        if getattr(first, name) != getattr(second, name):
            raise PoolError(f"{where}: their {name} differs")
    check_same_workload(first, second, where)
    environment = pooled_environment(first.environment, second.environment, where)
    cases = tuple(pooled_case(first.case(case.label), case) for case in second.cases)
    # Where each sitting's runs start, when every case has the same number per sitting (so that a
    # page can compare the sittings): [3, 3] for two sittings of three processes.
    counts = [_runs_per_case(first, where), _runs_per_case(second, where)]
    if None not in counts:
        environment["sitting_runs"] = [*counts[0], *counts[1]]
    pooled = replace(second, cases=cases, environment=environment)
    if first.diagnosis is None and second.diagnosis is None:
        return pooled
    if pool_diagnosis is None:
        raise PoolError(f"{where}: saved diagnoses; pool them with tfspeedlab pool")
    try:
        return replace(pooled, diagnosis=pool_diagnosis(first, second))
    except ValueError as error:
        raise PoolError(f"{where}: {error}") from None


def check_same_workload(first: ResultsFile, second: ResultsFile, where: str) -> None:
    """PoolError unless both measured the same workload: the same parameters (a quick run's smaller
    workload, or another size, is another measurement however alike its labels) and the same cases,
    each with the same parameters. Compared as JSON, where 1, 1.0 and true are three values."""
    if as_json(first.params) != as_json(second.params):
        raise PoolError(f"{where}: their params differ ({as_json(first.params)[:120]} vs "
                        f"{as_json(second.params)[:120]}); pool only sittings of one workload")
    if [case.label for case in first.cases] != [case.label for case in second.cases]:
        raise PoolError(f"{where}: their cases differ")
    for index, (before, after) in enumerate(zip(first.cases, second.cases)):
        if as_json(before.params) != as_json(after.params):
            raise PoolError(f"{where}: cases[{index}].params of {after.label[:80]!r} differ "
                            f"({as_json(before.params)[:120]} vs {as_json(after.params)[:120]}); "
                            "pool only sittings of one workload")


def as_json(value: Any) -> str:
    """A parameter as JSON text, as two sittings of one workload must agree on it (1, 1.0 and true differ)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)


def pooled_environment(first: Mapping[str, Any], second: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The second sitting's environment with every sitting's time, after checking that both ran the
    same code on the same software and CPU (PoolError naming ``where`` otherwise)."""
    for name in SAME_ENVIRONMENT:
        if first.get(name) != second.get(name):
            raise PoolError(f"{where}: environment.{name} differs ({first.get(name)!r} vs "
                            f"{second.get(name)!r}); pool only sittings of the same code and software")
    before, after = sittings(first, where), sittings(second, where)
    if shared := sorted(set(before) & set(after)):
        # The same processes counted twice would narrow every interval with runs that are copies.
        raise PoolError(f"{where}: both hold the sitting of {shared[0]}; a sitting is pooled once, never with "
                        "itself or with a tree it was already pooled into")
    return {**second, "sittings": [*before, *after]}


def sittings(environment: Mapping[str, Any], where: str) -> list[str]:
    """The times of the sittings a results file holds: its ``sittings``, or its one ``utc_time``."""
    found = environment.get("sittings", [environment.get("utc_time")])
    if not isinstance(found, list) or not found or not all(isinstance(time, str) and time for time in found):
        raise PoolError(f"{where}: environment.sittings must be a non-empty list of UTC times, found {found!r}")
    if len(set(found)) != len(found):
        raise PoolError(f"{where}: environment.sittings lists one sitting twice: {found!r}")
    return found


def pooled_case(first: CaseResult, second: CaseResult) -> CaseResult:
    """``second`` with ``first``'s runs before its own, and each process's metrics where both have them."""
    runs = first.runs + second.runs
    by_process = first.metrics_by_process + second.metrics_by_process
    return replace(second, runs=runs, run_metrics=by_process if len(by_process) == len(runs) else ())


def _runs_per_case(results: ResultsFile, where: str) -> list[int] | None:
    """The runs of each sitting already pooled in ``results``, or of its one sitting; None when its
    cases have different numbers of runs. A recorded ``sitting_runs`` must add up to every case's runs."""
    counts = {len(case.runs) for case in results.cases}
    if "sitting_runs" in results.environment:
        recorded = results.environment["sitting_runs"]
        held = sittings(results.environment, where)
        if (not isinstance(recorded, list) or len(recorded) != len(held)
                or not all(isinstance(count, int) and not isinstance(count, bool) and count > 0 for count in recorded)
                or counts != {sum(recorded)}):
            raise PoolError(f"{where}: environment.sitting_runs {recorded!r} does not match its {len(held)} "
                            f"sitting(s) and {sorted(counts)} runs per case")
        return list(recorded)
    return [counts.pop()] if len(counts) == 1 else None


@dataclass
class PoolReport:
    written: list[Path] = field(default_factory=list)
    only_in_one: list[Path] = field(default_factory=list)


def pool_trees(first: Path, second: Path, into: Path, pool_diagnosis: DiagnosisPooler | None = None) -> PoolReport:
    """Every results file found at the same place under both roots (``<runner>/<example>.json``,
    ``<runner>/history/tf-<release>/<example>.json``, the saved diagnoses ``<runner>/diagnose/<name>.json``
    and the guide's runs beside them), pooled into ``into`` at that place; a release's environment
    record comes along. Everything is checked before anything is written."""
    report, pooled = PoolReport(), []
    for relative in _results_files(first):
        if not (second / relative).is_file():
            report.only_in_one.append(first / relative)
            continue
        runner = relative.parts[0]
        sides = []
        for root in (first, second):
            if relative.parts[1:2] == (HISTORY_FOLDER,):  # a linked folder would pool files from elsewhere
                check_not_linked(root / runner / HISTORY_FOLDER)
                check_not_linked(root / relative.parent)
            results = load_results(root / relative)
            check_placement(results, root / relative, runner)
            sides.append(results)
        record = second / relative.parent / ENVIRONMENT_RECORD
        pooled.append((relative, pool(*sides, pool_diagnosis), read_record(record) if record.is_file() else None))
    report.only_in_one += [second / relative for relative in _results_files(second) if not (first / relative).is_file()]
    if not pooled:
        raise PoolError(f"{first} and {second} hold no results file at the same place")
    for relative, results, record in pooled:
        write_json_atomic(into / relative, to_dict(results))
        if record is not None:
            write_json_atomic(into / relative.parent / ENVIRONMENT_RECORD, record)
        report.written.append(into / relative)
    return report


def _results_files(root: Path) -> list[Path]:
    found = []
    for runner in RUNNERS:
        folder = Path(root) / runner
        candidates = [*folder.glob("*.json"), *folder.glob("history/tf-*/*.json"), *folder.glob("diagnose/*.json"),
                      *folder.glob("diagnose/guide/*.json")]
        found += [path.relative_to(root) for path in candidates
                  if not path.name.endswith(FAILURE_SUFFIX) and path.name != ENVIRONMENT_RECORD]
    return sorted(found)
