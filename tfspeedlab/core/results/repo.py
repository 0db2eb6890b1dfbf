"""The repository the results live in: its root folder and the git questions asked of it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# tfspeedlab/core/results/repo.py → the checkout's top folder.
REPO_ROOT = Path(__file__).resolve().parents[3]


def run_git(*args: str) -> str | None:
    """``git ARGS`` in the repository: its output, or None when git fails or is missing."""
    try:
        return subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=20, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def git_objects(names: list[str]) -> dict[str, str]:
    """The text of each blob git ``names`` (``COMMIT:PATH``, or a blob's hash), read in one ``git
    cat-file --batch`` (a process per file cost a second per commit); a name that is no blob is left out."""
    request = "".join(f"{name}\n" for name in names)
    try:
        output = subprocess.run(["git", "cat-file", "--batch"], cwd=REPO_ROOT, input=request.encode(),
                                capture_output=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    found, position = {}, 0
    for name in names:
        header_end = output.index(b"\n", position)
        header = output[position:header_end].split()
        position = header_end + 1
        if len(header) != 3 or header[1] != b"blob":  # "<name> missing", or not a file
            continue
        size = int(header[2])
        found[name] = output[position:position + size].decode("utf-8", errors="replace")
        position += size + 1  # the blob, then a newline
    return found


def resolved_commits(names: list[str]) -> dict[str, str | None]:
    """Each name's commit as ``git cat-file -e NAME^{commit}`` would find it: its hash, or None where
    this clone holds none (or git is missing). One ``git cat-file --batch-check`` for them all."""
    # A name is one request line: one holding a line break or no text names no commit.
    asked = [name for name in dict.fromkeys(names) if name.strip() and "\n" not in name and "\r" not in name]
    request = "".join(f"{name}^{{commit}}\n" for name in asked)
    try:
        output = subprocess.run(["git", "cat-file", "--batch-check"], cwd=REPO_ROOT, input=request.encode(),
                                capture_output=True, timeout=60, check=True).stdout.decode(errors="replace")
    except (OSError, subprocess.SubprocessError):
        output = ""
    answers = output.splitlines()
    found: dict[str, str | None] = dict.fromkeys(names)
    if len(answers) == len(asked):
        for name, answer in zip(asked, answers):
            parts = answer.split()  # "<hash> commit <size>", or "<name> missing" / "<name> ambiguous"
            if len(parts) == 3 and parts[1] == "commit" and parts[2].isdigit():
                found[name] = parts[0]
    return found


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
