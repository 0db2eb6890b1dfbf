"""The example scripts as Jupyter notebooks: ``notebooks/<example>.ipynb``, kept in sync.

Examples are written in jupytext's percent format so each is both a script
and a notebook. The ``.ipynb`` twins are committed because Colab opens only
notebooks stored in the repository; ``python scripts/notebooks.py`` (a
maintainer tool, not part of the installed package) rewrites them, and the test suite fails when one is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext

from tfspeedlab.results.repo import REPO_ROOT
from tfspeedlab.results.store import write_text_atomic
from tfspeedlab.run.catalog import discover

NOTEBOOK_DIR = REPO_ROOT / "notebooks"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def to_notebook(script: Path) -> str:
    notebook = jupytext.read(script, fmt="py:percent")
    notebook.metadata = {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"{script.stem}-{index}"  # jupytext draws random ids; these keep the file stable
    return jupytext.writes(notebook, fmt="ipynb")


def stale_notebooks(notebook_dir: Path = NOTEBOOK_DIR) -> list[str]:
    """Examples whose committed notebook is missing or differs from the script."""
    stale = []
    for name, script in discover().items():
        target = notebook_dir / f"{name}.ipynb"
        if not target.exists() or target.read_text(encoding="utf-8") != to_notebook(script.path):
            stale.append(name)
    return stale


def write_all(notebook_dir: Path = NOTEBOOK_DIR) -> list[Path]:
    written = []
    for name, script in discover().items():
        target = notebook_dir / f"{name}.ipynb"
        write_text_atomic(target, to_notebook(script.path))
        written.append(target)
    return written


if __name__ == "__main__":
    for path in write_all():
        print(f"wrote {path.relative_to(REPO_ROOT)}")
    sys.exit(0)
