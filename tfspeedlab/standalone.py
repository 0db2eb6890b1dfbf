"""``python examples/NAME.py``: run one example in this process and print its table."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from tfspeedlab import artifacts
from tfspeedlab.results import write_results
from tfspeedlab.runner import measure, resolve_runner
from tfspeedlab.tables import text_table
from tfspeedlab.workload import SkipExample, Workload


def run_standalone(build: Callable[..., Workload], argv: list[str] | None = None) -> None:
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
        results = measure(script, workload, runner, options.quick)
        print(f"\n{results.title} — runner: {runner}, TensorFlow {results.environment['tensorflow']}\n")
        print(text_table(results))
        if options.out:
            print(f"\nwrote {write_results(results, options.out)}")
            if (published := artifacts.publish(staging, options.out, runner, workload.name)) is not None:
                print(f"wrote {published}/")
    finally:
        if staging is not None:
            artifacts.discard(staging)
