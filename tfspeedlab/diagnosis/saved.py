"""Saved diagnoses (``tfspeedlab diagnose --save``, ``results/<runner>/diagnose/NAME.json``): results
files with a ``diagnosis`` block, read with their environment; each runner's committed ones are
the samples the pages show, beside the guide's full runs measured in the same sitting
(``diagnose/guide/``). ``tfspeedlab pool`` pools them with the other results files
(``results.pool``), their blocks by ``codec.pooled_block``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from tfspeedlab.core.results.schema import ResultsFile, ResultsFileError
from tfspeedlab.core.results.store import check_placement, load_results, load_runner
from tfspeedlab.diagnosis.codec import from_results
from tfspeedlab.diagnosis.function_core import Diagnosis

DIAGNOSIS_DIR = "diagnose"
GUIDE_DIR = "guide"
# A sample's file name becomes part of a page and names a path: nothing but these characters.
SAMPLE_NAME = re.compile(r"[a-z0-9_]{1,64}")


class DiagnosisFileError(ValueError):
    """A saved diagnosis that cannot be read, named by its path."""


@dataclass(frozen=True)
class SavedDiagnosis:
    diagnosis: Diagnosis
    environment: Mapping[str, Any]


def load(path: Path, runner: str | None = None) -> SavedDiagnosis:
    """A saved diagnosis; with ``runner``, a committed one, checked to fit the runner's folder it sits
    in as a results file is (``check_placement``: its runner, its name, a GPU only under ``gpu/``)."""
    try:
        results = load_results(path)
        if runner is not None:
            check_placement(results, path, runner)
        if results.diagnosis is None:
            raise DiagnosisFileError(f"{path}: a results file with no diagnosis block (save one with "
                                     "tfspeedlab diagnose --save)")
        return SavedDiagnosis(from_results(results), results.environment)
    except ResultsFileError as error:  # it names the file and the field
        raise DiagnosisFileError(str(error)) from None


def sample_files(root: Path, runner: str) -> list[Path]:
    """A runner's saved diagnoses under a results root; a name outside [a-z0-9_] is refused."""
    folder = Path(root) / runner / DIAGNOSIS_DIR
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    for path in paths:
        if not SAMPLE_NAME.fullmatch(path.stem):
            raise DiagnosisFileError(f"{path}: a sample's name is lower-case letters, digits and _ only")
    return paths


@dataclass(frozen=True)
class Samples:
    """One runner's committed diagnoses by sample name, and the full runs measured beside them."""

    reports: dict[str, SavedDiagnosis]
    guide: dict[str, ResultsFile]


def load_samples(results_root: Path, runner: str) -> Samples:
    guide = Path(results_root) / runner / DIAGNOSIS_DIR / GUIDE_DIR
    return Samples({path.stem: load(path, runner) for path in sample_files(results_root, runner)},
                   load_runner(guide, runner) if guide.is_dir() else {})
