"""Results files: ``results/<runner>/<example>.json``, versioned, validated, written atomically."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfspeedlab.measurement import Measurement

SCHEMA = "tfspeedlab.results"
SCHEMA_VERSION = 1
FAILURE_SCHEMA = "tfspeedlab.failure"
FAILURE_SUFFIX = ".failed.json"
RUNNERS = ("cpu", "gpu")
# Fields every environment record must carry; more may be present.
ENVIRONMENT_FIELDS: dict[str, tuple[type, ...]] = {
    "python": (str,),
    "tensorflow": (str,),
    "keras": (str, type(None)),
    "numpy": (str,),
    "os": (str,),
    "cpu_model": (str,),
    "logical_cores": (int,),
    "intra_op_threads": (int,),
    "inter_op_threads": (int,),
    "gpus": (list,),
    "cuda_build": (str, type(None)),
    "cudnn_build": (str, type(None)),
    "git_commit": (str, type(None)),
    "utc_time": (str,),
}


class ResultsFileError(ValueError):
    """A results file that cannot be used; names the file and the offending field."""

    def __init__(self, path: Path | str, field_name: str, problem: str) -> None:
        self.path = Path(path)
        self.field = field_name
        super().__init__(f"{path}: field '{field_name}' {problem}")


@dataclass(frozen=True)
class CaseResult:
    label: str
    params: Mapping[str, Any]
    measurement: Measurement
    # Measured quantities other than time: tracing counts, loss change, memory.
    metrics: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ResultsFile:
    example: str
    title: str
    runner: str
    quick: bool
    params: Mapping[str, Any]
    environment: Mapping[str, Any]
    cases: tuple[CaseResult, ...]
    baseline: str | None = None
    source: Path | None = field(default=None, compare=False)

    def case(self, label: str) -> CaseResult:
        for case in self.cases:
            if case.label == label:
                return case
        where = f" in {self.source}" if self.source else ""
        raise KeyError(f"no case {label!r}{where}; cases are {[c.label for c in self.cases]}")

    def speedup(self, slower: str, faster: str) -> float:
        """How many times faster ``faster`` is than ``slower`` (ratio of medians)."""
        return self.case(slower).measurement.median_s / self.case(faster).measurement.median_s


# ---------------------------------------------------------------- writing


def to_dict(results: ResultsFile) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "example": results.example,
        "title": results.title,
        "runner": results.runner,
        "quick": results.quick,
        "baseline": results.baseline,
        "params": dict(results.params),
        "environment": dict(results.environment),
        "cases": [_case_to_dict(case) for case in results.cases],
    }


def _case_to_dict(case: CaseResult) -> dict[str, Any]:
    m = case.measurement
    return {
        "label": case.label,
        "params": dict(case.params),
        "metrics": dict(case.metrics),
        # Statistics are stored for people reading the file; loading recomputes
        # them from the samples and refuses a file where they disagree.
        "median_s": m.median_s,
        "iqr_s": m.iqr_s,
        "min_s": m.min_s,
        "mean_s": m.mean_s,
        "noisy": m.noisy,
        "blocks": m.blocks,
        "calls_per_block": m.calls_per_block,
        "first_call_s": m.first_call_s,
        "tracing_count": m.tracing_count,
        "completion": m.completion,
        "samples_s": list(m.samples_s),
    }


def results_path(out_dir: Path, runner: str, example: str) -> Path:
    return Path(out_dir) / runner / f"{example}.json"


def write_json_atomic(path: Path, data: Mapping[str, Any]) -> None:
    """Write JSON so that ``path`` holds either the old file or the whole new one.

    The text goes to a temporary file in the same folder, is flushed to disk,
    then renamed over the target; a crash or Ctrl-C at any point leaves no
    half-written file behind.
    """
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file renamed into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as temp:
            temp.write(text)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def write_results(results: ResultsFile, out_dir: Path) -> Path:
    path = results_path(out_dir, results.runner, results.example)
    write_json_atomic(path, to_dict(results))
    path.with_name(results.example + FAILURE_SUFFIX).unlink(missing_ok=True)
    return path


def write_failure(out_dir: Path, runner: str, example: str, error: str, details: str, utc_time: str) -> Path:
    """Record a failed run beside the last good results, which stay untouched."""
    path = Path(out_dir) / runner / f"{example}{FAILURE_SUFFIX}"
    write_json_atomic(
        path,
        {"schema": FAILURE_SCHEMA, "example": example, "runner": runner, "error": error,
         "traceback": details, "utc_time": utc_time},
    )
    return path


# ---------------------------------------------------------------- reading


def load_results(path: Path | str) -> ResultsFile:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsFileError(path, "<file>", f"is not readable JSON: {error}") from error
    return from_dict(data, path)


def from_dict(data: Any, path: Path | str) -> ResultsFile:
    reader = _FieldReader(path)
    if not isinstance(data, dict):
        raise ResultsFileError(path, "<top level>", "must be a JSON object")
    if data.get("schema") != SCHEMA:
        raise ResultsFileError(path, "schema", f"must be {SCHEMA!r}, found {data.get('schema')!r}")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ResultsFileError(
            path, "schema_version",
            f"is {version!r}, but this tfspeedlab reads version {SCHEMA_VERSION}; "
            "re-run the example with `tfspeedlab run` to rewrite it",
        )
    runner = reader.get(data, "runner", str)
    if runner not in RUNNERS:
        raise ResultsFileError(path, "runner", f"must be one of {RUNNERS}, found {runner!r}")
    environment = reader.get(data, "environment", dict)
    for name, types in ENVIRONMENT_FIELDS.items():
        reader.get(environment, name, types, prefix="environment.")
    raw_cases = reader.get(data, "cases", list)
    if not raw_cases:
        raise ResultsFileError(path, "cases", "is empty")
    cases = tuple(_case_from_dict(reader, raw, f"cases[{i}].") for i, raw in enumerate(raw_cases))
    baseline = reader.get(data, "baseline", (str, type(None)))
    labels = [case.label for case in cases]
    if baseline is not None and baseline not in labels:
        raise ResultsFileError(path, "baseline", f"names {baseline!r}, which is not a case label {labels}")
    return ResultsFile(
        example=reader.get(data, "example", str),
        title=reader.get(data, "title", str),
        runner=runner,
        quick=reader.get(data, "quick", bool),
        params=reader.get(data, "params", dict),
        environment=environment,
        cases=cases,
        baseline=baseline,
        source=Path(path),
    )


def _case_from_dict(reader: _FieldReader, raw: Any, prefix: str) -> CaseResult:
    if not isinstance(raw, dict):
        raise ResultsFileError(reader.path, prefix.rstrip("."), "must be a JSON object")
    samples = reader.get(raw, "samples_s", list, prefix)
    if not samples or not all(_is_positive_number(s) for s in samples):
        raise ResultsFileError(reader.path, prefix + "samples_s", "must be a non-empty list of positive numbers")
    calls = reader.get(raw, "calls_per_block", int, prefix)
    if calls < 1:
        raise ResultsFileError(reader.path, prefix + "calls_per_block", f"must be at least 1, found {calls}")
    first_call = reader.get(raw, "first_call_s", (int, float), prefix)
    if not _is_positive_number(first_call):
        raise ResultsFileError(reader.path, prefix + "first_call_s", "must be a positive number")
    measurement = Measurement(
        samples_s=tuple(float(s) for s in samples),
        calls_per_block=calls,
        first_call_s=float(first_call),
        completion=reader.get(raw, "completion", str, prefix),
        tracing_count=reader.get(raw, "tracing_count", (int, type(None)), prefix),
    )
    for stat in ("median_s", "iqr_s", "min_s", "mean_s"):
        stored = reader.get(raw, stat, (int, float), prefix)
        if not math.isclose(stored, getattr(measurement, stat), rel_tol=1e-9, abs_tol=1e-15):
            raise ResultsFileError(
                reader.path, prefix + stat,
                f"is {stored!r} but its samples give {getattr(measurement, stat)!r}; "
                "statistics are derived from samples and must not be edited by hand",
            )
    metrics = reader.get(raw, "metrics", dict, prefix)
    for name, value in metrics.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ResultsFileError(reader.path, f"{prefix}metrics.{name}", "must be a finite number")
    return CaseResult(
        label=reader.get(raw, "label", str, prefix),
        params=reader.get(raw, "params", dict, prefix),
        measurement=measurement,
        metrics=metrics,
    )


def _is_positive_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


@dataclass(frozen=True)
class _FieldReader:
    path: Path | str

    def get(self, mapping: Mapping[str, Any], name: str, types, prefix: str = "") -> Any:
        types = types if isinstance(types, tuple) else (types,)
        if name not in mapping:
            raise ResultsFileError(self.path, prefix + name, "is missing")
        value = mapping[name]
        # bool is an int in Python; a count or a time given as true/false is an error.
        if isinstance(value, bool) and bool not in types:
            raise ResultsFileError(self.path, prefix + name, f"must be {_names(types)}, found a boolean")
        if not isinstance(value, types):
            raise ResultsFileError(
                self.path, prefix + name, f"must be {_names(types)}, found {type(value).__name__}"
            )
        return value


def _names(types: tuple[type, ...]) -> str:
    return " or ".join("null" if t is type(None) else t.__name__ for t in types)


def load_runner(directory: Path) -> dict[str, ResultsFile]:
    """Every results file of one runner, by example name; failure records skipped."""
    found = {}
    for path in sorted(Path(directory).glob("*.json")):
        if path.name.endswith(FAILURE_SUFFIX):
            continue
        results = load_results(path)
        if results.example != path.stem:
            raise ResultsFileError(path, "example", f"is {results.example!r}, but the file is named {path.name}")
        found[results.example] = results
    return found


def load_failure(directory: Path, example: str) -> dict[str, Any] | None:
    path = Path(directory) / f"{example}{FAILURE_SUFFIX}"
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ResultsFileError(path, "<file>", f"is not readable JSON: {error}") from error
