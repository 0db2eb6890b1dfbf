"""The runners as pages name them, and the CPU / GPU content tabs every measured block sits in."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from tfspeedlab.results.schema import RUNNERS
from tfspeedlab.site import templating

RUNNER_TITLES = {"cpu": "CPU", "gpu": "GPU"}


def runner_tabs(body_of: Callable[[str], str]) -> str:
    """Material content tabs, one per runner; linked across the site."""
    tabs = [f'=== "{RUNNER_TITLES[runner]}"\n\n{textwrap.indent(body_of(runner), "    ")}' for runner in RUNNERS]
    return "\n\n".join(tabs) + "\n"


def not_measured(runner: str, what: str) -> str:
    """The note a tab shows where its runner has no results: ``what`` is Markdown."""
    return templating.render("not_measured.md.j2", title=RUNNER_TITLES[runner], runner=runner, what=what)
