"""The memory and start-up page's figures and blocks: growth over repeated calls (``memory``) and
start-up (``startup``), from the tables ``site.memory_tables`` makes, in runner tabs."""

from __future__ import annotations

from tfspeedlab.site import memory_tables
from tfspeedlab.site.directives.context import Context, Runner
from tfspeedlab.site.directives.registry import directive


@directive("growth", "One loop's resident-memory growth per call in words, with its interval and whether it levels "
                     "off: ``grows 12.3 KiB per call [10.1–14.5 KiB]; keeps growing``.")
def growth(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    return memory_tables.growth_phrase(context.lookup(example, runner).case(case))


@directive("growth_table", "Per Keras, call and remedy: resident memory's growth per call over the followed loop and "
                           "its second half, the Python heap's, the time per call.")
def growth_table(context: Context, example: str) -> str:
    return context.example_tabs(example, memory_tables.growth_table)


@directive("imports", "Each import as a fresh process, start to exit, against ``import tensorflow``.")
def imports(context: Context, example: str) -> str:
    return context.example_tabs(example, memory_tables.imports_table)


@directive("import_contributors", "What ``python -X importtime`` gave each package and module of one import case.")
def import_contributors(context: Context, example: str, case: str) -> str:
    return context.example_tabs(example, lambda found: memory_tables.contributors_table(found, case))


@directive("first_prediction", "Per model and format: a fresh process from start to its first prediction, against "
                               "``.keras``, and one cold start split into import, load and first call.")
def first_prediction(context: Context, example: str) -> str:
    return context.example_tabs(example, memory_tables.first_prediction_table)


@directive("save_load", "Per model and format: building, saving and loading, call after call in one process, with "
                        "the process's first call apart.")
def save_load(context: Context, example: str) -> str:
    return context.example_tabs(example, memory_tables.save_load_table)
