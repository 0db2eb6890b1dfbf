"""The per-case summary of a results file, one row per case: the terminal's table and the page's.

The time a row leads with is the one its speed-up divides: the guide's estimator (the 10th
percentile of all blocks, ``intervals.estimate_s``), so that two rows' times divide to the speed-up
beside them. The median and the spread follow, for what a typical call costs and how far calls
scatter.
"""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.units import format_time
from tfspeedlab.core.wording import BASELINE_CELL, DID_NOT_TRAIN, speedup_cell

COLUMNS = ("Case", "Per call", "Speed-up (95% interval)", "First call", "Median · spread", "Calls × blocks")


@dataclass(frozen=True)
class Row:
    case: str
    per_call: str
    speedup: str
    first_call: str
    median: str
    sampling: str

    def cells(self) -> tuple[str, ...]:
        return (self.case, self.per_call, self.speedup, self.first_call, self.median, self.sampling)


def rows(results: ResultsFile) -> list[Row]:
    # Each time in its own unit, three significant figures: one unit for a whole
    # column (torch's Compare) printed "156864 µs" beside "30.6 µs", which reads worse.
    built = []
    untrained = untrained_cases(results)
    for case in results.cases:
        m = case.measurement
        speedup = "—"
        if results.baseline is not None:
            if case.label == results.baseline:
                speedup = BASELINE_CELL
            elif case.label in untrained:
                speedup = DID_NOT_TRAIN
            else:
                found = intervals.speedup(results, results.baseline, case.label)
                speedup = speedup_cell(found)
        built.append(Row(
            case=case.label,
            per_call=format_time(intervals.estimate_s(case)),
            speedup=speedup,
            first_call=format_time(m.first_call_s),
            median=f"{format_time(m.median_s)} · {m.spread:.0%}",
            sampling=f"{m.calls_per_block} × {m.blocks}",
        ))
    return built


def untrained_cases(results: ResultsFile) -> set[str]:
    """The labels of the training cases that did not train while the baseline did."""
    if results.baseline is None:
        return set()
    baseline = results.case(results.baseline)
    return {case.label for case in results.cases if case.label != results.baseline and _did_not_train(case, baseline)}


def _did_not_train(case, baseline) -> bool:
    """Whether a training case left its weights where they started while the baseline moved them."""
    return case.metrics.weight_change == 0 and bool(baseline.metrics.weight_change)


def text_columns(table: list[tuple[str, ...]]) -> str:
    """Aligned columns for a terminal: the first row is the header, ruled off below."""
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
