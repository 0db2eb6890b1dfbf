"""The results tree on disk: ``<root>/<runner>/<example>.json``, written atomically, read and validated."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from tfspeedlab.core.results.checks import FAILURE_TEXT, TRACEBACK_TEXT, printable
from tfspeedlab.core.results.schema import (FAILURE_SCHEMA, FAILURE_SUFFIX, MAX_FILE_BYTES, WHOLE_FILE, FieldReader,
                                            ResultsFile, ResultsFileError, from_dict, to_dict)
from tfspeedlab.core.spec.names import check_example_name

# A failure record's text: its message a page shows (a screenful), its traceback kept for a person.
FAILURE_RECORD_TEXT = {("error",): FAILURE_TEXT, ("traceback",): TRACEBACK_TEXT}


def results_path(out_dir: Path, runner: str, example: str) -> Path:
    return Path(out_dir) / runner / f"{example}.json"


def write_json_atomic(path: Path, data: Mapping[str, Any]) -> None:
    """Write JSON so that ``path`` holds either the old file or the whole new one.

    The text goes to a temporary file in the same folder, is flushed to disk,
    then renamed over the target; a crash or Ctrl-C at any point leaves no
    half-written file behind.
    """
    write_text_atomic(path, json_text(data))


def json_text(data: Any) -> str:
    """The text every JSON file this project writes holds (``ValueError`` on NaN or Infinity)."""
    # allow_nan=False: NaN and Infinity are not JSON, and no loader should meet them.
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


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
        # mkstemp makes the file private; results are published files, so the
        # permissions a plain open() would give (0666 less the umask).
        os.chmod(temp_name, 0o666 & ~_umask())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_results(results: ResultsFile, out_dir: Path) -> Path:
    """Write the file, unless this tfspeedlab would refuse to read it (ResultsFileError, nothing written)."""
    path = results_path(out_dir, results.runner, results.example)
    data = to_dict(results)
    # Checked as the loader will check it: a NaN metric (a diverging loss) or an
    # overlong label must not replace a good file with one the build refuses.
    from_dict(json.loads(json.dumps(data)), path)
    write_json_atomic(path, data)
    path.with_name(results.example + FAILURE_SUFFIX).unlink(missing_ok=True)
    return path


def write_failure(out_dir: Path, runner: str, example: str, error: str, details: str, utc_time: str) -> Path:
    """Record a failed run beside the last good results, which stay untouched. The message and the
    traceback come from the example (a Keras progress bar's carriage returns, a tool's colours):
    they are written as text their loader accepts (``checks.printable``)."""
    path = Path(out_dir) / runner / f"{example}{FAILURE_SUFFIX}"
    write_json_atomic(
        path,
        {"schema": FAILURE_SCHEMA, "example": example, "runner": runner,
         "error": printable(error, FAILURE_TEXT).strip() or "unknown error",
         "traceback": printable(details, TRACEBACK_TEXT, keep="tail"), "utc_time": utc_time},
    )
    return path


def load_results(path: Path | str) -> ResultsFile:
    return from_dict(read_json(path), path)


def read_json(path: Path | str) -> Any:
    """A results tree's JSON file, read only if it is a regular file of sane size (else ResultsFileError)."""
    path = Path(path)
    if path.is_symlink():
        # Nothing outside the results tree is followed: a link could point anywhere.
        raise ResultsFileError(path, WHOLE_FILE, "a symbolic link; results files must be regular files")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ResultsFileError(path, WHOLE_FILE, f"{size:,} bytes; at most {MAX_FILE_BYTES:,} are read")
        return json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse_constant)
    except (FileNotFoundError, ResultsFileError):
        raise
    except _NotJsonConstant as error:
        raise ResultsFileError(path, WHOLE_FILE, f"not JSON: it holds {error.args[0]} (a number must be finite)") \
            from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsFileError(path, WHOLE_FILE, unreadable(error)) from error
    except ValueError as error:  # an integer of more digits than Python converts (4,300)
        raise ResultsFileError(path, WHOLE_FILE, f"not JSON: {error}") from None
    except RecursionError:  # nesting deeper than Python's parser goes, well under the size cap
        raise ResultsFileError(path, WHOLE_FILE, "nests too deeply to be a results file") from None


def unreadable(error: OSError | UnicodeDecodeError | json.JSONDecodeError) -> str:
    """Why a file could not be read, in words: ``not JSON (line 3, column 5)``, ``not UTF-8 text
    (byte 0xff at position 0)``, ``cannot be read: Permission denied``."""
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON (line {error.lineno}, column {error.colno}: {error.msg[:1].lower()}{error.msg[1:]})"
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text (byte 0x{error.object[error.start]:02x} at position {error.start:,})"
    return f"cannot be read: {error.strerror or error}"


class _NotJsonConstant(ValueError):
    """Python's json reads NaN and Infinity by default; this project never writes them."""


def _refuse_constant(name: str) -> Any:
    raise _NotJsonConstant(name)


def load_runner(directory: Path, runner: str | None = None, skip: Collection[str] = ()) -> dict[str, ResultsFile]:
    """Every results file of one runner (default: the folder's name), by example name; failure
    records and the files named in ``skip`` (a release's environment record) left out; each checked
    to belong where it sits (``check_placement``)."""
    directory = Path(directory)
    found = {}
    for path in sorted(directory.glob("*.json")):
        if path.name.endswith(FAILURE_SUFFIX) or path.name in skip:
            continue
        results = load_results(path)
        check_placement(results, path, runner or directory.name)
        found[results.example] = results
    return found


def check_placement(results: ResultsFile, path: Path, folder_runner: str) -> None:
    """Refuse a file that does not fit the folder and runner it sits in (ResultsFileError)."""
    reader = FieldReader(path)
    reader.require(results.runner == folder_runner, "runner",
                   f"is {results.runner!r}, but the file sits in the {folder_runner!r} folder")
    # A file is found again by its name, so the name must be the example's.
    reader.require(results.example == path.stem, "example",
                   f"is {results.example!r}, but the file is named {path.name}")
    gpus = results.environment["gpus"]
    reader.require(results.runner != "gpu" or bool(gpus), "environment.gpus",
                   "is empty: a gpu results file must come from a run that saw a GPU")
    reader.require(results.runner != "cpu" or not gpus, "environment.gpus",
                   "lists a GPU: a cpu results file must come from a run with the GPUs hidden")


def load_failure(directory: Path, example: str) -> dict[str, str] | None:
    """The failure record of ``example``'s last run, or None; its fields checked (ResultsFileError)."""
    path = Path(directory) / f"{check_example_name(example)}{FAILURE_SUFFIX}"
    if not path.exists() and not path.is_symlink():
        return None
    record = read_json(path)
    reader = FieldReader(path)
    reader.require(isinstance(record, dict), "<top level>", "must be a JSON object")
    reader.check_document(record, FAILURE_RECORD_TEXT)
    for name in ("error", "utc_time"):
        reader.require(isinstance(record.get(name), str), name,
                       f"must be a string, found {type(record.get(name)).__name__}")
    # A page shows the message, a table its first line: a record says what failed.
    reader.require(bool(record["error"].strip()), "error", "is empty; a failure record says what failed")
    return record
