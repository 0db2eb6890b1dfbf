"""The Keras backends page's blocks: per runner, the tables ``site.backend_tables`` makes from
``results/<runner>/keras_backends.json`` (or the plain note where that runner has none)."""

from __future__ import annotations

from collections.abc import Callable

from tfspeedlab.analysis import backends
from tfspeedlab.results.schema import MissingCaseError, ResultsFile
from tfspeedlab.site import backend_tables, markdown
from tfspeedlab.site.directives.context import Context, Runner
from tfspeedlab.site.directives.registry import directive
from tfspeedlab.site.errors import DirectiveError
from tfspeedlab.site.runners import not_measured


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


@directive("jit_payback_steps", "One model and backend of the payback table: the training steps after which "
                                "jit_compile=True paid for itself, ``255 steps [166–397]``, or why it never does.")
def jit_payback_steps(context: Context, example: str, model: str, backend: str, *, runner: Runner = "cpu") -> str:
    found = context.lookup(example, runner)
    pivots = backends.model_pivots(found)
    if model not in pivots:
        raise MissingCaseError(f"{example} has no model {model!r}; it has {sorted(pivots)}", found.quick)
    payback = backends.payback(pivots[model], backend)
    if payback is None:
        raise DirectiveError(f"{example} · {model}: {backend!r} was not timed with jit_compile both ways")
    return backend_tables.payback_steps(payback)


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
