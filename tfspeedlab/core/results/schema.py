"""The results file format: what ``results/<runner>/<example>.json`` holds, and its validation."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.checks import (CALLS, COUNT, NAME, PROSE, SECONDS, Range, TextRule,
                                            TextRules, document_problems)
from tfspeedlab.core.results.metrics import Metrics
from tfspeedlab.core.results.timing import Timing
from tfspeedlab.core.spec.layout import (Cases, Grid, Layout, LayoutError, coordinate_names, from_record,
                                         parameters_read, shared_coordinate, to_record)
from tfspeedlab.core.spec.names import example_name_problem

SCHEMA = "tfspeedlab.results"
# 2: the page layout is a typed record ("layout"), no longer keys among the params.
# 3: each case keeps its runs, one per process, each with its own samples and first call.
SCHEMA_VERSION = 3
FAILURE_SCHEMA = "tfspeedlab.failure"
FAILURE_SUFFIX = ".failed.json"
RUNNERS = ("cpu", "gpu")
# Fields every environment record must carry; more may be present.
ENVIRONMENT_FIELDS: dict[str, tuple[type, ...]] = {
    "python": (str,),
    "tensorflow": (str,),
    "keras": (str, type(None)),
    "numpy": (str,),
    "os": (str,),
    "cpu_model": (str,),
    "logical_cores": (int,),
    "intra_op_threads": (int,),
    "inter_op_threads": (int,),
    "gpus": (list,),
    "cuda_build": (str, type(None)),
    "cudnn_build": (str, type(None)),
    "git_commit": (str, type(None)),
    "utc_time": (str,),
}
# Fields an environment record may carry (files from before they were recorded lack them), checked
# where present: a page formats them.
OPTIONAL_ENVIRONMENT_FIELDS: dict[str, tuple[type, ...]] = {
    "load_average_start": (int, float, type(None)),
    "load_average_end": (int, float, type(None)),
    "cpu_governor": (str, type(None)),
    "memory_bytes": (int, type(None)),
}


# Caps on what a results file may hold, far above any real run (the largest
# committed file is about 100 kB, 30 cases, 6 runs of at most 200 blocks): a
# hostile or runaway file is refused in a moment instead of stalling the build.
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_CASES = 1000
MAX_RUNS = 100  # processes per case
MAX_SAMPLES = 10_000  # blocks per run
# The strings of a results file longer than a name (``checks.NAME``, which a case's reason for not
# running is too): sentences a program wrote. None may hold a line break (a page shows each in a
# line, a table cell or a code span).
RESULTS_TEXT: TextRules = {
    ("diagnosis", "verdict"): PROSE,
    ("diagnosis", "skipped", "*"): PROSE,
    ("diagnosis", "retracing", "fixes", "*"): PROSE,
}


class NotInResults(KeyError):
    """A figure asked of results that do not hold it: a case, a row, a metric, an entry, a layout.
    Its message says what is missing and, where it can, what is there."""


class MissingCaseError(NotInResults):
    """A case a page asks for is not in the results file. A quick run may leave out what a full
    run measures (a model, a batch size): ``quick`` says whether this file is one."""

    def __init__(self, message: str, quick: bool) -> None:
        super().__init__(message)
        self.quick = quick


# The "field" of a problem with the file as a whole (not JSON, a symbolic link, too large).
WHOLE_FILE = "<file>"


class ResultsFileError(ValueError):
    """A results file that cannot be used; names the file and the offending field (``WHOLE_FILE``
    for the file as a whole, which the message then words plainly: ``a.json: not JSON (line 3, column 5)``)."""

    def __init__(self, path: Path | str, field_name: str, problem: str) -> None:
        self.path = Path(path)
        self.field = field_name
        super().__init__(f"{path}: {problem}" if field_name == WHOLE_FILE else f"{path}: field '{field_name}' {problem}")


@dataclass(frozen=True)
class CaseResult:
    """One case: its runs, one per fresh process it was timed in, and its other measured quantities."""

    label: str
    params: Mapping[str, Any]
    runs: tuple[Measurement, ...]
    # Measured quantities other than time: tracing counts, loss change, memory (the last process's).
    metrics: Metrics = field(default_factory=Metrics)
    # Each process's metrics, in the order of ``runs``, where the case was measured in several and
    # measured any: a quantity that moves from process to process (memory growth) gets its
    # interval from them. Empty where there is one process (``metrics`` is its), or none.
    run_metrics: tuple[Metrics, ...] = ()
    # How far this example's speed-ups move between sittings on its machine, as (SD of the log
    # speed-up, the sittings it was estimated from, its degrees of freedom): set by a site build from re-measure sittings
    # (tfspeedlab.fairness.drift), never stored in the file; None: one sitting's intervals.
    drift: tuple[float, int] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.runs, Measurement):  # one run, given as it is
            object.__setattr__(self, "runs", (self.runs,))
        # Metrics given as any mapping (an example returns a dict) are read through their fields.
        object.__setattr__(self, "metrics", Metrics(self.metrics))
        object.__setattr__(self, "run_metrics", tuple(Metrics(metrics) for metrics in self.run_metrics))
        if not self.runs:
            raise ValueError(f"case {self.label!r} has no runs")
        if self.run_metrics and len(self.run_metrics) != len(self.runs):
            raise ValueError(f"case {self.label!r} has metrics of {len(self.run_metrics)} processes "
                             f"and {len(self.runs)} runs")

    @property
    def metrics_by_process(self) -> tuple[Metrics, ...]:
        """Each process's metrics: ``run_metrics``, or the one set of ``metrics`` there is."""
        return self.run_metrics or ((self.metrics,) if self.metrics else ())

    @property
    def measurement(self) -> Timing:
        """The runs together: typical time and spreads (see ``Timing``)."""
        return Timing(tuple(self.runs))


