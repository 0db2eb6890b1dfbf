"""Directives of figures that move between CPU models: one row per CPU model measured, or the range
over them, for the pages that lead with a factor a reader's machine may not share."""

from __future__ import annotations

from tfspeedlab.core import wording
from tfspeedlab.core.results.cpu import instruction_sets
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.units import format_time
from tfspeedlab.costmodel import per_cpu
from tfspeedlab.render import markdown, shared_workloads
from tfspeedlab.render.context import Context, Runner
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.markdown import LEFT, RIGHT
from tfspeedlab.render.registry import directive
from tfspeedlab.render.runners import not_measured

RUN_NAMES = ("the guide's run", "a re-measure")


def _measured(found) -> str:
    """``2026-12-03 07:40``: when a file was measured, to the minute, in UTC."""
    return found.environment["utc_time"][:16].replace("T", " ")


# Keeps a piece of a table cell on one line (pages.css): an instruction set is never split at its
# hyphen ("AVX-" / "512"), so the cell breaks only between sets.
WHOLE_CLASS = "tfsl-whole"
# The instruction sets' cell: on a phone, where the table scrolls sideways anyway, pages.css gives it
# the width to stand on few lines, so that its rows stay short.
SETS_CLASS = "tfsl-sets"


def _whole(piece: str) -> str:
    return f'<span class="{WHOLE_CLASS}">{markdown.text(piece)}</span>'


def _sets_cell(environment) -> markdown.Markdown:
    """The instruction sets a file recorded, each kept whole, the cell breaking between them; AVX-512's
    extensions after it, by their own names: ``AVX2, AVX-512 (BF16, VNNI, FP16), AVX-VNNI, AMX``. Spelled
    out (``AVX512_BF16, AVX512_VNNI, …``), the Intel row's list stood seven lines tall beside a
    two-line name, even at 1280 px."""
    sets = instruction_sets(environment).split(", ")
    extensions = [one.removeprefix("AVX512_") for one in sets if one.startswith("AVX512_")]
    pieces = [_whole(one) + (f" ({', '.join(extensions)})" if one == "AVX-512" and extensions else "")
              for one in sets if not one.startswith("AVX512_")]
    return markdown.Markdown(f'<span class="{SETS_CLASS}">{", ".join(pieces)}</span>')


def _run_cell(run: str, found) -> markdown.Markdown:
    """``a re-measure, 2026-12-01 23:58``: which run, and when, its name and its date each kept whole
    (never "re-" / "measure" or "2026-12-" / "01")."""
    day, minute = _measured(found).split(" ")
    return markdown.Markdown(f"{_whole(run)}, {_whole(day)} {_whole(minute)}")


def _column(argument: str) -> tuple[str, str]:
    """``HEADER=CASE`` as (header, case); a bare case label heads its own column."""
    header, equals, case = argument.partition("=")
    return (header, case) if equals else (argument, argument)


@directive("by_cpu", "Runner tabs: BASE's and each CASE's time on every CPU model measured (the committed file "
                     "and the newest re-measure on each other model), and each CASE's speed-up over BASE, the "
                     "rows by the first speed-up (``HEADER=CASE`` or ``CASE``).")
def by_cpu(context: Context, example: str, base: str, *cases: str) -> str:
    (base_header, base_case), columns = _column(base), [_column(case) for case in cases]

    def body(runner: str) -> str:
        committed = context.results[runner].get(example)
        if committed is None:
            return not_measured(runner, markdown.code(example))
        rows = []
        for index, found in enumerate(shared_workloads.files_by_cpu(committed, context.sittings_of(example, runner))):
            speedups = [intervals.ratio(found.case(base_case), found.case(case)) for _, case in columns]
            rows.append((speedups[0].value if speedups else 0.0, [
                context.cpu_name(found.environment), *(wording.speedup_cell(speedup) for speedup in speedups),
                *(format_time(found.case(case).measurement.per_call_s) for case in (base_case, *dict(columns).values())),
                _sets_cell(found.environment), _run_cell(RUN_NAMES[index > 0], found)]))
        # The factor, the answer's figure, right after the CPU model: on a phone the first screen of
        # the table shows both. What tells the rows' CPUs and sittings apart comes last, the run and
        # its date in one column, so that the instruction sets get the room to stand on few lines.
        header = ["CPU model", *(f"{name} vs {base_header} [95%]" for name, _ in columns),
                  *(f"Time: {name}" for name in (base_header, *dict(columns))),
                  "Instruction sets", "Run, measured (UTC)"]
        body_rows = [row for _, row in sorted(rows, key=lambda item: item[0])]
        figures = len(header) - 3
        return markdown.table(header, body_rows, [LEFT] + [RIGHT] * figures + [LEFT] * 2) + "\n"

    return context.tabs(body)


@directive("call_costs_by_cpu", "Runner tabs: per CPU model, the fixed cost of a `tf.function` call, the cost of "
                                "one eager op and the op count where the two cost the same, from every example "
                                "that times a one-op call and a longer chain.")
