"""Markdown built from data, escaped in one place: text, code spans, emphasis, links and tables.

A ``Markdown`` string is already safe to put on a page; any other string is
text and is escaped when it meets Markdown. Labels, titles and error messages
come from results files, which a page must show as written, never obey.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from tfspeedlab.core.wording import NO_VERDICT_CELL, ONE_PROCESS_NOTE

# Characters that start Markdown or HTML markup inside a line (or end a table cell); braces too,
# since ``{: onclick=… }`` at the end of a cell is attr_list syntax that sets HTML attributes.
_SPECIAL = re.compile(r"([\\`*_\[\]|{}])")
# Where str.splitlines() breaks a line ("\r\n" once): ``code`` keeps a value on one line, as ``text`` does.
_LINE_BREAK = re.compile("\r\n|[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


class Markdown(str):
    """Text already in Markdown: inserted as it is."""


def text(value: object) -> Markdown:
    """Plain text shown literally, on one line: HTML escaped, Markdown markers backslashed.

    A line break would end a table row or start a block (a heading, a list),
    so it becomes a space.
    """
    if isinstance(value, Markdown):
        return value
    one_line = " ".join(str(value).splitlines())
    return Markdown(_SPECIAL.sub(r"\\\1", html.escape(one_line, quote=False)))


def code(value: object) -> Markdown:
    """An inline code span, however many backticks the value holds, on one line: a line break in
    any spelling (a carriage return too, which Python-Markdown reads as one after the directives
    have run) would end the span and leave the rest of the line to be read as Markdown and HTML."""
    value = _LINE_BREAK.sub(" ", str(value))
    fence = "`" * (max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)
    padding = " " if value.startswith("`") or value.endswith("`") else ""
    return Markdown(f"{fence}{padding}{value}{padding}{fence}")


def bold(value: object) -> Markdown:
    return Markdown(f"**{text(value)}**")


def italic(value: object) -> Markdown:
    return Markdown(f"*{text(value)}*")


def join(*parts: object) -> Markdown:
    """Pieces side by side, each escaped unless it is already Markdown."""
    return Markdown("".join(text(part) for part in parts))


LEFT, RIGHT = "---", "--:"


def table(header: Sequence[object], rows: Iterable[Sequence[object]], align: Sequence[str] | None = None) -> Markdown:
    """A pipe table; ``align`` per column (``LEFT``/``RIGHT``), default: first left, the rest right."""
    align = list(align or [LEFT] + [RIGHT] * (len(header) - 1))
    if len(align) != len(header):
        raise ValueError(f"{len(header)} columns but {len(align)} alignments")
    lines = [_row(header), "| " + " | ".join(align) + " |"]
    rows = [list(row) for row in rows]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row of {len(row)} cells in a table of {len(header)} columns: {row!r}")
        lines.append(_row(row))
    if any(NO_VERDICT_CELL in str(cell) for row in rows for cell in row):
        lines += ["", ONE_PROCESS_NOTE]
    return Markdown("\n".join(lines))


def _row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(text(cell) for cell in cells) + " |"
