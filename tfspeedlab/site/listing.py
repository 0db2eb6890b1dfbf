"""An example script as a page shows it: collapsed, and read as a script rather than a notebook.

The examples are written in jupytext's percent format so each is also a
notebook. On a page the cell markers (``# %%``, ``# %% [markdown]``) and the
notebook's install cell (``# %pip install …``) are noise; they are dropped from
what the reader sees. A Markdown cell's text stays as the comment it already
is, without the Markdown heading hashes (``# # Title`` reads ``# Title``).
Only comment lines change, so the shown code is the code that runs.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from tfspeedlab.render import templating

# "# %%" alone or with a cell title or options, not a commented cell magic ("# %%timeit").
_CELL_MARKER = re.compile(r"^# %%(?P<rest>\s.*)?$")
_MARKDOWN_CELL = re.compile(r"^\s*\[(markdown|md)\]")
# An IPython magic or shell line, bare or commented as jupytext writes it in a script:
# it means nothing to `python script.py`, and the install it does is the notebook's.
_MAGIC = re.compile(r"^(?:# )?(?:%{1,2}[A-Za-z]\w*|!\w)")
# A Markdown heading inside a Markdown cell's comment: "# ## Section".
_HEADING = re.compile(r"^# #{1,6} ")
# PEP 8's most between top-level definitions; dropped markers must not leave wider gaps.
_MAX_BLANK_LINES = 2
# A Markdown cell's text introduces the code after it, like a module docstring: one blank line.
_MAX_BLANK_LINES_AFTER_TEXT = 1


def readable_source(script: str) -> str:
    """The script without notebook cell markers and magics, Markdown cells kept as plain comments."""
    kept: list[str] = []
    blanks = 0
    after_text = False  # whether the last line kept was a Markdown cell's
    in_markdown = False
    for line in script.splitlines():
        if (marker := _CELL_MARKER.match(line)) is not None:
            in_markdown = bool(_MARKDOWN_CELL.match(marker["rest"] or ""))
            continue
        if not in_markdown and _MAGIC.match(line):
            continue
        line = _HEADING.sub("# ", line.rstrip()) if in_markdown else line.rstrip()
        if not line:
            blanks += 1
            if blanks > (_MAX_BLANK_LINES_AFTER_TEXT if after_text else _MAX_BLANK_LINES):
                continue
        else:
            blanks = 0
            after_text = in_markdown
        kept.append(line)
    return "\n".join(kept).strip("\n") + "\n"


def listing_markdown(script: Path, shown_path: str) -> str:
    """A collapsed admonition holding the readable script, titled by its path in the repository."""
    source = readable_source(script.read_text(encoding="utf-8"))
    # A fence longer than any run of backticks in the source, so none can close it.
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", source)), default=0))
    # Every line indented, blank ones too: the code block sits inside the admonition.
    body = textwrap.indent(source, "    ", predicate=lambda line: True)
    return templating.render("listing.md.j2", fence=fence, path=shown_path, body=body)
