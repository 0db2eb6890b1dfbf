"""Print every speed-up against a baseline from two runs, their difference, and the committed value's fit.

    python scripts/repeatability.py FIRST_DIR SECOND_DIR COMMITTED_DIR EXAMPLE...

Each DIR holds ``<example>.json`` files of one runner. Used by repeatability.sh.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tfspeedlab.core.results.store import load_results
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.summary import text_columns
from tfspeedlab.core.units import format_ratio
from tfspeedlab.core.wording import span

# The acceptance bar: two back-to-back runs agree on every speed-up within this.
AGREEMENT = 0.10


def speedups(path: Path) -> dict[str, intervals.Ratio]:
    results = load_results(path)
    if results.baseline is None:
        return {}
    return {case.label: intervals.speedup(results, results.baseline, case.label)
            for case in results.cases if case.label != results.baseline}


def main(first: Path, second: Path, committed: Path, examples: list[str]) -> int:
    rows = [("Speed-up", "Run 1 [95%]", "Run 2 [95%]", "Difference", "Committed", "In run 1's / 2's interval")]
    worst = 0.0
    for example in examples:
        one, two = speedups(first / f"{example}.json"), speedups(second / f"{example}.json")
        kept = speedups(committed / f"{example}.json") if (committed / f"{example}.json").exists() else {}
        for label, a in one.items():
            b = two[label]
            difference = abs(a.value - b.value) / min(a.value, b.value)
            worst = max(worst, difference)
            shown = kept.get(label)
            inside = "—" if shown is None else " / ".join(
                "yes" if run.low <= shown.value <= run.high else "NO" for run in (a, b))
            rows.append((f"{example} · {label}", f"{format_ratio(a.value)} [{span(a.low, a.high)}]",
                         f"{format_ratio(b.value)} [{span(b.low, b.high)}]", f"{difference:.1%}",
                         "—" if shown is None else format_ratio(shown.value), inside))
    print(text_columns(rows))
    verdict = "within" if worst <= AGREEMENT else "NOT within"
    print(f"\nlargest difference between the two runs: {worst:.1%} ({verdict} {AGREEMENT:.0%})")
    return 0 if worst <= AGREEMENT else 1


if __name__ == "__main__":
    first, second, committed, *names = sys.argv[1:]
    sys.exit(main(Path(first), Path(second), Path(committed), names))
