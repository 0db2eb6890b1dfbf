"""Saved diagnoses (``tfspeedlab diagnose --save``, ``results/<runner>/diagnose/NAME.json``): read
one with its environment, and pool two sittings of the same ones, as ``tfspeedlab pool`` does for
results files (each mode's processes from both, so the interval covers how far the machine moved
between them)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from tfspeedlab.core.results.pool import PoolError, pooled_environment
from tfspeedlab.core.results.schema import RUNNERS, ResultsFileError
from tfspeedlab.core.results.store import read_json
from tfspeedlab.diagnosis.codec import from_json, to_json
from tfspeedlab.diagnosis.function_core import Diagnosis, pool

DIAGNOSIS_DIR = "diagnose"
# A sample's file name becomes part of a page and names a path: nothing but these characters.
SAMPLE_NAME = re.compile(r"[a-z0-9_]{1,64}")
# What a saved diagnosis's environment must hold for a page to say where it was measured.
ENVIRONMENT_FIELDS = frozenset({"cpu_model", "logical_cores", "gpus", "tensorflow", "utc_time"})


class DiagnosisFileError(ValueError):
    """A saved diagnosis that cannot be read, named by its path."""


@dataclass(frozen=True)
class SavedDiagnosis:
    diagnosis: Diagnosis
    environment: Mapping[str, Any]


def load(path: Path) -> SavedDiagnosis:
    data = read_json(path)
    try:
        diagnosis = from_json(data, path)
    except ResultsFileError as error:  # it names the file and the field
        raise DiagnosisFileError(str(error)) from None
    environment = data.get("environment")
    if not isinstance(environment, dict) or not ENVIRONMENT_FIELDS <= environment.keys():
        raise DiagnosisFileError(f"{path}: no environment record (save it with tfspeedlab diagnose --save)")
    _check_environment(path, environment)
    return SavedDiagnosis(diagnosis, environment)


def _check_environment(path: Path, environment: Mapping[str, Any]) -> None:
    """The fields a page shows, of the types the environment table reads (else DiagnosisFileError)."""
    gpus = environment["gpus"]
    if not isinstance(gpus, list) or not all(isinstance(gpu, dict) for gpu in gpus):
        raise DiagnosisFileError(f"{path}: environment.gpus must be a list of GPU records (objects), "
                                 f"found {json_kind(gpus)}")
    for name in ("cpu_model", "tensorflow", "utc_time"):
        if not isinstance(environment[name], str):
            raise DiagnosisFileError(f"{path}: environment.{name} must be a string, found {json_kind(environment[name])}")
    cores = environment["logical_cores"]
    if not isinstance(cores, int) or isinstance(cores, bool) or cores < 1:
        raise DiagnosisFileError(f"{path}: environment.logical_cores must be a whole number of at least 1, "
                                 f"found {cores!r}"[:300])


def json_kind(value: Any) -> str:
    """What a JSON value is, in a few words (a list of strings, an object …), for an error."""
    if isinstance(value, list):
        kinds = sorted({type(item).__name__ for item in value})
        return f"a list of {', '.join(kinds)}" if kinds else "an empty list"
    return f"a {type(value).__name__}"


def sample_files(root: Path, runner: str) -> list[Path]:
    """A runner's saved diagnoses under a results root; a name outside [a-z0-9_] is refused."""
    folder = Path(root) / runner / DIAGNOSIS_DIR
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    for path in paths:
        if not SAMPLE_NAME.fullmatch(path.stem):
            raise DiagnosisFileError(f"{path}: a sample's name is lower-case letters, digits and _ only")
    return paths


def pooled_trees(first: Path, second: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every saved diagnosis at the same place under both roots, pooled (the second's environment,
    with both sittings' times), as (path relative to a root, JSON to write). Checks only: writes
    nothing."""
    found = []
    for runner in RUNNERS:
        for path in sample_files(first, runner):
            relative = path.relative_to(first)
            if not (second / relative).is_file():
                continue
            sides = [load(first / relative), load(second / relative)]
            where = f"{first / relative} and {second / relative}"
            environment = pooled_environment(sides[0].environment, sides[1].environment, where)
            try:
                diagnosis = pool([side.diagnosis for side in sides])
            except ValueError as error:
                raise PoolError(f"{where}: {error}") from None
            found.append((relative, {**to_json(diagnosis), "environment": environment}))
    return found
