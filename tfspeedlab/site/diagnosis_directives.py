"""The directives of "Diagnose your own code": reports ``tfspeedlab diagnose --save`` committed to
``results/<runner>/diagnose/NAME.json``, rendered as the terminal printed them.

``{{ diagnosis NAME }}``
    Runner tabs: the report (its tables in a code block), its verdict, the pages that explain
    it, and the machine and software it was measured on.
``{{ diagnosis_speedup NAME MODE }}``
    One mode's speed-up over eager with its interval, as the guide writes it: ``11.8× [11.0–12.9×]``.
``{{ diagnosis_traces NAME }}``
    The retracing probe's extra traces for two new Python numbers: ``2``.
``{{ diagnosis_retrace NAME }}``
    How long a call that retraced for a new Python number took in the probe: ``35.2 ms``.
``{{ diagnosis_guide_metric EXAMPLE CASE METRIC }}``
    A measured quantity (a tracing count) of the full run beside the samples, same sitting.
``{{ diagnosis_agreement NAME EXAMPLE EAGER GRAPH XLA }}``
    Runner tabs: the diagnosis's verdict on tf.function and on XLA beside the same verdict drawn
    from the guide's full run of EXAMPLE (cases EAGER, GRAPH, XLA) measured in the same sitting
    (``diagnose/guide/EXAMPLE.json``), and from the guide's pages' own run. Where the diagnosis and
    the same-machine run disagree the build stops: the sample no longer shows what it claims.

Inline figures read the ``cpu`` runner unless given ``runner=gpu``. A build from a results tree
with no diagnoses for the runner (a quick run's tree) shows the not-measured note, and inline
figures read "not measured in this build's results"; a sample named wrongly in a tree that has
diagnoses still stops the build.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tfspeedlab.analysis import intervals
from tfspeedlab.analysis.diagnosis import MATERIAL_SPEEDUP, agrees, material
from tfspeedlab.analysis.diagnosis_files import (DIAGNOSIS_DIR, DiagnosisFileError, SavedDiagnosis, load,
                                                 sample_files)
from tfspeedlab.analysis.diagnosis_report import split_verdict, text_report
from tfspeedlab.analysis.summary import format_speedup
from tfspeedlab.results.schema import RUNNERS, ResultsFile
from tfspeedlab.results.store import load_runner
from tfspeedlab.site import markdown
from tfspeedlab.site.runners import machine_summary, not_measured, runner_tabs
from tfspeedlab.units import format_time

# The guide's full runs measured in the same sitting as the samples, beside them.
GUIDE_DIR = "guide"


class Context(Protocol):
    """What these directives read of ``directives.Context`` (which imports this module)."""

    diagnoses: dict[str, Samples]
    results: dict[str, dict[str, ResultsFile]]

    def relative(self, uri: str) -> str: ...


@dataclass(frozen=True)
class Samples:
    """One runner's committed diagnoses, and the full runs measured beside them."""

    reports: dict[str, SavedDiagnosis]
    guide: dict[str, ResultsFile]


def load_samples(results_root: Path, runner: str) -> Samples:
    """Every committed diagnosis of one runner, by sample name, and the full runs beside them."""
    guide = Path(results_root) / runner / DIAGNOSIS_DIR / GUIDE_DIR
    return Samples({path.stem: load(path) for path in sample_files(results_root, runner)},
                   load_runner(guide, runner) if guide.is_dir() else {})


NOT_IN_BUILD = "*not measured in this build's results*"


def _lookup(context: Context, name: str, runner: str) -> SavedDiagnosis | None:
    """The sample, or None when this build's results hold no diagnoses for the runner at all."""
    if runner not in RUNNERS:
        raise DiagnosisFileError(f"runner must be one of {RUNNERS}, got {runner!r}")
    reports = _reports(context, runner)
    if not reports:
        return None
    if name not in reports:
        raise DiagnosisFileError(f"no diagnosis {name!r} on {runner}; measured: {', '.join(sorted(reports)) or 'none'}")
    return reports[name]


def _reports(context: Context, runner: str) -> dict[str, SavedDiagnosis]:
    samples = context.diagnoses.get(runner)
    return samples.reports if samples else {}


def _diagnosis(context: Context, name: str) -> str:
    def body(runner: str) -> str:
        sample = _reports(context, runner).get(name)
        if sample is None:
            return not_measured(runner, f"this diagnosis ({markdown.code(name)})",
                                command=f"bash scripts/diagnose-samples.sh --runner {runner}")
        return _report(context, sample)

    return runner_tabs(body)


def _report(context: Context, sample: SavedDiagnosis) -> str:
    diagnosis, environment = sample.diagnosis, sample.environment
    tables, verdict = split_verdict(text_report(diagnosis))
    # A fence longer than any run of backticks in the text, which names the reader's files.
    fence = "`" * max(3, max((len(run) + 1 for run in re.findall(r"`+", tables)), default=0))
    links = ", ".join(f"[{markdown.text(title)}]({context.relative(page)})" for page, title in diagnosis.links)
    measured = markdown.text(f"{machine_summary(environment)}; TensorFlow {environment['tensorflow']}, "
                             f"{environment['utc_time'][:10]}")
    return (f"{fence}text\n{tables}\n{fence}\n\n"
            f'!!! abstract "Verdict"\n\n    {markdown.text(verdict)}\n\n'
            + (f"    Read more: {links}.\n\n" if links else "")
            + f"<small>Measured on {measured}.</small>\n")


