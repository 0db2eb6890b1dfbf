"""The memory and start-up page's figures and tables: memory growth over repeated calls, imports,
the first prediction of a fresh process, saving and loading."""

from __future__ import annotations

from tfspeedlab.core.stats import memory_growth
from tfspeedlab.core.units import format_bytes
from tfspeedlab.core.wording import NO_GROWTH_BYTES_PER_CALL
from tfspeedlab.memory import tables as memory_tables
from tfspeedlab.render.context import Context, Runner, table_directive
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


@directive("malloc_remedies", "Whether any malloc setting stopped one loop of the allocators example from growing, "
                            "in a sentence: ``No malloc setting stopped the `new model` loop's growth over 200 "
                            "calls: under `jemalloc`, … alike, its second half still grew.``; with brief=true, "
                            "``Neither `jemalloc`, … nor `malloc_trim(0)` stopped it.``")
def malloc_remedies(context: Context, example: str, call: str, *, brief: bool = False, runner: Runner = "cpu") -> str:
    return memory_tables.remedies_sentence(context.lookup(example, runner), call, brief)


@directive("import_contributors", "What ``python -X importtime`` gave each package and module of one import case.")
def import_contributors(context: Context, example: str, case: str) -> str:
    return context.example_tabs(example, lambda found: memory_tables.contributors_table(found, case))


# One table of an example each, in runner tabs.
for _name, _table, _summary in (
    ("growth_table", memory_tables.growth_table, "Per Keras, call and remedy: resident memory's growth per call over "
     "the followed loop and its second half, the Python heap's, the time per call."),
    ("allocator_table", memory_tables.allocator_table, "Per loop and malloc setting (glibc, jemalloc, tcmalloc, "
     "MALLOC_ARENA_MAX, malloc_trim): resident memory's growth per call over the followed loop and its second "
     "half, glibc's arenas after it, the time per call; the settings that could not run, and why."),
    ("imports", memory_tables.imports_table, "Each import as a fresh process, start to exit, against "
     "``import tensorflow``."),
    ("first_prediction", memory_tables.first_prediction_table, "Per model and format: a fresh process from start to "
     "its first prediction, against ``.keras``, and one cold start split into import, load and first call."),
    ("save_load", memory_tables.save_load_table, "Per model and format: building, saving and loading, call after call "
     "in one process, with the process's first call apart."),
):
    table_directive(_name, _summary, _table, __name__)
