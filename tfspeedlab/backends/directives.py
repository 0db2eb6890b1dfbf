"""The Keras backends page's blocks: per runner, the tables ``backends.tables`` makes from
``results/<runner>/keras_backends.json`` (or the plain note where that runner has none)."""

from __future__ import annotations

from collections.abc import Callable

from tfspeedlab.backends import tables as backend_tables
from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.render import markdown
from tfspeedlab.render.context import Context
from tfspeedlab.render.registry import directive
from tfspeedlab.render.runners import not_measured


def _tabs(context: Context, example: str, render: Callable[[ResultsFile], str]) -> str:
    def body(runner: str) -> str:
        found = context.results[runner].get(example)
        if found is None:
            return not_measured(runner, markdown.code(example))
        note = backend_tables.skipped_note(found)
        return render(found) + ("\n\n" + note if note else "") + "\n"

    return context.tabs(body)


@directive("backend_extremes", "Per model and call: the fastest and slowest Keras backend (and compile setting), "
                               "and the one against the other.")
def backend_extremes(context: Context, example: str) -> str:
    return _tabs(context, example, backend_tables.extremes_table)


@directive("jit_payback", "Per model and backend: jit_compile=True against False per training step, what it adds "
                          "to the first call, and after how many steps it pays back.")
def jit_payback(context: Context, example: str) -> str:
    return _tabs(context, example, backend_tables.payback_table)


@directive("short_runs", "One model: a short training run from a fresh model (1, 10 and 100 steps, first call "
                         "included) on every backend and compile setting.")
def short_runs(context: Context, example: str, model: str) -> str:
    return _tabs(context, example, lambda found: backend_tables.short_runs_table(found, model))


@directive("backend_checks", "Per model: how far every case's predictions on the fixed batch differ, and how many "
                             "training cases' loss fell.")
def backend_checks(context: Context, example: str) -> str:
    return _tabs(context, example, backend_tables.checks_table)


@directive("backend_memory", "Per model and backend: resident memory after the repeated calls and its growth per call.")
def backend_memory(context: Context, example: str) -> str:
    return _tabs(context, example, backend_tables.memory_table)
