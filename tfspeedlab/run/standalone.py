"""``python examples/NAME.py``: run one example in this process and print its table (``tfspeedlab.main``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from tfspeedlab.results import artifacts
from tfspeedlab.results.store import write_results
from tfspeedlab.run.cases import run_workload
from tfspeedlab.run.isolation import measure
from tfspeedlab.run.machine import resolve_runner
from tfspeedlab.run.report import text_table
from tfspeedlab.spec.workload import SkipExample, Workload


def main(build: Callable[..., Workload], argv: list[str] | None = None) -> None:
    """Entry point for ``python examples/NAME.py [--quick] [--out DIR]``."""
    parser = argparse.ArgumentParser(description="Run this example and print its measurements.")
    parser.add_argument("--quick", action="store_true", help="smaller, faster run (as in CI)")
    parser.add_argument("--out", type=Path, help="also write the results file under this folder")
    # parse_known_args: inside a notebook, sys.argv holds the kernel's own flags.
    options, _ = parser.parse_known_args(argv)

    try:
        workload = build(quick=options.quick)
    except SkipExample as reason:
        print(f"skipped: {reason}")
        return
    runner = resolve_runner("auto")
    script = Path(sys.modules[build.__module__].__file__)
    staging = artifacts.start_staging(options.out) if options.out else None
    try:
        # One run in this process (a notebook, a quick look), unless the workload needs processes of its own.
        results = (measure(script, workload, runner, options.quick) if workload.processes
                   else run_workload(workload, runner, options.quick))
        print(f"\n{results.title} — runner: {runner}, TensorFlow {results.environment['tensorflow']}\n")
        print(text_table(results))
        if options.out:
            print(f"\nwrote {write_results(results, options.out)}")
            if (published := artifacts.publish(staging, options.out, runner, workload.name)) is not None:
                print(f"wrote {published}/")
    finally:
        if staging is not None:
            artifacts.discard(staging)
