"""The sample reports of "Diagnose your own code": ``tfspeedlab diagnose --save`` reports committed under
``results/<runner>/diagnose/``, rendered as the terminal printed them, and set against the guide's full
runs of the same example.

Inline figures read the ``cpu`` runner unless given ``runner=gpu``. A build from a results tree
with no diagnoses for the runner (a quick run's tree) shows the not-measured note, and inline
figures read "not measured in this build's results"; a sample named wrongly in a tree that has
diagnoses still stops the build.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from tfspeedlab.core.results.schema import RUNNERS
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.materiality import MATERIAL_SPEEDUP, agrees
from tfspeedlab.core.units import format_ratio, format_time
from tfspeedlab.core.wording import Mode, format_speedup
from tfspeedlab.diagnosis.report import code_fence, function_report
from tfspeedlab.diagnosis.saved import SavedDiagnosis
from tfspeedlab.render import markdown
from tfspeedlab.render.context import Context, Runner
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import directive
from tfspeedlab.render.runners import not_measured

NOT_IN_BUILD = "*not measured in this build's results*"


def _lookup(context: Context, name: str, runner: str) -> SavedDiagnosis | None:
    """The sample, or None when this build's results hold no diagnoses for the runner at all."""
    if runner not in RUNNERS:
        raise DirectiveError(f"runner must be one of {RUNNERS}, got {runner!r}")
    reports = _reports(context, runner)
    if not reports:
        return None
    if name not in reports:
        raise DirectiveError(f"no diagnosis {name!r} on {runner}; measured: {', '.join(sorted(reports)) or 'none'}")
    return reports[name]


def _reports(context: Context, runner: str) -> dict[str, SavedDiagnosis]:
    samples = context.diagnoses.get(runner)
    return samples.reports if samples else {}


@directive("diagnosis", "Runner tabs: a committed report as the terminal printed it (its tables in a code block, "
                       "its verdict in a box) and where it was measured.")
def _diagnosis(context: Context, name: str) -> str:
    def body(runner: str) -> str:
        sample = _reports(context, runner).get(name)
        if sample is None:
            return not_measured(runner, f"this diagnosis ({markdown.code(name)})",
                                command=f"bash scripts/diagnose-samples.sh --runner {runner}")
        return _report(context, sample)

    return context.tabs(body)


# The verdict's lines in its box: narrower than the report's tables, so that a phone shows most of a line.
VERDICT_WIDTH = 64


def _report(context: Context, sample: SavedDiagnosis) -> str:
    report, environment = function_report(sample.diagnosis), sample.environment
    verdict_text = textwrap.fill(report.verdict, VERDICT_WIDTH, break_on_hyphens=False)
    # One fence for both blocks, longer than any run of backticks in them (they name the reader's files).
    fence = code_fence(report.body + verdict_text)
    boxed = textwrap.indent(f"{fence}text\n{verdict_text}\n{fence}", "    ")
    measured = markdown.text(f"{machine_brief(context, environment)}, TensorFlow {environment['tensorflow']}, "
                             f"{environment['utc_time'][:10]}")
    return (f"{fence}text\n{report.body}\n{fence}\n\n"
            f'!!! abstract "Verdict"\n\n{boxed}\n\n'
            f"<small>Measured on {measured}.</small>\n")


def machine_brief(context: Context, environment) -> str:
    """``AMD EPYC 25/17 with AVX2, AVX-512, 2 logical cores``: the machine in a line, its CPU by the
    name every table gives it."""
    return f"{context.cpu_name.with_sets(environment)}, {environment['logical_cores']} logical cores"


@directive("diagnosis_speedup", "One mode's speed-up over eager in a committed report, with its interval: ``11.8× [11.0–12.9×]``.")
def _speedup(context: Context, name: str, mode: Mode, *, runner: Runner = "cpu") -> str:
    if (sample := _lookup(context, name, runner)) is None:
        return NOT_IN_BUILD
    diagnosis = sample.diagnosis
    if mode.label not in diagnosis.speedups:
        raise DirectiveError(f"diagnosis {name!r} has no speed-up for {mode.label!r}; it has "
                                 f"{', '.join(diagnosis.speedups) or 'none'}")
    return format_speedup(diagnosis.speedups[mode.label])