@dataclass(frozen=True)
class ResultsFile:
    example: str
    title: str
    runner: str
    quick: bool
    params: Mapping[str, Any]
    environment: Mapping[str, Any]
    cases: tuple[CaseResult, ...]
    baseline: str | None = None
    layout: Layout = field(default_factory=Cases)
    source: Path | None = field(default=None, compare=False)
    # Cases that could not run where this file was measured, each with its reason (one line).
    unavailable: Mapping[str, str] = field(default_factory=dict)
    # What a saved diagnosis (``tfspeedlab diagnose --save``) found that is not a case: its budget,
    # probe, placement, memory. Its fields are the diagnosis package's to read; None in a run's file.
    diagnosis: Mapping[str, Any] | None = None

    def case(self, label: str) -> CaseResult:
        for case in self.cases:
            if case.label == label:
                return case
        where = f" in {self.source}" if self.source else ""
        raise MissingCaseError(f"no case {label!r}{where}; cases are {[c.label for c in self.cases]}", self.quick)


def to_dict(results: ResultsFile) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "example": results.example,
        "title": results.title,
        "runner": results.runner,
        "quick": results.quick,
        "baseline": results.baseline,
        "layout": to_record(results.layout),
        "params": dict(results.params),
        "environment": dict(results.environment),
        "cases": [_case_to_dict(case) for case in results.cases],
        # Written only where a case could not run, so that other files read as they always did.
        **({"unavailable": dict(results.unavailable)} if results.unavailable else {}),
        **({"diagnosis": dict(results.diagnosis)} if results.diagnosis is not None else {}),
    }


def _case_to_dict(case: CaseResult) -> dict[str, Any]:
    return {
        "label": case.label,
        "params": dict(case.params),
        "metrics": dict(case.metrics),
        # Written only where several processes measured metrics, so that other files read as they always did.
        **({"run_metrics": [dict(metrics) for metrics in case.run_metrics]} if case.run_metrics else {}),
        "runs": [run_to_dict(run) for run in case.runs],
    }


def run_to_dict(m: Measurement) -> dict[str, Any]:
    return {
        # Statistics are stored for people reading the file; loading recomputes
        # them from the samples and refuses a file where they disagree.
        "median_s": m.median_s,
        "iqr_s": m.iqr_s,
        "min_s": m.min_s,
        "mean_s": m.mean_s,
        "noisy": m.noisy,
        "blocks": m.blocks,
        "calls_per_block": m.calls_per_block,
        "first_call_s": m.first_call_s,
        "tracing_count": m.tracing_count,
        "completion": m.completion,
        "samples_s": list(m.samples_s),
    }


