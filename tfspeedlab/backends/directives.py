"""The Keras backends page's blocks: per runner, the tables ``backends.tables`` makes from
``results/<runner>/keras_backends.json`` (or the plain note where that runner has none)."""

from __future__ import annotations

from collections.abc import Callable

from tfspeedlab.backends import grid, tables as backend_tables
from tfspeedlab.core.results.schema import MissingCaseError, ResultsFile
from tfspeedlab.render.context import Context, Runner, table_directive
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import directive


def _with_skipped_note(table: Callable[[ResultsFile], str]) -> Callable[[ResultsFile], str]:
    """``table``, then the note on what a backend could not run, where there is one."""
    def show(found: ResultsFile) -> str:
        note = backend_tables.skipped_note(found)
        return table(found) + ("\n\n" + note if note else "")

    return show


# One table of the example each, in runner tabs.
for _name, _table, _summary in (
    ("backend_extremes", backend_tables.extremes_table, "Per model and call: the fastest and slowest Keras backend "
     "(and compile setting), and the one against the other."),
    ("jit_payback", backend_tables.payback_table, "Per model and backend: jit_compile=True against False per "
     "training step, what it adds to the first call, and after how many steps it pays back."),
    ("backend_checks", backend_tables.checks_table, "Per model: how far every case's predictions on the fixed batch "
     "differ, and how many training cases' loss fell."),
    ("backend_memory", backend_tables.memory_table, "Per model and backend: resident memory after the repeated calls "
     "and its growth per call."),
):
    table_directive(_name, _summary, _with_skipped_note(_table), __name__)


@directive("jit_payback_steps", "One model and backend of the payback table: the training steps after which "
                                "jit_compile=True paid for itself, ``255 steps [166–397]``, or why it never does.")
def jit_payback_steps(context: Context, example: str, model: str, backend: str, *, runner: Runner = "cpu") -> str:
    found = context.lookup(example, runner)
    pivots = grid.model_pivots(found)
    if model not in pivots:
        raise MissingCaseError(f"{example} has no model {model!r}; it has {sorted(pivots)}", found.quick)
    payback = grid.payback(pivots[model], backend)
    if payback is None:
        raise DirectiveError(f"{example} · {model}: {backend!r} was not timed with jit_compile both ways")
    return backend_tables.payback_steps(payback)


@directive("short_runs", "One model: a short training run from a fresh model (1, 10 and 100 steps, first call "
                         "included) on every backend and compile setting.")
def short_runs(context: Context, example: str, model: str) -> str:
    table = _with_skipped_note(lambda found: backend_tables.short_runs_table(found, model))
    return context.example_tabs(example, table)