def call_costs_by_cpu(context: Context) -> str:
    def body(runner: str) -> str:
        costs = per_cpu.all_call_costs(context.results[runner])
        if not costs:
            return not_measured(runner, "the fixed cost of a call")
        rows = [[context.cpu_name(found.results.environment), wording.number_with_interval(found.break_even),
                 wording.time_with_interval(found.graph_call), wording.time_with_interval(found.eager_per_op),
                 markdown.Markdown(f"[{markdown.text(per_cpu.fitted_from(found))}]"
                                   f"({context.relative(found.source.page)})"),
                 _sets_cell(found.results.environment), _measured(found.results)]
                for found in sorted(costs, key=lambda item: item.break_even.value)]
        # The break-even, the answer's figure, right after the CPU model (see ``by_cpu``).
        header = ["CPU model", "Break-even, ops per call [95%]",
                  markdown.join(markdown.code("tf.function"), " call, fixed cost [95%]"),
                  "One eager op [95%]", "Fitted from", "Instruction sets", "Measured (UTC)"]
        return markdown.table(header, rows, [LEFT, RIGHT, RIGHT, RIGHT, LEFT, LEFT, LEFT]) + "\n"

    return context.tabs(body)


@directive("break_even_across_cpus", "Where eager and `tf.function` calls of small ops cost the same, over every "
                                     "CPU model measured: ``5.0 to 11.7 ops per call on 3 CPU models``.")
def break_even_across_cpus(context: Context, *, runner: Runner = "cpu") -> str:
    return per_cpu.break_even_range(per_cpu.all_call_costs(context.results[runner]))


@directive("call_cost_across_cpus", "The fixed cost of a `tf.function` call over every CPU model measured: "
                                    "``152 µs to 262 µs on 3 CPU models``.")
def call_cost_across_cpus(context: Context, *, runner: Runner = "cpu") -> str:
    return per_cpu.call_cost_range(per_cpu.all_call_costs(context.results[runner]))


@directive("measured_summary", "One sentence for a page's first screen: the kind of machine behind every figure, "
                               "the TensorFlow and Keras measured, and how many CPU models, counting re-measures.")
def measured_summary(context: Context) -> str:
    files = list(context.results["cpu"].values())
    remeasured = [found for sitting in (context.remeasures.get("cpu") or {}).values() for found in sitting.values()
                  if found.environment.get("cpu_flags")]  # a file with no instruction sets names no model
    if not files:
        return "No CPU runner has measured anything in this build's results."
    versions = " and ".join(sorted({found.environment["tensorflow"] for found in files}))
    keras = " and ".join(sorted({found.environment.get("keras") or "no Keras" for found in files}))
    cores = sorted({found.environment["logical_cores"] for found in files + remeasured})
    machines = (f"{cores[0]}-core" if len(cores) == 1 else f"{cores[0]}- to {cores[-1]}-core") + " VMs"
    models = per_cpu.on_models(per_cpu.cpu_models(files + remeasured)).removeprefix("on ")
    release = f"TensorFlow {versions} with Keras {keras}"
    if context.history.get("cpu"):  # the release history measured older releases too
        release += " unless a page names another release"
    machines_run = f"The CPUs were {machines} of {models}, running {release}."
    if context.results.get("gpu"):
        return f"**Figures come from CPUs and GPUs, each table naming its machine.** {machines_run}"
    return f"**Every figure was measured on a CPU, none on a GPU.** {machines_run}"


@directive("across_cpus_span", "As ``across_cpus``, short enough for an answer box where the CPU models' verdicts "
                               "differ: the models grouped by verdict, each group in its verdict's words, ``1.71× "
                               "to 2.37× faster on 3 CPU models; inconclusive here on AMD EPYC 25/1``; "
                               "``across_cpus``' own phrase where they agree. ``widest=true``: where every model is "
                               "inconclusive, their farthest ends too, ``inconclusive on each of 4 CPU models, at "
                               "widest 1.40× slower to 1.28× faster``.")
def across_cpus_span(context: Context, example: str, slow: str, fast: str, *, widest: bool = False,
                     runner: Runner = "cpu") -> str:
    return wording.across_cpu_span(_across(context, example, slow, fast, runner), widest=widest)


@directive("across_cpus_verdict", "The verdict alone of ``across_cpus``, for an answer box that spends its figures "
                                  "elsewhere, where every CPU model's says the same difference: ``slower on all 4 CPU "
                                  "models``; ``across_cpus_span``'s phrase where they differ.")
def across_cpus_verdict(context: Context, example: str, slow: str, fast: str, *, runner: Runner = "cpu") -> str:
    return wording.across_cpu_verdict(_across(context, example, slow, fast, runner))


def _across(context: Context, example: str, slow: str, fast: str, runner: str):
    return shared_workloads.across_cpus(context.lookup(example, runner), context.sittings_of(example, runner),
                                        slow, fast, context.cpu_text)


@directive("cpu_name", "The CPU model an example was measured on, as the per-CPU tables name it: ``AMD EPYC 25/1``.")
def cpu_name(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    return context.cpu_text(context.lookup(example, runner).environment)


@directive("fixed_call_cost", "The fixed cost of a `tf.function` call as one example's line gives it (a row of "
                              "``call_costs_by_cpu``), with its interval: ``212 µs [210–215 µs]``.")
def fixed_call_cost(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    sources = {source.example: source for source in per_cpu.SOURCES}
    if example not in sources:
        raise DirectiveError(f"no call-cost line from {example!r}; from: {', '.join(sources)}")
    return wording.time_with_interval(per_cpu.call_costs(sources[example], context.lookup(example, runner)).graph_call)
