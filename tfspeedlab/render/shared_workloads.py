"""Workloads that several pages time, each in its own run and some on another CPU model, set side by
side: a reader who meets the CNN's one-sample ``predict`` at three different times on three pages
sees here which machine and which day each came from, and that the ratios within each run are what
carries from one to the next."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tfspeedlab.core import wording
from tfspeedlab.core.results.cpu import cpu_description, cpu_name, same_cpu
from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.units import format_time
from tfspeedlab.render.markdown import LEFT, RIGHT, Markdown, join, table, text


@dataclass(frozen=True)
class Timing:
    """One case of one results file, and the page that shows the file."""

    page: str  # the page's source, relative to docs/ ("predict-loop.md")
    example: str
    case: str


@dataclass(frozen=True)
class SharedTime:
    """One workload's time on several pages; the first timing is the one the others are set against."""

    workload: str
    timings: tuple[Timing, ...]


@dataclass(frozen=True)
class SharedSpeedup:
    """One speed-up (the first case's time ÷ the second's) as several pages measure it."""

    workload: str
    pairs: tuple[tuple[Timing, Timing], ...]


PREDICT_PAGE, SMALL_OPS_PAGE, SETTINGS_PAGE = "predict-loop.md", "small-ops.md", "cpu-settings.md"
STEP_PAGE, TF1_PAGE = "training-step.md", "tf1-vs-tf2.md"

# How the tables name each page: short, as a reader calls it.
PAGE_TITLES = {PREDICT_PAGE: "predict in a loop", SMALL_OPS_PAGE: "many small ops", SETTINGS_PAGE: "CPU settings",
               STEP_PAGE: "a training step", TF1_PAGE: "TF1 vs TF2", "keras-backends.md": "Keras backends",
               "memory-startup.md": "memory and start-up", "profiling.md": "profiling a step",
               "frameworks.md": "other frameworks", "matmul.md": "one big op"}

SHARED_TIMES = (
    SharedTime("The CNN's `predict`, one sample a call", (
        Timing(PREDICT_PAGE, "predict_ladder", "CNN · predict · 1"),
        Timing("keras-backends.md", "keras_backends", "CNN · TensorFlow · jit off · predict · batch 1"),
        Timing("memory-startup.md", "memory", "tf.keras · predict · none"),
        Timing(SETTINGS_PAGE, "cpu_settings", "default · predict · batch 1"),
    )),
    SharedTime("The CNN through a `tf.function`, one sample a call", (
        Timing(PREDICT_PAGE, "predict_ladder", "CNN · tf.function · 1"),
        Timing("memory-startup.md", "memory", "tf.keras · tf.function · none"),
    )),
    SharedTime("150 small ops, eagerly", (
        Timing(SMALL_OPS_PAGE, "small_ops", "eager"),
        Timing(SETTINGS_PAGE, "cpu_settings", "default · small ops · eager"),
    )),
    SharedTime("150 small ops, one `tf.function`", (
        Timing(SMALL_OPS_PAGE, "small_ops", "graph"),
        Timing(SETTINGS_PAGE, "cpu_settings", "default · small ops · graph"),
    )),
    SharedTime("The training step, one `tf.function`", (
        Timing(STEP_PAGE, "train_step", "graph"),
        Timing("profiling.md", "step_profile", "graph"),
        Timing("frameworks.md", "frameworks", "TensorFlow graph · training step"),
        Timing(SETTINGS_PAGE, "cpu_settings", "default · training step"),
    )),
    SharedTime("A 512 × 512 matmul, one `tf.function`", (
        Timing("matmul.md", "matmul", "graph 512"),
        Timing(SETTINGS_PAGE, "cpu_settings", "default · matmul 512"),
    )),
    SharedTime("A 2048 × 2048 matmul, one `tf.function` (float32)", (
        Timing("matmul.md", "matmul", "graph 2048"),
        Timing(SETTINGS_PAGE, "cpu_settings", "default · matmul 2048"),
        Timing(SETTINGS_PAGE, "mixed_precision", "float32 · matmul 2048"),
    )),
    SharedTime("The small model's `train_on_batch` (Keras 3)", (
        Timing(TF1_PAGE, "tf1_vs_tf2", "small · Keras 3 train_on_batch"),
        Timing(SETTINGS_PAGE, "cpu_settings", "default · small model · train_on_batch"),
    )),
)

