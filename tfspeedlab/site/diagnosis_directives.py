"""The directives of "Diagnose your own code": reports ``tfspeedlab diagnose --save`` committed to
``results/<runner>/diagnose/NAME.json``, rendered as the terminal printed them.

``{{ diagnosis NAME }}``
    Runner tabs: the report (its tables in a code block), its verdict, the pages that explain
    it, and the machine and software it was measured on.
``{{ diagnosis_speedup NAME MODE }}``
    One mode's speed-up over eager with its interval, as the guide writes it: ``11.8× [11.0–12.9×]``.
``{{ diagnosis_traces NAME }}``
    The retracing probe's extra traces for two new Python numbers: ``2``.
``{{ diagnosis_elapsed NAME }}``
    How long the diagnosis took: ``9.1 s``.

Inline figures read the ``cpu`` runner unless given ``runner=gpu``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tfspeedlab.analysis.diagnosis import Diagnosis, from_json
from tfspeedlab.analysis.diagnosis_report import VERDICT_LEAD, text_report
from tfspeedlab.analysis.summary import format_speedup
from tfspeedlab.results.schema import RUNNERS
from tfspeedlab.results.store import read_json
from tfspeedlab.site import markdown
from tfspeedlab.site.runners import machine_summary, not_measured, runner_tabs

DIAGNOSIS_DIR = "diagnose"
# A sample's file name becomes part of a page and names a path: nothing but these characters.
SAMPLE_NAME = re.compile(r"[a-z0-9_]{1,64}")


class Context(Protocol):
    """What these directives read of ``directives.Context`` (which imports this module)."""

    diagnoses: dict[str, dict[str, Sample]]

    def relative(self, uri: str) -> str: ...


@dataclass(frozen=True)
class Sample:
    diagnosis: Diagnosis
    environment: Mapping[str, Any]


class DiagnosisFileError(ValueError):
    """A committed diagnosis that cannot be read: the build stops, naming the file."""


def load_samples(results_root: Path, runner: str) -> dict[str, Sample]:
    """Every committed diagnosis of one runner, by sample name."""
    folder = Path(results_root) / runner / DIAGNOSIS_DIR
    found = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if not SAMPLE_NAME.fullmatch(path.stem):
            raise DiagnosisFileError(f"{path}: a sample's name is lower-case letters, digits and _ only")
        data = read_json(path)
        try:
            diagnosis = from_json(data)
        except ValueError as error:
            raise DiagnosisFileError(f"{path}: {error}") from None
        environment = data.get("environment")
        if not isinstance(environment, dict) or not {"cpu_model", "logical_cores", "gpus", "tensorflow",
                                                      "utc_time"} <= environment.keys():
            raise DiagnosisFileError(f"{path}: no environment record (save it with tfspeedlab diagnose --save)")
        found[path.stem] = Sample(diagnosis, environment)
    return found


def _lookup(context: Context, name: str, runner: str) -> Sample:
    if runner not in RUNNERS:
        raise DiagnosisFileError(f"runner must be one of {RUNNERS}, got {runner!r}")
    try:
        return context.diagnoses[runner][name]
    except KeyError:
        raise DiagnosisFileError(f"no diagnosis {name!r} on {runner}; measured: "
                                 f"{', '.join(sorted(context.diagnoses.get(runner, {}))) or 'none'}") from None


def _diagnosis(context: Context, name: str) -> str:
    def body(runner: str) -> str:
        sample = context.diagnoses.get(runner, {}).get(name)
        if sample is None:
            return not_measured(runner, f"this diagnosis ({markdown.code(name)})",
                                command=f"tfspeedlab diagnose … --save results/{runner}/{DIAGNOSIS_DIR}/{name}.json")
        return _report(context, sample)

    return runner_tabs(body)


def _report(context: Context, sample: Sample) -> str:
    diagnosis, environment = sample.diagnosis, sample.environment
    tables, verdict = text_report(diagnosis).rsplit("\n\n" + VERDICT_LEAD, 1)
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
    diagnosis = _lookup(context, name, runner).diagnosis
    if mode not in diagnosis.speedups:
        raise DiagnosisFileError(f"diagnosis {name!r} has no speed-up for {mode!r}; it has "
                                 f"{', '.join(diagnosis.speedups) or 'none'}")
    return format_speedup(diagnosis.speedups[mode])


def _traces(context: Context, name: str, *, runner: str = "cpu") -> str:
    probe = _lookup(context, name, runner).diagnosis.retracing
    if probe is None or probe.python_number_traces is None:
        raise DiagnosisFileError(f"diagnosis {name!r} did not probe Python numbers")
    return str(probe.python_number_traces)


def _elapsed(context: Context, name: str, *, runner: str = "cpu") -> str:
    diagnosis = _lookup(context, name, runner).diagnosis
    return f"{diagnosis.elapsed_s:.1f} s"


DIAGNOSIS_DIRECTIVES: dict[str, Callable[..., str]] = {
    "diagnosis": _diagnosis,
    "diagnosis_speedup": _speedup,
    "diagnosis_traces": _traces,
    "diagnosis_elapsed": _elapsed,
}
