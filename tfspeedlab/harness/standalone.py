"""``python examples/NAME.py``: run one example in this process and print its table (``tfspeedlab.main``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from tfspeedlab.core.results import artifacts
from tfspeedlab.core.results.repo import examples_dir
from tfspeedlab.core.results.store import write_results
from tfspeedlab.core.spec.workload import SkipExample, Workload
from tfspeedlab.core.stats.summary import COLUMNS, rows, text_columns
from tfspeedlab.harness.cases import run_workload
from tfspeedlab.harness.isolation import measure
from tfspeedlab.harness.machine import mark_run_start, resolve_runner

FULL_RUN_CALL = "tfspeedlab.main(workload, quick=False)"


def main(build: Callable[..., Workload], argv: list[str] | None = None, *, quick: bool | None = None) -> None:
    """Entry point for ``python examples/NAME.py [--quick] [--out DIR]``, and the last cell of a notebook.

    ``quick`` overrides the command line (a notebook passes its ``QUICK_RUN`` cell).
    Left out, ``--quick`` decides in a script; a notebook kernel has no command
    line to ask with, and a reader trying a notebook on a laptop or in Colab
    wants to see it work before waiting for the full run: it runs quick unless
    asked for the full run.
    """
    parser = argparse.ArgumentParser(description="Run this example and print its measurements.")
    parser.add_argument("--quick", action="store_true", help="smaller, faster run (as in CI)")
    parser.add_argument("--out", type=Path, help="also write the results file under this folder")
    # parse_known_args: inside a notebook, sys.argv holds the kernel's own flags.
    options, _ = parser.parse_known_args(argv)
    notebook = in_notebook_kernel()
    if quick is None:
        quick = options.quick or notebook

    try:
        workload = build(quick=quick)
    except SkipExample as reason:
        print(f"skipped: {reason}")
        return
    if quick and notebook:
        print(f"Quick run: smaller sizes and shorter timing than the full run the guide's figures come from. "
              f"For the full run, which takes much longer: {FULL_RUN_CALL}")
    runner = resolve_runner("auto")
    mark_run_start()
    script = None
    if workload.processes:
        script = script_of(build, workload.name)
        if script is None:
            print(f"{workload.name} times its modes in separate Python processes, which need the example "
                  f"script on disk; this notebook has none. Clone the repository and run "
                  f"`python examples/{workload.name}.py` or `tfspeedlab run {workload.name}`.")
            return
    staging = artifacts.start_staging(options.out) if options.out else None
    try:
        # One run in this process (a notebook, a quick look), unless the workload needs processes of its own.
        results = (measure(script, workload, runner, quick) if script is not None
                   else run_workload(workload, runner, quick))
        kind = "quick run" if quick else "full run"
        print(f"\n{results.title} — runner: {runner}, TensorFlow {results.environment['tensorflow']}, {kind}\n")
        print(text_columns([COLUMNS, *(row.cells() for row in rows(results))]))
        if options.out:
            print(f"\nwrote {write_results(results, options.out)}")
            if (published := artifacts.publish(staging, options.out, runner, workload.name)) is not None:
                print(f"wrote {published}/")
    finally:
        if staging is not None:
            artifacts.discard(staging)


def in_notebook_kernel() -> bool:
    """Whether this Python is a Jupyter kernel (Jupyter, Colab, nbclient): an IPython shell with a kernel.

    Terminal IPython has no kernel: it runs scripts, which have a command line.
    """
    ipython = sys.modules.get("IPython")  # never imported here: a kernel has it loaded already
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def script_of(build: Callable[..., Workload], name: str) -> Path | None:
    """The file ``build`` was defined in; in a notebook (no file), the example script of that name, if present."""
    defined_in = getattr(sys.modules.get(build.__module__), "__file__", None)
    if defined_in:
        return Path(defined_in)
    candidate = examples_dir() / f"{name}.py"
    return candidate if candidate.is_file() else None