SHARED_SPEEDUPS = (
    SharedSpeedup("150 small ops: one `tf.function` against eager", (
        (Timing(SMALL_OPS_PAGE, "small_ops", "eager"), Timing(SMALL_OPS_PAGE, "small_ops", "graph")),
        (Timing(SETTINGS_PAGE, "cpu_settings", "default · small ops · eager"),
         Timing(SETTINGS_PAGE, "cpu_settings", "default · small ops · graph")),
    )),
    SharedSpeedup("The training step: `tf.function` against eager", (
        (Timing(STEP_PAGE, "train_step", "eager"), Timing(STEP_PAGE, "train_step", "graph")),
        (Timing("profiling.md", "step_profile", "eager"), Timing("profiling.md", "step_profile", "graph")),
        (Timing("frameworks.md", "frameworks", "TensorFlow eager · training step"),
         Timing("frameworks.md", "frameworks", "TensorFlow graph · training step")),
    )),
    SharedSpeedup("The CNN, one sample: a `tf.function` against `predict`", (
        (Timing(PREDICT_PAGE, "predict_ladder", "CNN · predict · 1"),
         Timing(PREDICT_PAGE, "predict_ladder", "CNN · tf.function · 1")),
        (Timing("memory-startup.md", "memory", "tf.keras · predict · none"),
         Timing("memory-startup.md", "memory", "tf.keras · tf.function · none")),
    )),
    SharedSpeedup("The CNN, one sample: `model(x)` against `predict`", (
        (Timing(PREDICT_PAGE, "predict_ladder", "CNN · predict · 1"),
         Timing(PREDICT_PAGE, "predict_ladder", "CNN · model(x) · 1")),
        (Timing("keras-backends.md", "keras_backends", "CNN · TensorFlow · jit off · predict · batch 1"),
         Timing("keras-backends.md", "keras_backends", "CNN · TensorFlow · jit off · model(x) · batch 1")),
    )),
)

# What the comparison column says of the first row on a CPU model: times on two CPU models are not
# readings of one quantity, however close, so it is set against none.
FIRST_ON_CPU = "first on its CPU model"


# How a table names a CPU model: ``cpu_name`` over the files the build reads (``Context.cpu_name``).
NameOf = Callable[[Mapping], str]


def short_cpu_and_date(results: ResultsFile, name_of: NameOf = cpu_name) -> str:
    """``AMD EPYC 25/1, 2026-12-03 08:08``: a table cell's CPU model and when the file was measured."""
    return f"{name_of(results.environment)}, {results.environment['utc_time'][:16].replace('T', ' ')}"


def cpu_legend(files: list[ResultsFile], name_of: NameOf = cpu_name) -> Markdown:
    """Under the tables: each CPU name spelled out as recorded, a row each (a list of seven CPU
    descriptions in one sentence read as a 96-word sentence)."""
    spelled = dict.fromkeys((name_of(found.environment), cpu_description(found.environment)) for found in files)
    return Markdown("CPU models, as the tables name them:\n\n"
                    + table(["In the tables", "As recorded"], [[text(short), text(full)] for short, full in spelled],
                            [LEFT, LEFT]))


def other_cpus(committed: ResultsFile, sittings) -> list[ResultsFile]:
    """Re-measures of ``committed``'s example on CPU models it was not measured on, the newest per
    model (``sittings`` oldest first): a coverage sitting taken on another CPU counts for no
    interval, but shows how far the same code moves from one CPU model to the next. One CPU model
    is one by ``same_cpu``'s rule; a file that recorded no instruction sets names no model and is
    left out."""
    kept: list[ResultsFile] = []
    for found in sittings:
        if not found.environment.get("cpu_flags") or same_cpu(found.environment, committed.environment):
            continue
        kept = [other for other in kept if not same_cpu(other.environment, found.environment)] + [found]
    return kept


def files_by_cpu(committed: ResultsFile, sittings) -> list[ResultsFile]:
    """The committed file and the newest re-measure on each other CPU model, the committed first."""
    return [committed, *other_cpus(committed, sittings)]


