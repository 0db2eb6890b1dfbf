"""The results tree on disk: ``<root>/<runner>/<example>.json``, written atomically, read and validated."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tfspeedlab.results.schema import (
    FAILURE_SCHEMA,
    FAILURE_SUFFIX,
    ResultsFile,
    ResultsFileError,
    from_dict,
    to_dict,
)


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


def load_results(path: Path | str) -> ResultsFile:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsFileError(path, "<file>", f"is not readable JSON: {error}") from error
    return from_dict(data, path)


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
