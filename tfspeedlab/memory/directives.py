"""The memory and start-up page's figures and tables: memory growth over repeated calls, imports,
the first prediction of a fresh process, saving and loading."""

from __future__ import annotations

from tfspeedlab.core.stats import memory_growth
from tfspeedlab.core.units import format_bytes
from tfspeedlab.core.wording import NO_GROWTH_BYTES_PER_CALL
from tfspeedlab.memory import tables as memory_tables
from tfspeedlab.render.context import Context, Runner
from tfspeedlab.render.registry import directive


@directive("growth", "One loop's resident-memory growth per call in words, with its interval and whether it levels "
                     "off: ``grows 12.3 KiB per call [10.1–14.5 KiB] and keeps growing``.")
def growth(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    return memory_growth.growth_phrase(context.lookup(example, runner).case(case))


@directive("late_growth", "One loop's resident-memory growth per call over its second half, in words with its "
                          "interval, the rate a longer loop goes on paying: ``grows 18.2 KiB per call [11.4–25.0 KiB]``.")
def late_growth(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    return memory_growth.late_growth_phrase(context.lookup(example, runner).case(case))


@directive("growth_threshold", "The smallest growth per call the memory page calls growth: ``1 KiB``.")
def growth_threshold(context: Context) -> str:
    return format_bytes(NO_GROWTH_BYTES_PER_CALL)


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