def times_table(results_of, page_link, time_of, sittings_of=lambda example: (), name_of: NameOf = cpu_name) -> Markdown:
    """One row per timing: the workload (on its first row), the page and its time, the CPU and date,
    and how it compares with the first row on the same CPU model, whose two intervals give a
    verdict; across CPU models nothing is compared. ``results_of(example)`` reads a file,
    ``page_link(page)`` links a page, ``time_of(timing)`` states a time (a page's claim, so that it
    reads as on its page), and ``sittings_of(example)`` gives its re-measures (oldest first): those
    on other CPU models follow their page's row; ``name_of`` names each CPU model."""
    body = []
    for shared in SHARED_TIMES:
        rows = []
        for timing in shared.timings:
            results = results_of(timing.example)
            rows.append((page_link(timing.page), time_of(timing), results, timing, PAGE_TITLES[timing.page]))
            for again in other_cpus(results, sittings_of(timing.example)):
                rows.append((join(page_link(timing.page), ", re-measured"),
                             format_time(again.case(timing.case).measurement.per_call_s), again, timing,
                             f"{PAGE_TITLES[timing.page]}, re-measured {again.environment['utc_time'][:16].replace('T', ' ')}"))
        for index, (page, time, results, timing, _) in enumerate(rows):
            body.append([Markdown(shared.workload) if index == 0 else "", page, time,
                         text(short_cpu_and_date(results, name_of)), text(_against_first_on_its_cpu(rows, index))])
    return table(["Workload", "Page", "Time per call", "CPU, measured (UTC)", "Against the first row on its CPU model"],
                 body, [LEFT, LEFT, RIGHT, LEFT, LEFT])


def _against_first_on_its_cpu(rows, index: int) -> str:
    """A row's time against the first row's measured on its CPU model (by ``same_cpu``'s rule), named
    by its page: ``against “predict in a loop”: 1.61× slower here [1.11–2.34×]``, a verdict from
    both intervals; or, for that first row itself, that it is the first."""
    _, _, results, timing, _ = rows[index]
    first = next(i for i, (_, _, other, _, _) in enumerate(rows) if same_cpu(other.environment, results.environment))
    if first == index:
        return FIRST_ON_CPU
    _, _, reference, reference_timing, reference_name = rows[first]
    return f"against “{reference_name}”: " + wording.format_change(intervals.ratio(results.case(timing.case),
                                                                              reference.case(reference_timing.case)))


def speedups_table(results_of, page_link, sittings_of=lambda example: (), name_of: NameOf = cpu_name) -> Markdown:
    """One row per page that measures a shared speed-up, and per re-measure of it on another CPU
    model: its factor with its 95% interval, and the CPU and date of its run."""
    body = []
    for shared in SHARED_SPEEDUPS:
        rows = []
        for slow, fast in shared.pairs:
            results = results_of(slow.example)
            rows.append((page_link(slow.page), results, results_of(fast.example), slow, fast))
            if slow.example == fast.example:  # a re-measure holds both sides only of its own example
                rows += [(join(page_link(slow.page), ", re-measured"), again, again, slow, fast)
                         for again in other_cpus(results, sittings_of(slow.example))]
        for index, (page, slow_file, fast_file, slow, fast) in enumerate(rows):
            found = intervals.ratio(slow_file.case(slow.case), fast_file.case(fast.case))
            body.append([Markdown(shared.workload) if index == 0 else "", page,
                         text(wording.speedup_cell(found)), text(short_cpu_and_date(slow_file, name_of))])
    return table(["Speed-up", "Page", "Factor [95% interval]", "CPU, measured (UTC)"], body,
                 [LEFT, LEFT, RIGHT, LEFT])


def across_cpus(committed: ResultsFile, sittings, slow: str, fast: str,
                name_of: NameOf = cpu_name) -> list[tuple[str, intervals.Ratio]]:
    """One speed-up (``slow``'s time ÷ ``fast``'s) on every CPU model measured, by the model's name:
    the committed file's and each other model's newest re-measure."""
    return [(name_of(found.environment), intervals.ratio(found.case(slow), found.case(fast)))
            for found in [committed, *other_cpus(committed, sittings)]]
