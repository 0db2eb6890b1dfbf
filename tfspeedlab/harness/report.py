"""The per-case summary table `python examples/NAME.py` prints in the terminal."""

from __future__ import annotations

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats.summary import COLUMNS, rows, text_columns


def text_table(results: ResultsFile) -> str:
    return text_columns([COLUMNS, *(row.cells() for row in rows(results))])
