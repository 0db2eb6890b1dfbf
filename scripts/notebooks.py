"""The example scripts as Jupyter notebooks: ``notebooks/<example>.ipynb``, kept in sync.

Examples are written in jupytext's percent format so each is both a script
and a notebook. The ``.ipynb`` twins are committed because Colab opens only
notebooks stored in the repository; ``python scripts/notebooks.py`` (a
maintainer tool, not part of the installed package) rewrites them, and the test
suite fails when one is out of date.

A notebook is its script with three changes that make it run top to bottom in
Jupyter and in Colab:

* the install cell installs only where tfspeedlab is missing (the script's
  ``%pip install`` would replace a checkout's own install on every run), from a
  clone of the repository, with the ``measure`` extra: examples that time each
  mode in a fresh Python process run their script, which a wheel does not carry;
* a ``QUICK_RUN`` cell before the run says how long the run is and how to ask for
  the full one (tagged ``parameters``, so ``papermill -p QUICK_RUN False`` works);
* the script's ``if __name__ == "__main__": tfspeedlab.main(workload)`` becomes
  ``tfspeedlab.main(workload, quick=QUICK_RUN)``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import jupytext
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell

from tfspeedlab.core.results.repo import REPO_ROOT
from tfspeedlab.core.results.store import write_text_atomic
from tfspeedlab.harness.catalog import discover

NOTEBOOK_DIR = REPO_ROOT / "notebooks"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
REPOSITORY = "https://github.com/tfspeedlab/tfspeedlab"

# The example's install cell: `%pip install … tfspeedlab …` (jupytext uncomments the magic).
_INSTALL = re.compile(r"^%pip install .*tfspeedlab", re.MULTILINE)
# The last cell of every example script, as its notebook must not run it.
SCRIPT_ENTRY = 'if __name__ == "__main__":\n    tfspeedlab.main(workload)'

INSTALL_CELL = f'''\
# In Colab, or any Python without tfspeedlab: clone the repository and install it
# from there, with what measuring needs (the measure extra: TensorFlow, tf-keras,
# XProf; Colab has the first two). A clone, not only the package: examples that
# time each mode in a fresh Python process run their script from it.
import importlib.util
import os
import subprocess
import sys

REPOSITORY, CLONE = "{REPOSITORY}", os.path.abspath("tfspeedlab-src")
if importlib.util.find_spec("tfspeedlab") is None:
    if not os.path.isdir(CLONE):
        subprocess.run(["git", "clone", "--quiet", "--depth", "1", REPOSITORY, CLONE], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", CLONE + "[measure]"], check=True)
    importlib.invalidate_caches()  # installed after start-up: let the next cell import it
if os.path.isdir(CLONE):  # the example scripts, also after a restart of the runtime
    os.environ["TFSPEEDLAB_EXAMPLES"] = os.path.join(CLONE, "examples")'''

RUN_TEXT = """\
## Run it

In a notebook this runs **quick**: smaller sizes and shorter timing than the
full run, so that it finishes soon on a laptop or a free Colab CPU. For the
full run, the one the guide's figures come from, set `QUICK_RUN = False` (it takes
much longer). The table it prints is measured on the machine running this
notebook."""

QUICK_CELL = "QUICK_RUN = True  # False: the full run, as measured for the guide"
NOTEBOOK_ENTRY = "tfspeedlab.main(workload, quick=QUICK_RUN)"


def to_notebook(script: Path) -> str:
    notebook = jupytext.read(script, fmt="py:percent")
    notebook.cells = notebook_cells(notebook.cells, script)
    notebook.metadata = {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"{script.stem}-{index}"  # jupytext draws random ids; these keep the file stable
    return jupytext.writes(notebook, fmt="ipynb")


def notebook_cells(cells: list[NotebookNode], script: Path) -> list[NotebookNode]:
    """The script's cells, changed to run top to bottom in a notebook (see the module's docstring)."""
    *body, entry = cells
    if entry.cell_type != "code" or entry.source.strip() != SCRIPT_ENTRY:
        raise ValueError(f"{script}: the last cell must be exactly\n{SCRIPT_ENTRY}\nto become {NOTEBOOK_ENTRY!r}")
    installs = [index for index, cell in enumerate(body) if cell.cell_type == "code" and _INSTALL.search(cell.source)]
    if installs:
        body[installs[0]] = new_code_cell(INSTALL_CELL)
    else:  # first thing after the title
        title = 1 if body and body[0].cell_type == "markdown" else 0
        body.insert(title, new_code_cell(INSTALL_CELL))
    return [*body,
            new_markdown_cell(RUN_TEXT),
            new_code_cell(QUICK_CELL, metadata={"tags": ["parameters"]}),
            new_code_cell(NOTEBOOK_ENTRY)]


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
