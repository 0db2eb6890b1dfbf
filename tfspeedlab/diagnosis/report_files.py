"""Where ``tfspeedlab diagnose`` may keep a report (``--save``, ``--markdown``, ``--html``): checked
before anything is measured, so that a path it may not write costs the reader nothing.

A report is written atomically as a regular file (``results.store.write_text_atomic``). It never
replaces a device, a pipe or a folder, never a symbolic link (whose target the reader may not have
meant), and never the source file of the function or the inputs being diagnosed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from tfspeedlab.harness.exits import UsageError


def check_report_paths(paths: Mapping[str, Path | None], sources: Iterable[Path]) -> None:
    """Refuse (``UsageError`` naming the option) any report path that is not a new or regular file
    in a folder this process can write, that is a symbolic link, that two options share, or that
    is one of ``sources``."""
    protected = {_identity(path) for path in sources if path.exists()}
    seen: dict[Path, str] = {}
    for option, path in paths.items():
        if path is None:
            continue
        _check_one(option, Path(path), protected)
        resolved = Path(os.path.abspath(path))
        if resolved in seen:
            raise UsageError(f"--{option} {path}: --{seen[resolved]} writes the same file; give each report its own")
        seen[resolved] = option


def check_still_writable(option: str, path: Path) -> None:
    """The same check just before writing: something may have appeared at the path meanwhile."""
    _check_one(option, Path(path), set())


def _check_one(option: str, path: Path, protected: set[tuple[int, int]]) -> None:
    if path.is_symlink():
        raise UsageError(f"--{option} {path} is a symbolic link; give the file itself (a report never "
                         "writes through a link)")
    if path.exists():
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise UsageError(f"--{option} {path} is a folder; give a file name")
        if not stat.S_ISREG(mode):
            raise UsageError(f"--{option} {path} is not a regular file (a device, a pipe or a socket); "
                             "a report is written only as a file of its own")
        if _identity(path) in protected:
            raise UsageError(f"--{option} {path} is the source of the function or inputs being diagnosed; "
                             "a report never replaces it")
    folder = _existing_parent(path)
    if not folder.is_dir():
        raise UsageError(f"--{option} {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--{option} {path}: cannot write in {folder} (permission denied)")


def _existing_parent(path: Path) -> Path:
    """The nearest folder above ``path`` that exists: the one the missing ones are made in."""
    folder = Path(os.path.abspath(path)).parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _identity(path: Path) -> tuple[int, int]:
    found = path.stat()
    return found.st_dev, found.st_ino
