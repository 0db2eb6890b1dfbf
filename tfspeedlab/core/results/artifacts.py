"""Files an example writes beside its results (profiler traces), published only with them.

An example asks ``artifact_path(name)`` for where to write. The harness points
that at a staging folder (through ``TFSPEEDLAB_ARTIFACTS``, so that process
groups running in children share it) and, once the results file is written,
swaps the folder in as ``<out>/<runner>/traces/<example>/`` in one rename. A
failed or interrupted run leaves the previous traces as they were.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from tfspeedlab.core.spec.names import check_example_name

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; concurrent publishing is then unguarded
    fcntl = None

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
    # On the same file system as the results, so publishing is one rename. The
    # pid in the name lets a later run remove it if this one is killed.
    out_dir.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".staging-{os.getpid()}-", dir=out_dir))


def start_staging(out_dir: Path) -> Path:
    """A fresh staging folder for the example about to run, announced to its children."""
    staging = _new_staging(out_dir)
    os.environ[ENV_VAR] = str(staging)
    return staging


def published_dir(out_dir: Path, runner: str, example: str) -> Path:
    # The name comes from a results file: checked before it becomes a path ("." would be traces/ itself).
    return Path(out_dir) / runner / FOLDER / check_example_name(example)


def published_files(out_dir: Path, runner: str, example: str, pattern: str = "*") -> list[Path]:
    """The example's published artifacts: regular files only, in a folder reached without a link.

    A symbolic link could point anywhere on the machine that builds the site;
    nothing outside the results tree is followed, copied or published.
    """
    folder = published_dir(out_dir, runner, example)
    chain = [Path(out_dir) / runner, Path(out_dir) / runner / FOLDER, folder]
    if any(part.is_symlink() for part in chain) or not folder.is_dir():
        return []
    return sorted(path for path in folder.glob(pattern) if path.is_file() and not path.is_symlink())


def linked_files(out_dir: Path, runner: str, example: str) -> list[Path]:
    """Entries of the example's artifact folder that are links (or the folder is one): refused, not copied."""
    folder = published_dir(out_dir, runner, example)
    if folder.is_symlink() or (Path(out_dir) / runner / FOLDER).is_symlink():
        return [folder]
    return sorted(path for path in folder.iterdir() if path.is_symlink()) if folder.is_dir() else []


@contextlib.contextmanager
def _publishing_lock(out_dir: Path):
    """One publisher at a time per results tree: two runs swapping the same folder would collide."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    # A lock on the folder itself: no lock file is left among the results.
    handle = os.open(out_dir, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # releases the lock


def publish(staging: Path, out_dir: Path, runner: str, example: str) -> Path | None:
    """Swap the staged files in for the example's previous ones; None when it staged none.

    Called once the new results file is in place: files of an earlier run
    never stay beside results they do not belong to.
    """
    target = published_dir(out_dir, runner, example)
    with _publishing_lock(Path(out_dir)):
        # Unique per publisher, so that a crashed one's leftovers never block the next.
        previous = target.with_name(f".previous-{example}-{os.getpid()}")
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


def copy_for_publishing(source_root: Path, runner: str, example: str, out_dir: Path) -> Path:
    """A staging copy of another run's artifacts of one example (empty when it kept none)."""
    staging = _new_staging(out_dir)
    try:
        for path in published_files(source_root, runner, example):
            shutil.copyfile(path, staging / path.name)
    except BaseException:
        discard(staging)
        raise
    return staging


def remove_abandoned_staging(out_dir: Path) -> list[Path]:
    """Staging folders of runs that were killed (their process is gone): removed, and returned."""
    removed = []
    for folder in Path(out_dir).glob(".staging-*"):
        owner = folder.name.split("-")[1] if folder.name.count("-") >= 2 else ""
        if folder.is_dir() and not folder.is_symlink() and owner.isdigit() and not _alive(int(owner)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, but another user's
    return True


def discard(staging: Path) -> None:
    """Drop a staging folder that was not published (a no-op for one that was: it is gone)."""
    shutil.rmtree(staging, ignore_errors=True)
    if os.environ.get(ENV_VAR) == str(staging):
        del os.environ[ENV_VAR]
