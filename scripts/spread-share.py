"""How many of a results tree's cells are quiet: within-process spread (IQR ÷ median) under 10%.

    python scripts/spread-share.py [RESULTS_DIR] [--runner cpu]

A cell is one case of one example; its within-process spread is the typical (median over
processes) interquartile range of a process's blocks over its median, the harness's
``Timing.relative_iqr``. Prints the share per example and in all, and the CPU each file was
measured on, so that a tree measured on two CPUs shows it. Issue 27 asks for at least 80%.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tfspeedlab.core.measure.measurement import IQR_WARN_THRESHOLD  # noqa: E402
from tfspeedlab.core.results.store import load_runner  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", type=Path, default=REPO / "results")
    parser.add_argument("--runner", default="cpu")
    options = parser.parse_args()
    files = load_runner(options.results / options.runner, options.runner)
    quiet_all = cells_all = 0
    for example, results in sorted(files.items()):
        spreads = [case.measurement.relative_iqr for case in results.cases]
        quiet = sum(spread < IQR_WARN_THRESHOLD for spread in spreads)
        quiet_all, cells_all = quiet_all + quiet, cells_all + len(spreads)
        print(f"{example:18} {quiet:4d} of {len(spreads):4d} quiet  {results.environment.get('cpu_model', '?')}"
              f"  {results.environment.get('utc_time', '?')}")
    print(f"{'all':18} {quiet_all:4d} of {cells_all:4d} quiet ({quiet_all / max(cells_all, 1):.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