def _speedup(context: Context, name: str, mode: str, *, runner: str = "cpu") -> str:
    if (sample := _lookup(context, name, runner)) is None:
        return NOT_IN_BUILD
    diagnosis = sample.diagnosis
    if mode not in diagnosis.speedups:
        raise DiagnosisFileError(f"diagnosis {name!r} has no speed-up for {mode!r}; it has "
                                 f"{', '.join(diagnosis.speedups) or 'none'}")
    return format_speedup(diagnosis.speedups[mode])


def _traces(context: Context, name: str, *, runner: str = "cpu") -> str:
    return _probe_figure(context, name, runner, "python_number_traces", str)


def _retrace(context: Context, name: str, *, runner: str = "cpu") -> str:
    return _probe_figure(context, name, runner, "retrace_s", format_time)


def _probe_figure(context: Context, name: str, runner: str, figure: str, shown: Callable[..., str]) -> str:
    """One figure of a sample's retracing probe (``RetraceProbe``), as the page shows it."""
    if (sample := _lookup(context, name, runner)) is None:
        return NOT_IN_BUILD
    probe = sample.diagnosis.retracing
    if probe is None or getattr(probe, figure) is None:
        raise DiagnosisFileError(f"diagnosis {name!r} has no {figure} (its probe took no Python number)")
    return shown(getattr(probe, figure))


def _agreement(context: Context, name: str, example: str, eager: str, graph: str, xla: str) -> str:
    def body(runner: str) -> str:
        sample = _reports(context, runner).get(name)
        guide = context.diagnoses[runner].guide.get(example) if runner in context.diagnoses else None
        if sample is None or guide is None:
            return not_measured(runner, f"this diagnosis and its full run ({markdown.code(example)})",
                                command="bash scripts/diagnose-samples.sh --runner " + runner)
        pages = context.results.get(runner, {}).get(example)
        rows = []
        for mode, case in (("tf.function", graph), ("XLA", xla)):
            diagnosed = sample.diagnosis.speedups.get(mode)
            same_machine = intervals.speedup(guide, eager, case)
            if diagnosed is not None and not agrees(diagnosed, same_machine):
                raise DiagnosisFileError(
                    f"diagnosis {name!r} reads {mode} against eager as {material(diagnosed)!r} "
                    f"({format_speedup(diagnosed)}), the full run beside it as "
                    f"{intervals.verdict(same_machine)!r} ({format_speedup(same_machine)}): "
                    "re-measure both with scripts/diagnose-samples.sh")
            row = [mode, _worded(material(diagnosed), diagnosed) if diagnosed else "could not run",
                   _worded(intervals.verdict(same_machine), same_machine)]
            if pages is not None:
                found = intervals.speedup(pages, eager, case)
                row.append(_worded(intervals.verdict(found), found))
            rows.append(row)
        header = ["Against eager", "tfspeedlab diagnose", "Full run, same machine"]
        if pages is not None:
            header.append(f"The guide's pages ({machine_summary(pages.environment)})")
        machine = machine_summary(guide.environment)
        return (markdown.table(header, rows, align=[markdown.LEFT] * len(header))
                + f"\n\n<small>Same machine: {markdown.text(machine)}. The diagnosis says faster or slower only "
                f"when its whole 95% interval lies past {MATERIAL_SPEEDUP:.2f}× that way; the full runs, as on every "
                "page of the guide, when it lies on one side of 1.</small>\n")

    return runner_tabs(body)


def _worded(word: str, found: intervals.Ratio) -> str:
    return markdown.text(f"{word} ({format_speedup(found)})")


def _guide_metric(context: Context, example: str, case: str, metric: str, *, runner: str = "cpu") -> str:
    samples = context.diagnoses.get(runner)
    if samples is None or not samples.guide:
        return NOT_IN_BUILD
    if example not in samples.guide:
        raise DiagnosisFileError(f"no full run of {example!r} beside the diagnoses; there are {sorted(samples.guide)}")
    metrics = samples.guide[example].case(case).metrics
    if metric not in metrics:
        raise DiagnosisFileError(f"{example} · {case!r} has no metric {metric!r}; it has {sorted(metrics)}")
    return f"{metrics[metric]:g}"


DIAGNOSIS_DIRECTIVES: dict[str, Callable[..., str]] = {
    "diagnosis_retrace": _retrace,
    "diagnosis_guide_metric": _guide_metric,
    "diagnosis_agreement": _agreement,
    "diagnosis": _diagnosis,
    "diagnosis_speedup": _speedup,
    "diagnosis_traces": _traces,
}