def from_dict(data: Any, path: Path | str) -> ResultsFile:
    reader = FieldReader(path)
    reader.require(isinstance(data, dict), "<top level>", "must be a JSON object")
    # Every string and number once, before any is used or quoted in a refusal (core.results.checks).
    reader.check_document(data, RESULTS_TEXT)
    reader.require(data.get("schema") == SCHEMA, "schema", f"must be {SCHEMA!r}, found {data.get('schema')!r}")
    version = data.get("schema_version")
    reader.require(version == SCHEMA_VERSION, "schema_version",
                   f"is {version!r}, but this tfspeedlab reads version {SCHEMA_VERSION}; "
                   "re-run the example with `tfspeedlab run` to rewrite it")
    runner = reader.get(data, "runner", str)
    reader.require(runner in RUNNERS, "runner", f"must be one of {RUNNERS}, found {runner!r}")
    example = reader.get(data, "example", str)
    problem = example_name_problem(example)
    reader.require(problem is None, "example", str(problem))
    environment = reader.get(data, "environment", dict)
    for name, types in ENVIRONMENT_FIELDS.items():
        reader.get(environment, name, types, prefix="environment.")
    for name, types in OPTIONAL_ENVIRONMENT_FIELDS.items():
        if name in environment:
            reader.get(environment, name, types, prefix="environment.")
    reader.require(all(isinstance(gpu, dict) for gpu in environment["gpus"]), "environment.gpus",
                   "must be a list of JSON objects, one per GPU")
    for name in ("logical_cores", "intra_op_threads", "inter_op_threads"):
        reader.check_number(environment[name], "environment." + name, COUNT)
    raw_cases = reader.get(data, "cases", list)
    # A process whose every case could not run says why.
    reader.require(bool(raw_cases or data.get("unavailable")), "cases", "is empty")
    reader.require(len(raw_cases) <= MAX_CASES, "cases", f"holds {len(raw_cases)} cases; at most {MAX_CASES} are read")
    cases = tuple(_case_from_dict(reader, raw, f"cases[{i}].") for i, raw in enumerate(raw_cases))
    baseline = reader.get(data, "baseline", (str, type(None)))
    labels = [case.label for case in cases]
    reader.require(baseline is None or baseline in labels, "baseline",
                   f"names {baseline!r}, which is not a case label {labels}")
    try:
        layout = from_record(reader.get(data, "layout", dict))
    except LayoutError as error:
        raise ResultsFileError(path, "layout", str(error)) from None
    for index, case in enumerate(cases):
        missing = sorted(set(parameters_read(layout)) - set(case.params))
        reader.require(not missing, f"cases[{index}].params", f"lacks {missing}, which its {layout.kind} layout reads")
        for name in parameters_read(layout):
            # A layout's axis value is a row's or a column's key: one value, never a list or an object.
            value = case.params[name]
            reader.require(value is None or isinstance(value, (str, int, float)), f"cases[{index}].params.{name}",
                           f"must be one value (text, a number, true or false), found {_json_type(value)}, "
                           f"and its {layout.kind} layout reads it as a row's or a column's key")
    check_cases_apart(reader, cases, layout)
    if isinstance(layout, Grid):
        _check_baseline_metrics(reader, layout, cases)
    return ResultsFile(
        example=example, title=reader.get(data, "title", str), runner=runner,
        quick=reader.get(data, "quick", bool), params=reader.get(data, "params", dict), environment=environment,
        cases=cases, baseline=baseline, layout=layout, source=Path(path),
        unavailable=_unavailable_from_dict(reader, data.get("unavailable", {}), labels),
        diagnosis=reader.get(data, "diagnosis", dict) if "diagnosis" in data else None)


