"""Tables of a results file, for the terminal and for pages, from one set of rows."""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.results import ResultsFile
from tfspeedlab.units import format_ratio, format_time, select_unit

COLUMNS = ("Case", "Median per call", "Spread (IQR)", "First call", "Speed-up", "Calls × blocks")


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
        # Non-breaking space: the mark must not wrap away from its figure.
        noisy_mark = f"\u00a0(!\u00a0{m.relative_iqr:.0%})" if m.noisy else ""
        speedup = "—"
        if results.baseline is not None:
            speedup = format_ratio(results.speedup(results.baseline, case.label))
            if case.label == results.baseline:
                speedup += "\u00a0(baseline)"
        built.append(
            Row(
                case=case.label,
                median=format_time(m.median_s, unit) + noisy_mark,
                iqr=f"{m.relative_iqr:.1%}",
                first_call=format_time(m.first_call_s),
                speedup=speedup,
                sampling=f"{m.calls_per_block} × {m.blocks}",
                noisy=m.noisy,
            )
        )
    return built


def text_table(results: ResultsFile) -> str:
    table = [COLUMNS, *(row.cells() for row in rows(results))]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown_table(results: ResultsFile) -> str:
    body = [
        "| " + " | ".join(COLUMNS) + " |",
        "| " + " | ".join(["---"] + ["--:"] * (len(COLUMNS) - 1)) + " |",
    ]
    body += ["| " + " | ".join(_escape(cell) for cell in row.cells()) + " |" for row in rows(results)]
    return "\n".join(body)


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|")
