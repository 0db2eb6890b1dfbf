"""The per-case summary of a results file, one row per case: the terminal's table and the page's."""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.analysis import intervals
from tfspeedlab.results.schema import ResultsFile
from tfspeedlab.results.timing import Timing
from tfspeedlab.analysis.wording import BASELINE_CELL, format_speedup
from tfspeedlab.units import format_time

COLUMNS = ("Case", "Median per call", "Spread (IQR)", "First call", "Speed-up (95% interval)", "Calls × blocks")


@dataclass(frozen=True)
class Row:
    case: str
    median: str
    iqr: str
    first_call: str
    speedup: str
    sampling: str
    noisy: bool

    def cells(self) -> tuple[str, ...]:
        return (self.case, self.median, self.iqr, self.first_call, self.speedup, self.sampling)


def rows(results: ResultsFile) -> list[Row]:
    # Each time in its own unit, three significant figures: one unit for a whole
    # column (torch's Compare) printed "156864 µs" beside "30.6 µs", which reads worse.
    built = []
    for case in results.cases:
        m = case.measurement
        speedup = "—"
        if results.baseline is not None:
            if case.label == results.baseline:
                speedup = BASELINE_CELL
            else:
                speedup = format_speedup(intervals.speedup(results, results.baseline, case.label))
        built.append(Row(
            case=case.label,
            median=format_time(m.median_s) + noisy_mark(m),
            iqr=f"{m.relative_iqr:.1%}",
            first_call=format_time(m.first_call_s),
            speedup=speedup,
            sampling=f"{m.calls_per_block} × {m.blocks}",
            noisy=m.noisy,
        ))
    return built


def noisy_mark(measurement: Timing) -> str:
    """`` (! 12%)`` after a noisy median: its spread within a process (IQR), or between processes, is a
    large share of it.

    Non-breaking spaces: the mark must not wrap away from its figure.
    """
    return f"\u00a0(!\u00a0{measurement.spread:.0%})" if measurement.noisy else ""


def any_noisy(results: ResultsFile) -> bool:
    return any(case.measurement.noisy for case in results.cases)


def text_columns(table: list[tuple[str, ...]]) -> str:
    """Aligned columns for a terminal: the first row is the header, ruled off below."""
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
