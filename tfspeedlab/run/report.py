"""Tables for the terminal: the per-case summary ``python examples/NAME.py`` prints, and aligned columns."""

from __future__ import annotations

from tfspeedlab.analysis.summary import COLUMNS, rows
from tfspeedlab.results.schema import ResultsFile


def text_table(results: ResultsFile) -> str:
    return text_columns([COLUMNS, *(row.cells() for row in rows(results))])


def text_columns(table: list[tuple[str, ...]]) -> str:
    """Aligned columns for a terminal: the first row is the header, ruled off below."""
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
