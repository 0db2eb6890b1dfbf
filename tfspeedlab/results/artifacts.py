"""Files an example writes beside its results (profiler traces), published only with them.

An example asks ``artifact_path(name)`` for where to write. The harness points
that at a staging folder (through ``TFSPEEDLAB_ARTIFACTS``, so that process
groups running in children share it) and, once the results file is written,
swaps the folder in as ``<out>/<runner>/traces/<example>/`` in one rename. A
failed or interrupted run leaves the previous traces as they were.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

ENV_VAR = "TFSPEEDLAB_ARTIFACTS"
FOLDER = "traces"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def artifact_path(name: str) -> Path:
    """Where to write the artifact ``name`` of the example running now."""
    staging = os.environ.get(ENV_VAR)
    if not staging:
        # Run outside the harness (a notebook, a test): keep the file somewhere temporary.
        staging = os.environ[ENV_VAR] = tempfile.mkdtemp(prefix="tfspeedlab-artifacts-")
    path = Path(staging) / safe_name(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def safe_name(name: str) -> str:
    """A file name from a case label: ``tf.raw_ops / x`` → ``tf.raw_ops_x``."""
    return _UNSAFE.sub("_", name).strip("_")


def _new_staging(out_dir: Path) -> Path:
    # On the same file system as the results, so publishing is one rename.
    out_dir.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".staging-", dir=out_dir))


def start_staging(out_dir: Path) -> Path:
    """A fresh staging folder for the example about to run, announced to its children."""
    staging = _new_staging(out_dir)
    os.environ[ENV_VAR] = str(staging)
    return staging


def published_dir(out_dir: Path, runner: str, example: str) -> Path:
    return Path(out_dir) / runner / FOLDER / example


def publish(staging: Path, out_dir: Path, runner: str, example: str) -> Path | None:
    """Swap the staged files in for the example's previous ones; None when it staged none.

    Called once the new results file is in place: files of an earlier run
    never stay beside results they do not belong to.
    """
    target = published_dir(out_dir, runner, example)
    previous = target.with_name(f".previous-{example}")
    shutil.rmtree(previous, ignore_errors=True)
    if target.exists():
        target.rename(previous)
    if any(staging.iterdir()):
        target.parent.mkdir(parents=True, exist_ok=True)
        staging.chmod(0o755)  # mkdtemp makes it private; these are published files
        staging.rename(target)
    else:
        discard(staging)
    shutil.rmtree(previous, ignore_errors=True)
    return target if target.exists() else None


def copy_for_publishing(source_dir: Path, out_dir: Path) -> Path:
    """A staging copy of another run's artifacts of one example (empty when it kept none)."""
    staging = _new_staging(out_dir)
    if source_dir.is_dir():
        for path in sorted(source_dir.iterdir()):
            if path.is_file():
                shutil.copyfile(path, staging / path.name)
    return staging


def discard(staging: Path) -> None:
    """Drop a staging folder that was not published (a no-op for one that was: it is gone)."""
    shutil.rmtree(staging, ignore_errors=True)
    if os.environ.get(ENV_VAR) == str(staging):
        del os.environ[ENV_VAR]
