"""The history tree on disk: ``<root>/<runner>/history/tf-<release>/``, one folder per release with
its examples' results files, the record of its environment, and the failures of its last run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfspeedlab.core.results.checks import FAILURE_TEXT
from tfspeedlab.core.results.schema import FAILURE_SUFFIX, WHOLE_FILE, FieldReader, ResultsFile, ResultsFileError
from tfspeedlab.core.results.store import load_failure, load_runner, read_json
from tfspeedlab.core.spec.releases import Release, is_version, release_from_folder

HISTORY_FOLDER = "history"
ENVIRONMENT_RECORD = "environment.json"
# The failure record of a release whose environment could not be built.
ENVIRONMENT_FAILURE = f"environment{FAILURE_SUFFIX}"
# Fields of an environment record shown on pages: each must be a short string (or absent).
# Of RECORD_FIELDS, those holding a package version.
VERSION_FIELDS = ("tensorflow", "keras", "tf_keras", "numpy")
RECORD_FIELDS = ("release", "tensorflow", "keras", "tf_keras", "numpy", "python", "resolved_at", "error", "utc_time")
# The one field of these records that may hold lines: why the environment could not be built.
RECORD_TEXT = {("error",): FAILURE_TEXT}


@dataclass(frozen=True)
class ReleaseResults:
    """What one release's folder holds."""

    release: Release
    results: dict[str, ResultsFile] = field(default_factory=dict)
    environment: dict[str, Any] | None = None
    # Why the release has no results: its environment could not be built.
    environment_failure: dict[str, Any] | None = None
    # Per example, the error of its last run, when that run failed after the results were written
    # (or before any were).
    failures: dict[str, str] = field(default_factory=dict)


def history_dir(root: Path, runner: str) -> Path:
    return Path(root) / runner / HISTORY_FOLDER


def release_folder(root: Path, runner: str, release: Release) -> Path:
    return history_dir(root, runner) / release.folder


def load_history(root: Path, runner: str) -> list[ReleaseResults]:
    """Every release folder of ``runner``, oldest release first; ``ResultsFileError`` for a file
    that is malformed or does not belong where it sits. Other names in the folder are refused:
    a folder named for no release would be read as nothing, silently."""
    folder = history_dir(root, runner)
    check_not_linked(folder)
    if not folder.is_dir():
        return []
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):  # a staging folder of a run in progress
            continue
        check_not_linked(entry)
        release = release_from_folder(entry.name)
        if release is None or not entry.is_dir():
            raise ResultsFileError(entry, "<folder>", "is not a release folder (tf-2.12 … tf-2.21)")
        results = load_runner(entry, runner, skip={ENVIRONMENT_RECORD})
        for example, found_results in results.items():
            # A file copied into the wrong release's folder would be charted as that release.
            measured_on = found_results.environment.get("tensorflow")
            if not (isinstance(measured_on, str) and measured_on.startswith(release.name + ".")):
                raise ResultsFileError(entry / f"{example}.json", "environment.tensorflow",
                                       f"is {str(measured_on)[:64]!r}, but the file sits in the folder of "
                                       f"TensorFlow {release.name}")
        failures = {}
        for path in sorted(entry.glob(f"*{FAILURE_SUFFIX}")):
            example = path.name.removesuffix(FAILURE_SUFFIX)
            if example == "environment":
                continue
            record = load_failure(entry, example)
            if record and (example not in results or record["utc_time"] > results[example].environment["utc_time"]):
                failures[example] = record["error"]
        environment, environment_failure = _record(entry / ENVIRONMENT_RECORD), _record(entry / ENVIRONMENT_FAILURE)
        check_record(entry / ENVIRONMENT_RECORD, release, environment, results)
        check_record(entry / ENVIRONMENT_FAILURE, release, environment_failure, {})
        found.append(ReleaseResults(release, results, environment, environment_failure, failures))
    return sorted(found, key=lambda item: item.release)


def check_not_linked(folder: Path) -> None:
    """Refuse a history folder or release folder that is a symbolic link (``ResultsFileError``): it
    would chart, as a release of this tree, files from anywhere a link can point."""
    if Path(folder).is_symlink():
        raise ResultsFileError(folder, "<folder>", "is a symbolic link; a history folder must be a folder of the "
                                                   "results tree itself")


# The versions an environment record and a results file measured in it both state: where both state
# one, they must agree (a page shows the record's beside the results' figures).
SHARED_VERSIONS = ("tensorflow", "keras", "tf_keras", "numpy", "python")


@dataclass(frozen=True)
class VersionMismatch:
    """A version an environment record states otherwise than a results file measured beside it."""

    field: str
    recorded: Any
    measured: Any
    results_file: str  # its name: "releases.json"

    def __str__(self) -> str:
        return f"is {str(self.recorded)[:64]!r}, but {self.results_file} was measured with {str(self.measured)[:64]!r}"


def record_disagreement(record: Mapping[str, Any], results: ResultsFile) -> VersionMismatch | None:
    """The first version in which ``record`` does not describe the environment ``results`` was
    measured in; None where they agree."""
    for name in SHARED_VERSIONS:
        if name in record and name in results.environment and record[name] != results.environment[name]:
            where = results.source.name if results.source else f"{results.example}.json"
            return VersionMismatch(name, record[name], results.environment[name], where)
    return None


def check_record(path: Path, release: Release, record: Mapping[str, Any] | None,
                 results: Mapping[str, ResultsFile]) -> None:
    """Refuse (``ResultsFileError``, naming the record and its field) a release's environment record that
    names another release, or that does not describe every results file in its folder."""
    if record is None:
        return
    reader = FieldReader(path)
    named = record.get("release")
    reader.require(named is None or named == release.name, "release",
                   f"is {str(named)[:64]!r}, but the record sits in the folder of TensorFlow {release.name}")
    installed = record.get("tensorflow")
    reader.require(installed is None or installed.startswith(release.name + "."), "tensorflow",
                   f"is {str(installed)[:64]!r}, but the record sits in the folder of TensorFlow {release.name}")
    for found in results.values():
        if (mismatch := record_disagreement(record, found)) is not None:
            raise ResultsFileError(path, mismatch.field, f"{mismatch}; a release's record describes the results "
                                   "it sits with: measure them again in one environment")


def _record(path: Path) -> dict[str, Any] | None:
    return read_record(path) if path.exists() or path.is_symlink() else None


def read_record(path: Path) -> dict[str, Any]:
    """An environment record (or an environment's failure record), checked: its strings as every
    file of a results tree keeps them (``checks``: one line each, but an error's message), the fields
    a page shows text, the versions versions, the package list a list of text (``ResultsFileError``
    otherwise)."""
    data = read_json(path)  # a regular file of sane size, or ResultsFileError
    reader = FieldReader(path)
    reader.require(isinstance(data, dict), WHOLE_FILE, "must hold a JSON object")
    reader.check_document(data, RECORD_TEXT)
    for name in RECORD_FIELDS:
        value = data.get(name)
        reader.require(value is None or isinstance(value, str), name, "must be a string")
    for name in VERSION_FIELDS:
        value = data.get(name)
        reader.require(value is None or is_version(value), name, f"must be a version string (digits, letters, '.', "
                       f"'+', '-'; at most 64 characters), found {str(value)[:64]!r}")
    # A page shows the first line of why the environment could not be built.
    reader.require(data.get("error") is None or bool(data["error"].strip()), "error",
                   "is empty; a failure record says what failed")
    packages = data.get("packages", [])
    reader.require(isinstance(packages, list) and all(isinstance(line, str) for line in packages), "packages",
                   "must be a list of strings")
    return data
