"""The runners as pages name them, and the CPU / GPU content tabs every measured block sits in."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping

from tfspeedlab.core.results.cpu import cpu_with_sets
from tfspeedlab.core.results.schema import RUNNERS
from tfspeedlab.render import templating

RUNNER_TITLES = {"cpu": "CPU", "gpu": "GPU"}


def runner_tabs(body_of: Callable[[str], str]) -> str:
    """Material content tabs, one per runner; linked across the site."""
    tabs = [f'=== "{RUNNER_TITLES[runner]}"\n\n{textwrap.indent(body_of(runner), "    ")}' for runner in RUNNERS]
    return "\n\n".join(tabs) + "\n"


def not_measured(runner: str, what: str, command: str | None = None) -> str:
    """The note a tab shows where its runner has no results: ``what`` is Markdown; ``command`` the
    command that measures it (default: ``tfspeedlab run --runner RUNNER``)."""
    return templating.render("not_measured.md.j2", title=RUNNER_TITLES[runner], what=what,
                             command=command or f"tfspeedlab run --runner {runner}")


def machine_summary(environment: Mapping, with_sets: Callable[[Mapping], str] = cpu_with_sets) -> str:
    """``AMD EPYC 25/1 with AVX2, 2 logical cores``, led by the GPUs' names where there are any: the CPU by
    the name every table gives it (``with_sets``: ``Context.cpu_name.with_sets`` in a build)."""
    machine = f"{with_sets(environment)}, {environment['logical_cores']} logical cores"
    if environment.get("threads_per_core") is not None:
        machine += f", {environment['threads_per_core']} thread{'s' if environment['threads_per_core'] != 1 else ''} per core"
    gpus = ", ".join(gpu.get("name", "?") for gpu in environment["gpus"])
    return f"{gpus} ({machine})" if gpus else machine
