"""The table ``python examples/NAME.py`` prints: the per-case summary in aligned columns."""

from __future__ import annotations

from tfspeedlab.analysis.summary import COLUMNS, rows
from tfspeedlab.results.schema import ResultsFile


def text_table(results: ResultsFile) -> str:
    table = [COLUMNS, *(row.cells() for row in rows(results))]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
