"""Merge results from several runs or runners into one ``results/`` tree.

``merge_results`` is for bringing results measured elsewhere (a CI artifact, a
colleague's GPU box) into the committed tree. It checks every file first and
writes nothing unless all of them are fit to publish; for each runner/example
it keeps the newest run; it never deletes anything already in the target.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from tfspeedlab.core.results import artifacts
from tfspeedlab.core.results.history import (ENVIRONMENT_RECORD, HISTORY_FOLDER, check_not_linked, history_dir,
                                              read_record, record_disagreement)
from tfspeedlab.core.results.schema import (FAILURE_SUFFIX, RUNNERS, WHOLE_FILE, ResultsFile, ResultsFileError,
                                            to_dict)
from tfspeedlab.core.results.store import check_placement, load_results, results_path, write_json_atomic
from tfspeedlab.core.spec.releases import release_from_folder

# CI uploads results/<runner>/ as an artifact named results-<runner>, and
# `gh run download` puts it in a folder of that name: accept both spellings.
ARTIFACT_PREFIX = "results-"
# Clocks of the machines that measured may run a little ahead of this one.
FUTURE_TOLERANCE = timedelta(hours=1)


class MergeError(ValueError):
    """Nothing was merged; ``problems`` lists every reason, one per file or source."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("nothing was written:\n" + "\n".join(f"  {problem}" for problem in problems))


@dataclass
class MergeReport:
    written: list[Path] = field(default_factory=list)
    """Files written into the target, each from the newest source holding it."""
    unchanged: list[Path] = field(default_factory=list)
    """Target files left alone because they were already as new as any source."""
    superseded: list[Path] = field(default_factory=list)
    """Source files passed over because another source holds a run at least as new."""
    ignored: list[Path] = field(default_factory=list)
    """Failure records in the sources: they describe a run, not results, so are not merged."""


@dataclass(frozen=True)
class _Candidate:
    results: ResultsFile
    path: Path
    time: datetime
    release: str = ""  # the release folder of a history file ("tf-2.15"), else ""


def merge_results(sources: list[Path], into: Path) -> MergeReport:
    into = Path(into)
    if into.exists() and not into.is_dir():
        raise MergeError([f"{into}: the target must be a folder"])
    problems: list[str] = []
    report = MergeReport()
    newest: dict[tuple[str, str, str], _Candidate] = {}
    for path, runner, release in _collect(sources, problems, report):
        try:
            candidate = _check(path, runner, release)
        except ResultsFileError as error:
            problems.append(str(error))
            continue
        key = (runner, release, candidate.results.example)
        held = newest.get(key)
        # Strictly newer wins, so on a tie the source named first stays.
        if held is None or candidate.time > held.time:
            if held is not None:
                report.superseded.append(held.path)
            newest[key] = candidate
        else:
            report.superseded.append(candidate.path)

    to_write: list[tuple[Path, _Candidate]] = []
    for (runner, release, example), candidate in sorted(newest.items()):
        target = (history_dir(into, runner) / release / f"{example}.json") if release else results_path(into, runner, example)
        if target.exists():
            try:
                existing = _check(target, runner, release)
            except ResultsFileError as error:
                # Replacing a file we cannot read would destroy it unseen.
                problems.append(f"{error} (already in the target; fix or remove it first)")
                continue
            if candidate.time <= existing.time:
                report.unchanged.append(target)
                continue
        to_write.append((target, candidate))
    problems += _record_problems(to_write)
    if problems:
        raise MergeError(problems)

    _write_all(to_write, into)
    report.written.extend(target for target, _ in to_write)
    return report


def _record_problems(to_write: list[tuple[Path, _Candidate]]) -> list[str]:
    """Per release folder the merge writes into, whether the environment record it will hold (the one
    that comes with the last file written there, else the one it has) describes every results file it
    will hold, written or kept: the history's loader refuses a folder where it does not."""
    problems, by_folder = [], {}
    for target, candidate in to_write:
        if candidate.release:
            by_folder.setdefault(target.parent, []).append((target, candidate))
    for folder, written in by_folder.items():
        brought = [candidate.path.parent / ENVIRONMENT_RECORD for _, candidate in written]
        source = next((path for path in reversed(brought) if path.exists()), folder / ENVIRONMENT_RECORD)
        replaced = {target.name for target, _ in written}
        try:
            if not source.exists():
                continue
            record = read_record(source)
            kept = [load_results(path) for path in sorted(folder.glob("*.json"))
                    if path.name not in replaced and path.name != ENVIRONMENT_RECORD
                    and not path.name.endswith(FAILURE_SUFFIX)]
        except ResultsFileError as error:
            problems.append(f"{error} (already in the target; fix or remove it first)")
            continue
        for results in [*(candidate.results for _, candidate in written), *kept]:
            if (mismatch := record_disagreement(record, results)) is not None:
                problems.append(f"{folder / ENVIRONMENT_RECORD}: field '{mismatch.field}' would be taken from "
                                f"{source} and {mismatch}; merge a release's results with the record they were "
                                "measured with")
                break
    return problems


