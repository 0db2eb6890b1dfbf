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
from tfspeedlab.core.results.schema import RUNNERS, FieldReader, ResultsFileError
from tfspeedlab.core.results.store import read_json
from tfspeedlab.diagnosis.codec import from_json, to_json
from tfspeedlab.diagnosis.function_core import Diagnosis, pool

DIAGNOSIS_DIR = "diagnose"
# A sample's file name becomes part of a page and names a path: nothing but these characters.
SAMPLE_NAME = re.compile(r"[a-z0-9_]{1,64}")
# What a saved diagnosis's environment must hold for a page to say where it was measured, of these types.
ENVIRONMENT_FIELDS = {"cpu_model": str, "logical_cores": int, "gpus": list, "tensorflow": str, "utc_time": str}


class DiagnosisFileError(ValueError):
    """A saved diagnosis that cannot be read, named by its path."""


@dataclass(frozen=True)
class SavedDiagnosis:
    diagnosis: Diagnosis
    environment: Mapping[str, Any]


def load(path: Path) -> SavedDiagnosis:
    data = read_json(path)
    try:
        return SavedDiagnosis(from_json(data, path), _environment(data, path))
    except ResultsFileError as error:  # it names the file and the field
        raise DiagnosisFileError(str(error)) from None


def _environment(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The environment's fields a page shows, checked as a results file's are."""
    environment = data.get("environment")
    if not isinstance(environment, dict) or not ENVIRONMENT_FIELDS.keys() <= environment.keys():
        raise DiagnosisFileError(f"{path}: no environment record (save it with tfspeedlab diagnose --save)")
    reader = FieldReader(path)
    for name, types in ENVIRONMENT_FIELDS.items():
        reader.get(environment, name, types, "environment.")
    reader.require(all(isinstance(gpu, dict) for gpu in environment["gpus"]), "environment.gpus",
                   "must be a list of JSON objects, one per GPU")
    reader.require(environment["logical_cores"] >= 1, "environment.logical_cores", "must be at least 1")
    return environment


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
