"""The runtime pages' figures and blocks: memory growth over repeated calls (``memory``), start-up
(``startup``) and CPU settings (``cpu_settings``, ``mixed_precision``), from the tables of
``site.memory_tables`` and ``site.settings_tables``."""

from __future__ import annotations

from tfspeedlab.analysis.wording import NO_GROWTH_BYTES_PER_CALL
from tfspeedlab.site import markdown, memory_tables, settings_tables, shared_workloads
from tfspeedlab.site.directives.context import Context, Runner
from tfspeedlab.site.directives.registry import directive
from tfspeedlab.units import format_bytes


@directive("growth", "One loop's resident-memory growth per call in words, with its interval and whether it levels "
                     "off: ``grows 12.3 KiB per call [10.1–14.5 KiB] and keeps growing``.")
def growth(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    return memory_tables.growth_phrase(context.lookup(example, runner).case(case))


@directive("late_growth", "One loop's resident-memory growth per call over its second half, in words with its "
                          "interval, the rate a longer loop goes on paying: ``grows 18.2 KiB per call [11.4–25.0 KiB]``.")
def late_growth(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    return memory_tables.late_growth_phrase(context.lookup(example, runner).case(case))


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


@directive("settings_summary", "Per workload of a grid: the baseline row's time, and the other rows grouped as clearly "
                               "slower, faster, or the same or inconclusive against it, each with its factor.")
def settings_summary(context: Context, example: str) -> str:
    return context.example_tabs(example, settings_tables.settings_summary)


@directive("precision_check", "Per workload and precision policy: the time, and the loss after the same training "
                              "steps (or a matmul's difference from float32's).")
def precision_check(context: Context, example: str) -> str:
    return context.example_tabs(example, settings_tables.precision_check)


@directive("environment_cpu", "The CPU an example was measured on, by the name every table gives it, with the "
                              "instruction sets its kernels depend on: ``AMD EPYC 25/1 with AVX2``.")
def environment_cpu(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    return markdown.text(context.cpu_name.with_sets(context.lookup(example, runner).environment))


@directive("environment_when", "The CPU an example was measured on and when (UTC): ``AMD EPYC 25/1 with AVX2, "
                               "2026-12-03 17:34``, for an absolute time stated away from its table.")
def environment_when(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    return markdown.text(shared_workloads.cpu_and_date(context.lookup(example, runner), context.cpu_name.with_sets))


@directive("onednn_default", "Whether TensorFlow ran its oneDNN operations by default where a grid was measured, as "
                             "each baseline process recorded TensorFlow's decision: ``on``, ``off`` or ``not recorded``.")
def onednn_default(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    return settings_tables.onednn_default(context.lookup(example, runner))