def check_cases_apart(reader: FieldReader, cases: tuple[CaseResult, ...], layout: Layout) -> None:
    """Refuse two cases a page could not tell apart: one label twice (``case(label)`` finds the first),
    or two cases on one coordinate of a grid, sweep or op layers (the last would silently win its cell)."""
    first_of: dict[str, int] = {}
    for index, case in enumerate(cases):
        reader.require(case.label not in first_of, f"cases[{index}].label",
                       f"is {case.label[:80]!r}, the label of cases[{first_of.get(case.label)}] too; "
                       "labels must be unique within a results file")
        first_of[case.label] = index
    shared = shared_coordinate(layout, [case.params for case in cases])
    if shared is not None:
        first, second, where = shared
        names = coordinate_names(layout)
        at = ", ".join(f"{name}={value!r}"[:80] for name, value in zip(names, where) if name is not None)
        raise ResultsFileError(reader.path, f"cases[{second}].params",
                               f"places its case on the {layout.kind} coordinate of cases[{first}] ({at}); "
                               "two cases on one coordinate would leave one of them unseen")


def _check_baseline_metrics(reader: FieldReader, layout: Grid, cases: tuple[CaseResult, ...]) -> None:
    """In a grid, each case records the metrics its column's baseline case records that a table reads
    beside the baseline's (``Metrics.beside_baseline``: an error against float32, a loss after N steps)."""
    if layout.baseline is None:
        return

    def column(case: CaseResult) -> tuple:
        return case.params[layout.columns], case.params.get(layout.split) if layout.split else None

    baselines = {column(case): case for case in cases if case.params[layout.rows] == layout.baseline}
    for index, case in enumerate(cases):
        reference = baselines.get(column(case))
        if reference is None or reference is case:
            continue
        missing = sorted(reference.metrics.beside_baseline() - set(case.metrics))
        reader.require(not missing, f"cases[{index}].metrics",
                       f"lacks {missing[:3]}, which the baseline row of its column ({reference.label!r}) records")


def _json_type(value: Any) -> str:
    return {list: "a JSON array", dict: "a JSON object"}.get(type(value), type(value).__name__)


def _unavailable_from_dict(reader: FieldReader, raw: Any, labels: list[str]) -> dict[str, str]:
    """``unavailable``: case labels, none of them a measured case, each with a one-line reason
    (its text checked with the rest of the file's, ``RESULTS_TEXT``)."""
    reader.require(isinstance(raw, dict), "unavailable", "must be a JSON object of case label → reason")
    reader.require(len(raw) <= MAX_CASES, "unavailable", f"holds {len(raw)} cases; at most {MAX_CASES} are read")
    for label, reason in raw.items():
        reader.require(isinstance(reason, str), f"unavailable.{label[:40]}", "must be a one-line reason")
        reader.require(label not in labels, f"unavailable.{label[:40]}", "names a case that was measured")
    return dict(raw)


def _case_from_dict(reader: FieldReader, raw: Any, prefix: str) -> CaseResult:
    reader.require(isinstance(raw, dict), prefix.rstrip("."), "must be a JSON object")
    raw_runs = reader.get(raw, "runs", list, prefix)
    reader.require(bool(raw_runs), prefix + "runs", "is empty: a case needs at least one run")
    reader.require(len(raw_runs) <= MAX_RUNS, prefix + "runs",
                   f"holds {len(raw_runs)} runs; at most {MAX_RUNS} are read")
    runs = tuple(run_from_dict(reader, run, f"{prefix}runs[{index}].") for index, run in enumerate(raw_runs))
    metrics = _metrics_from_dict(reader, reader.get(raw, "metrics", dict, prefix), f"{prefix}metrics")
    run_metrics = raw.get("run_metrics", [])
    reader.require(isinstance(run_metrics, list) and (not run_metrics or len(run_metrics) == len(runs)),
                   prefix + "run_metrics", f"must be a list of one JSON object per run ({len(runs)})")
    return CaseResult(label=reader.get(raw, "label", str, prefix), params=reader.get(raw, "params", dict, prefix),
                      runs=runs, metrics=metrics,
                      run_metrics=tuple(_metrics_from_dict(reader, found, f"{prefix}run_metrics[{index}]")
                                        for index, found in enumerate(run_metrics)))


