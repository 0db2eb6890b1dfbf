"""The repository the results live in: its root folder and the git questions asked of it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# tfspeedlab/results/repo.py → the checkout's top folder.
REPO_ROOT = Path(__file__).resolve().parents[2]


def run_git(*args: str) -> str | None:
    """``git ARGS`` in the repository: its output, or None when git fails or is missing."""
    try:
        return subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=20, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def git_commit() -> str | None:
    return run_git("rev-parse", "HEAD") or None


def git_dirty() -> bool | None:
    # Only the code a run executes counts: pages and results may change meanwhile.
    status = run_git("status", "--porcelain", "--untracked-files=no", "--", "tfspeedlab", "examples")
    return None if status is None else bool(status)


def examples_dir() -> Path:
    """``$TFSPEEDLAB_EXAMPLES``, else the repository's ``examples/``."""
    return Path(os.environ.get("TFSPEEDLAB_EXAMPLES", REPO_ROOT / "examples"))


def example_names() -> frozenset[str]:
    """The examples that exist: the ``*.py`` scripts in the examples folder (helpers start with ``_``)."""
    return frozenset(path.stem for path in examples_dir().glob("*.py") if not path.name.startswith("_"))
