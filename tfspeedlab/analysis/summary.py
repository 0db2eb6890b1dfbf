"""The per-case summary of a results file, one row per case: the terminal's table and the page's."""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.analysis import intervals
from tfspeedlab.results.schema import ResultsFile
from tfspeedlab.results.timing import Timing
from tfspeedlab.units import format_ratio, format_significant, format_time

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
                speedup = "1×\u00a0(baseline)"
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


def format_speedup(found: intervals.Ratio) -> str:
    """``10.8× [9.78–12.0×]``; a speed-up whose whole interval lies below 1 as the slow-down it is,
    ``32.3× slower [28.6–37.0×]`` (a "0.031×" hides what it means). Where the interval spans 1, the
    bare factor: no word the interval does not support."""
    if found.high < 1:
        return (f"{format_ratio(1 / found.value)}\u00a0slower "
                f"[{format_significant(1 / found.high, 3)}–{format_ratio(1 / found.low)}]")
    return f"{format_ratio(found.value)} [{format_interval(found)}]"


def format_time_ratio(found: intervals.Ratio) -> str:
    """A time against a reference time, in words where the interval allows them: ``2.91× faster`` when
    the whole interval lies below 1, ``1.50× slower`` when it lies above, else the bare ratio ``1.02×``
    ("0.343×" makes a reader work out which way it goes)."""
    if found.high < 1:
        return f"{format_ratio(1 / found.value)}\u00a0faster"
    if found.low > 1:
        return f"{format_ratio(found.value)}\u00a0slower"
    return format_ratio(found.value)


def format_change(found: intervals.Ratio, unclear: str = "no clear change") -> str:
    """A time against a reference (time ÷ reference), in words with its interval: ``2.10× faster
    [1.92–2.31×]``, ``1.52× slower [1.41–1.63×]``, or ``no clear change (1.02×, 0.97–1.08×)`` when the
    interval spans 1 (``unclear`` names that case: "not clearly different" between two cases)."""
    if found.high < 1:
        return (f"{format_ratio(1 / found.value)}\u00a0faster "
                f"[{format_significant(1 / found.high, 3)}–{format_ratio(1 / found.low)}]")
    if found.low > 1:
        return f"{format_ratio(found.value)}\u00a0slower [{format_interval(found)}]"
    return f"{unclear} ({format_ratio(found.value)}, {format_interval(found)})"


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


def text_columns(table: list[tuple[str, ...]]) -> str:
    """Aligned columns for a terminal: the first row is the header, ruled off below."""
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