@directive("diagnosis_traces", "The retracing probe's extra traces for two new Python numbers: ``2``.")
def _traces(context: Context, name: str, *, runner: Runner = "cpu") -> str:
    return _probe_figure(context, name, runner, "python_number_traces", str)


@directive("diagnosis_retrace", "How long a call that retraced for a new Python number took in the probe: ``35.2 ms``.")
def _retrace(context: Context, name: str, *, runner: Runner = "cpu") -> str:
    return _probe_figure(context, name, runner, "retrace_s", format_time)


def _probe_figure(context: Context, name: str, runner: str, figure: str, shown: Callable[..., str]) -> str:
    """One figure of a sample's retracing probe (``RetraceProbe``), as the page shows it."""
    if (sample := _lookup(context, name, runner)) is None:
        return NOT_IN_BUILD
    probe = sample.diagnosis.retracing
    if probe is None or getattr(probe, figure) is None:
        raise DirectiveError(f"diagnosis {name!r} has no {figure} (its probe took no Python number)")
    return shown(getattr(probe, figure))


@directive("diagnosis_agreement", "Runner tabs: a report's verdicts on tf.function and XLA beside those of the guide's full run of EXAMPLE on the same machine and of the pages' own run; the build stops where the report and its same-machine run disagree.")
def _agreement(context: Context, name: str, example: str, eager: str, graph: str, xla: str) -> str:
    def body(runner: str) -> str:
        sample = _reports(context, runner).get(name)
        guide = context.diagnoses[runner].guide.get(example) if runner in context.diagnoses else None
        if sample is None or guide is None:
            return not_measured(runner, f"this diagnosis and its full run ({markdown.code(example)})",
                                command="bash scripts/diagnose-samples.sh --runner " + runner)
        pages = context.results.get(runner, {}).get(example)
        rows = []
        for mode, case in ((Mode.GRAPH.label, graph), (Mode.XLA.label, xla)):
            diagnosed = sample.diagnosis.speedups.get(mode)
            same_machine = intervals.speedup(guide, eager, case)
            if diagnosed is not None and not agrees(diagnosed, same_machine):
                raise DirectiveError(
                    f"diagnosis {name!r} reads {mode} against eager as {format_speedup(diagnosed)} "
                    f"(acted on past {MATERIAL_SPEEDUP:.2f}×), the full run beside it as "
                    f"{format_speedup(same_machine)}: "
                    "re-measure both with scripts/diagnose-samples.sh")
            row = [mode, markdown.text(format_speedup(diagnosed)) if diagnosed else "could not run",
                   markdown.text(format_speedup(same_machine))]
            if pages is not None:
                found = intervals.speedup(pages, eager, case)
                row.append(markdown.text(format_speedup(found)))
            rows.append(row)
        header = ["Against eager", "tfspeedlab diagnose", "Full run, same machine"]
        # The pages' machine goes under the table: in a header it made a column ten lines tall on a phone.
        pages_machine = ""
        if pages is not None:
            header.append("The guide's pages")
            pages_machine = f" The guide's pages: {markdown.text(machine_brief(context, pages.environment))}."
        machine = machine_brief(context, guide.environment)
        return (markdown.table(header, rows, align=[markdown.LEFT] * len(header))
                + f"\n\n<small>Same machine: {markdown.text(machine)}.{pages_machine}</small>\n")

    return context.tabs(body)


@directive("diagnosis_threshold", "How far past 1× a speed-up's whole interval must lie for ``tfspeedlab diagnose`` to "
                                 "act on a mode: ``1.10×``.")
def _threshold(context: Context) -> str:
    return format_ratio(MATERIAL_SPEEDUP)


@directive("diagnosis_guide_metric", "A measured quantity (a tracing count) of the full run beside the samples, same sitting.")
def _guide_metric(context: Context, example: str, case: str, metric: str, *, runner: Runner = "cpu") -> str:
    samples = context.diagnoses.get(runner)
    if samples is None or not samples.guide:
        return NOT_IN_BUILD
    if example not in samples.guide:
        raise DirectiveError(f"no full run of {example!r} beside the diagnoses; there are {sorted(samples.guide)}")
    metrics = samples.guide[example].case(case).metrics
    if metric not in metrics:
        raise DirectiveError(f"{example} · {case!r} has no metric {metric!r}; it has {sorted(metrics)}")
    return f"{metrics[metric]:g}"
