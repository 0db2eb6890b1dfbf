"""Names that become paths: an example's name is a file name in ``examples/``, ``results/<runner>/``
and ``traces/``, so one read from a results file is checked before it touches a path."""

from __future__ import annotations

import re

# A Python-script stem: letters, digits, underscores and hyphens, not starting
# with a dot or a hyphen — so never ".", "..", a path or a hidden file.
EXAMPLE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,99}")


def example_name_problem(name: object) -> str | None:
    """Why ``name`` cannot be an example's name, or None when it can."""
    if not isinstance(name, str):
        return f"must be a string, found {type(name).__name__}"
    if EXAMPLE_NAME.fullmatch(name):
        return None
    return (f"is {name[:60]!r}{'…' if len(name) > 60 else ''}: an example's name is 1–100 letters, digits, "
            "underscores or hyphens, not starting with a hyphen (it names files)")


def check_example_name(name: object) -> str:
    """``name`` itself, or ValueError saying why it cannot name an example's files."""
    problem = example_name_problem(name)
    if problem:
        raise ValueError(f"example name {problem}")
    return name