def _write_all(to_write: list[tuple[Path, _Candidate]], into: Path) -> None:
    """All or nothing: every file and its traces staged first; only then swapped in, each by a rename."""
    staged: list[tuple[Path, Path, Path | None, str, str]] = []
    leftovers: list[Path] = []  # what to remove if staging fails half-way
    try:
        for target, candidate in to_write:
            # Re-serialised from what was validated: for a file `tfspeedlab run`
            # wrote this gives the same text back, and no unchecked field slips in.
            temporary = target.with_name(f".{target.name}.merging")
            leftovers.append(temporary)
            write_json_atomic(temporary, to_dict(candidate.results))
            if candidate.release:  # a release's results travel with the record of its environment
                record = candidate.path.parent / ENVIRONMENT_RECORD
                staged.append((temporary, target, None, "", ""))
                if record.exists():
                    copied = target.with_name(f".{ENVIRONMENT_RECORD}.merging")
                    leftovers.append(copied)
                    write_json_atomic(copied, read_record(record))
                    staged.append((copied, target.with_name(ENVIRONMENT_RECORD), None, "", ""))
                continue
            runner, example = target.parent.name, candidate.results.example
            # Its profiler traces travel with it; an older run's never stay behind.
            traces = artifacts.copy_for_publishing(candidate.path.parent.parent, candidate.path.parent.name,
                                                   example, into)
            leftovers.append(traces)
            staged.append((temporary, target, traces, runner, example))
    except OSError as error:
        for leftover in leftovers:
            if leftover.is_dir():
                artifacts.discard(leftover)
            else:
                leftover.unlink(missing_ok=True)
        raise MergeError([f"{error} (while staging the merge; the target is as it was)"]) from error
    for temporary, target, traces, runner, example in staged:
        os.replace(temporary, target)
        if traces is not None:
            artifacts.publish(traces, into, runner, example)


def _collect(sources: list[Path], problems: list[str], report: MergeReport) -> list[tuple[Path, str, str]]:
    """Every results file named by ``sources``, with the runner its folder says it belongs to and,
    for a release history's file (``<runner>/history/tf-2.15/``), its release folder (else "")."""
    found: list[tuple[Path, str, str]] = []
    for source in map(Path, sources):
        if not source.exists():
            problems.append(f"{source}: no such file or folder")
            continue
        if source.is_file():
            runner = _runner_of_folder(source.parent)
            if runner is None:
                problems.append(f"{source}: cannot tell which runner it is from: its folder must be named "
                                f"{_folder_names()}")
            elif source.name.endswith(FAILURE_SUFFIX):
                report.ignored.append(source)
            else:
                found.append((source, runner, ""))
            continue
        # A runner's own folder, or a tree of them (results/, a folder of downloaded artifacts).
        folders = [source] if _runner_of_folder(source) else [folder for folder in sorted(source.iterdir())
                                                              if folder.is_dir() and _runner_of_folder(folder)]
        files = [(path, _runner_of_folder(folder), "") for folder in folders for path in sorted(folder.glob("*.json"))]
        for folder in folders:
            try:  # a linked history or release folder would merge files from outside the source
                check_not_linked(folder / HISTORY_FOLDER)
                releases = _release_folders(folder)
                for release in releases:
                    check_not_linked(release)
            except ResultsFileError as error:
                problems.append(str(error))
                continue
            files += [(path, _runner_of_folder(folder), release.name) for release in releases
                      for path in sorted(release.glob("*.json")) if path.name != ENVIRONMENT_RECORD]
        if not files:
            problems.append(f"{source}: no results files found; expected <runner>/<example>.json in it, "
                            f"with <runner> one of {_folder_names()}")
        for path, runner, release in files:
            if path.name.endswith(FAILURE_SUFFIX):
                report.ignored.append(path)
            else:
                found.append((path, runner, release))
    return found


def _release_folders(runner_folder: Path) -> list[Path]:
    """The release folders of a runner's history (hidden staging folders of a run in progress left out)."""
    history = runner_folder / HISTORY_FOLDER
    if not history.is_dir():
        return []
    return [folder for folder in sorted(history.iterdir())
            if folder.is_dir() and release_from_folder(folder.name) is not None]


def _check(path: Path, folder_runner: str, release: str = "") -> _Candidate:
    """Load one file and refuse it unless it fits the folder and runner it claims."""
    results = load_results(path)
    check_placement(results, path, folder_runner)
    if not release and (links := artifacts.linked_files(path.parent.parent, path.parent.name, results.example)):
        raise ResultsFileError(links[0], WHOLE_FILE, "a symbolic link; artifacts must be regular files")
    if release and (path.parent / ENVIRONMENT_RECORD).exists():
        read_record(path.parent / ENVIRONMENT_RECORD)  # checked before anything is written
    return _Candidate(results, path, _utc(path, results.environment["utc_time"]), release)


def _utc(path: Path, text: str) -> datetime:
    # Compared as times, not strings, so that offsets other than +00:00 order correctly.
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ResultsFileError(path, "environment.utc_time", f"is {text!r}, not an ISO 8601 time") from None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    # The newest run wins a merge: a time in the future would win every later one.
    if moment > datetime.now(timezone.utc) + FUTURE_TOLERANCE:
        raise ResultsFileError(path, "environment.utc_time", f"is {text!r}, in the future")
    return moment


def _runner_of_folder(folder: Path) -> str | None:
    name = folder.name.removeprefix(ARTIFACT_PREFIX)
    return name if name in RUNNERS else None


def _folder_names() -> str:
    return ", ".join(f"{runner} or {ARTIFACT_PREFIX}{runner}" for runner in RUNNERS)
