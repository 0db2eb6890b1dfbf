"""The per-case summary of a results file, one row per case: the terminal's table and the page's."""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.analysis import intervals
from tfspeedlab.results.schema import ResultsFile
from tfspeedlab.results.timing import Timing
from tfspeedlab.units import format_ratio, format_significant, format_time, select_unit

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
    # One unit for the whole median column so rows compare at a glance (as
    # torch's Compare does); first calls get their own unit, being far larger.
    unit = select_unit(min(case.measurement.median_s for case in results.cases))
    built = []
    for case in results.cases:
        m = case.measurement
        speedup = "—"
        if results.baseline is not None:
            if case.label == results.baseline:
                speedup = "1×\u00a0(baseline)"
            else:
                found = intervals.speedup(results, results.baseline, case.label)
                speedup = f"{format_ratio(found.value)} [{format_interval(found)}]"
        built.append(Row(
            case=case.label,
            median=format_time(m.median_s, unit) + noisy_mark(m),
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


def format_interval(found: intervals.Ratio) -> str:
    """``9.8–10.4×``: the interval of a ratio, three significant figures each end."""
    return f"{format_significant(found.low, 3)}–{format_ratio(found.high)}"
