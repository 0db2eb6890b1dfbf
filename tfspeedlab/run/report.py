"""The per-case summary table `python examples/NAME.py` prints in the terminal."""

from __future__ import annotations

from tfspeedlab.analysis.summary import COLUMNS, rows, text_columns
from tfspeedlab.results.schema import ResultsFile


def text_table(results: ResultsFile) -> str:
    return text_columns([COLUMNS, *(row.cells() for row in rows(results))])