def _metrics_from_dict(reader: FieldReader, raw: Any, where: str) -> dict[str, float]:
    reader.require(isinstance(raw, dict), where, "must be a JSON object of name → number")
    for name, value in raw.items():
        reader.require(not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value),
                       f"{where}.{name}", "must be a finite number")
    # Each quantity a module reads in its range, and what goes with it there (``Metrics.problems``).
    if (found := next(Metrics(raw).problems(), None)) is not None:
        raise ResultsFileError(reader.path, f"{where}.{found[0]}", found[1])
    return raw


def run_from_dict(reader: FieldReader, raw: Any, prefix: str) -> Measurement:
    """One run (one process's blocks) as ``run_to_dict`` writes it, each field checked and named
    with ``prefix``; its statistics must agree with its samples."""
    reader.require(isinstance(raw, dict), prefix.rstrip("."), "must be a JSON object")
    samples = reader.get(raw, "samples_s", list, prefix)
    reader.require(len(samples) <= MAX_SAMPLES, prefix + "samples_s",
                   f"holds {len(samples)} samples; at most {MAX_SAMPLES} are read")
    reader.require(bool(samples), prefix + "samples_s", "must be a non-empty list of positive numbers")
    if not SECONDS.holds_all(samples):  # the first sample out of range, named
        for index, sample in enumerate(samples):
            reader.check_number(sample, f"{prefix}samples_s[{index}]", SECONDS)
    calls = reader.get(raw, "calls_per_block", int, prefix)
    reader.check_number(calls, prefix + "calls_per_block", CALLS)
    first_call = reader.get(raw, "first_call_s", (int, float), prefix)
    reader.check_number(first_call, prefix + "first_call_s", SECONDS)
    tracing_count = reader.get(raw, "tracing_count", (int, type(None)), prefix)
    if tracing_count is not None:
        reader.check_number(tracing_count, prefix + "tracing_count", COUNT)
    measurement = Measurement(samples_s=tuple(float(s) for s in samples), calls_per_block=calls,
                              first_call_s=float(first_call), completion=reader.get(raw, "completion", str, prefix),
                              tracing_count=tracing_count)
    for stat in ("median_s", "iqr_s", "min_s", "mean_s"):
        stored, derived = reader.get(raw, stat, (int, float), prefix), getattr(measurement, stat)
        reader.require(math.isclose(stored, derived, rel_tol=1e-9, abs_tol=1e-15), prefix + stat,
                       f"is {stored!r} but its samples give {derived!r}; "
                       "statistics are derived from samples and must not be edited by hand")
    return measurement


@dataclass(frozen=True)
class FieldReader:
    """Reads a JSON file's fields, refusing any that is missing or of the wrong type with a
    ``ResultsFileError`` that names the file and the field: results files, and the runs and other
    fields of saved diagnoses."""

    path: Path | str

    def get(self, mapping: Mapping[str, Any], name: str, types, prefix: str = "") -> Any:
        types = types if isinstance(types, tuple) else (types,)
        if name not in mapping:
            raise ResultsFileError(self.path, prefix + name, "is missing")
        value = mapping[name]
        # bool is an int in Python; a count or a time given as true/false is an error.
        if isinstance(value, bool) and bool not in types:
            raise ResultsFileError(self.path, prefix + name, f"must be {_names(types)}, found a boolean")
        if not isinstance(value, types):
            raise ResultsFileError(self.path, prefix + name, f"must be {_names(types)}, found {type(value).__name__}")
        return value

    def require(self, condition: bool, name: str, problem: str) -> None:
        """Refuse the file, naming the field, unless ``condition`` holds."""
        if not condition:
            raise ResultsFileError(self.path, name, problem)

    def check_document(self, data: Any, rules: TextRules = {}, default: TextRule = NAME) -> None:
        """Refuse the file at its first string or number that breaks the rules every file of a
        results tree keeps (``checks.document_problems``): the one place they are applied."""
        found = document_problems(data, rules, default)
        if (first := next(found, None)) is not None:
            raise ResultsFileError(self.path, *first)

    def check_number(self, value: Any, name: str, allowed: Range) -> Any:
        """``value``, unless it falls outside ``allowed``."""
        problem = allowed.problem(value)
        self.require(problem is None, name, str(problem))
        return value


def _names(types: tuple[type, ...]) -> str:
    return " or ".join("null" if t is type(None) else t.__name__ for t in types)
