"""A diagnosis as JSON. A function's is a results file (``results.schema``): its modes are the
file's cases, a mode that could not run is in its ``unavailable``, and what is not a case (the
probe, the host-time split, the placement, the budget, memory) is its ``diagnosis`` block; the
derived ratios are there only as a copy for readers of the file (they are recomputed on load, and
the bootstrap is seeded by the samples, so a kept report reads exactly as the terminal printed it).
A Keras model's likewise, each call a case.

Reading checks every field with the results files' reader (``results.schema.FieldReader``): a
malformed file is a ``ResultsFileError`` naming the file and the field.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tfspeedlab.core.profiling.trace import HOST_LAYERS, Breakdown
from tfspeedlab.core.results.schema import FieldReader, ResultsFile, from_dict, to_dict
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.memory_growth import followed_from_json, followed_to_json
from tfspeedlab.diagnosis.function_core import (MODES, Calibration, Diagnosis, MachineCosts, Placement, RetraceProbe,
                                                pool)
from tfspeedlab.diagnosis.model_core import (CALLS, FROM_FILE, FROM_TFSPEEDLAB, KIND as MODEL_KIND, PREDICT, TRAINING,
                                             ModelDiagnosis)

KIND = "function"
# The example a saved diagnosis names until it is saved (then its file's name, where that can name one).
SAVED_NAME = "diagnosis"
# What an error names when the JSON came from no file.
UNSAVED, MODEL_UNSAVED = "<diagnosis>", "<model diagnosis>"
NUMBER = (int, float)
NONE = type(None)


def ratio_to_json(found: intervals.Ratio | None) -> dict[str, float] | None:
    return None if found is None else {"value": found.value, "low": found.low, "high": found.high}


# -- a function's diagnosis --

def to_json(diagnosis: Diagnosis, environment: Mapping[str, Any], name: str = SAVED_NAME) -> dict[str, Any]:
    """The diagnosis as a results file: each mode a case."""
    return to_dict(ResultsFile(example=name, title=diagnosis.target, runner=_runner(environment), quick=False,
                               params={}, environment=environment, cases=tuple(diagnosis.modes.values()),
                               baseline="eager" if "eager" in diagnosis.modes else None,
                               unavailable=dict(diagnosis.unavailable), diagnosis=_block(diagnosis)))


def _block(diagnosis: Diagnosis) -> dict[str, Any]:
    probe = diagnosis.retracing
    placement = diagnosis.placement
    return {
        "kind": KIND, "target": diagnosis.target,
        # For readers of the file; recomputed from the cases on load.
        "per_call_s": diagnosis.per_call_s,
        "speedup_over_eager": {mode: ratio_to_json(found) for mode, found in diagnosis.speedups.items()},
        "break_even_calls": diagnosis.break_even_calls,
        "xla_over_tf_function": ratio_to_json(diagnosis.xla_over_graph), "op_count": diagnosis.op_count,
        "compute_op_count": diagnosis.compute_op_count,
        "retracing": None if probe is None else {
            "first_traces": probe.first_traces, "batch_size_traces": probe.batch_size_traces,
            "python_number_traces": probe.python_number_traces, "batch_size_unprobed": probe.batch_size_unprobed,
            "retrace_s": probe.retrace_s, "fixes": probe.fixes},
        "host_split": {mode: {"total_s": split.total_s, "calls": split.calls,
                              **{f"{layer}_s": getattr(split, f"{layer}_s") for layer in HOST_LAYERS}}
                       for mode, split in diagnosis.host_split.items()},
        "placement": None if placement is None else {
            "runner": placement.runner, "fitted_on": placement.fitted_on, "ops": placement.ops,
            "elements": placement.elements, "predicted_s": placement.predicted_s, "band": placement.band,
            "extrapolated": placement.extrapolated, "calibration": _calibration_to_json(placement.calibration)},
        "skipped": diagnosis.skipped, "budget_s": diagnosis.budget_s, "elapsed_s": diagnosis.elapsed_s,
        "tracing_s": diagnosis.tracing_s, "memory": followed_to_json(diagnosis.memory),
        "interrupted": diagnosis.interrupted, "verdict": diagnosis.verdict,
    }


def from_results(results: ResultsFile) -> Diagnosis:
    """The diagnosis a results file's cases and ``diagnosis`` block hold (ResultsFileError otherwise)."""
    data = results.diagnosis
    reader = _reader(data, results.source or UNSAVED, KIND, "diagnosis")
    modes = {case.label: case for case in results.cases}
    reader.require(set(modes) | set(results.unavailable) == set(MODES) and set(modes).isdisjoint(results.unavailable),
                   "cases", f"must hold each of the modes {', '.join(MODES)}, or name it in unavailable")
    probe = reader.get(data, "retracing", (dict, NONE))
    placement = reader.get(data, "placement", (dict, NONE))
    return Diagnosis(
        target=reader.get(data, "target", str),
        modes={mode: modes[mode] for mode in MODES if mode in modes},
        op_count=reader.get(data, "op_count", (int, NONE)),
        retracing=None if probe is None else _probe_from_json(reader, probe, "retracing."),
        host_split={mode: _split_from_json(reader, split, f"host_split.{mode}.")
                    for mode, split in _values(reader, data, "host_split", dict).items()},
        placement=None if placement is None else _placement_from_json(reader, placement, "placement."),
        skipped=_values(reader, data, "skipped", str),
        budget_s=_seconds(reader, data, "budget_s"), elapsed_s=_seconds(reader, data, "elapsed_s"),
        tracing_s=_seconds(reader, data, "tracing_s"), interrupted=reader.get(data, "interrupted", bool),
        compute_op_count=_optional(reader, data, "compute_op_count", int), memory=followed_from_json(reader, data),
        unavailable=dict(results.unavailable))


def pooled_block(first: ResultsFile, second: ResultsFile) -> dict[str, Any]:
    """Two saved diagnoses' ``diagnosis`` blocks pooled, as ``function_core.pool`` pools diagnoses
    (``tfspeedlab pool`` gives it to ``results.pool``, which pools their cases)."""
    return _block(pool([from_results(first), from_results(second)]))


def _reader(data: Any, path: Path | str, kind: str, where: str = "<top level>") -> FieldReader:
    """The reader of a diagnosis's fields, once the JSON at ``where`` is an object of ``kind``."""
    reader = FieldReader(path)
    reader.require(isinstance(data, dict), where, "must be a JSON object")
    field_name = "kind" if where == "<top level>" else f"{where}.kind"
    reader.require(data.get("kind") == kind, field_name, f"is {data.get('kind')!r}, not {kind!r}")
    return reader


def _probe_from_json(reader: FieldReader, probe: dict[str, Any], prefix: str) -> RetraceProbe:
    return RetraceProbe(reader.get(probe, "first_traces", int, prefix),
                        reader.get(probe, "batch_size_traces", (int, NONE), prefix),
                        reader.get(probe, "python_number_traces", (int, NONE), prefix),
                        _optional(reader, probe, "batch_size_unprobed", str, prefix),
                        _optional(reader, probe, "retrace_s", NUMBER, prefix, float))


def _split_from_json(reader: FieldReader, split: dict[str, Any], prefix: str) -> Breakdown:
    return Breakdown(total_s=float(reader.get(split, "total_s", NUMBER, prefix)),
                     calls=reader.get(split, "calls", int, prefix),
                     **{f"{layer}_s": float(reader.get(split, f"{layer}_s", NUMBER, prefix)) for layer in HOST_LAYERS})


def _placement_from_json(reader: FieldReader, placement: dict[str, Any], prefix: str) -> Placement:
    # A diagnosis kept before this machine's costs were timed has none: every cost is the guide's.
    calibration = _optional(reader, placement, "calibration", dict, prefix)
    return Placement(reader.get(placement, "runner", str, prefix), reader.get(placement, "fitted_on", str, prefix),
                     reader.get(placement, "ops", int, prefix), reader.get(placement, "elements", int, prefix),
                     _per_mode(reader, placement, "predicted_s", prefix), _per_mode(reader, placement, "band", prefix),
                     reader.get(placement, "extrapolated", bool, prefix),
                     None if calibration is None else _calibration_from_json(reader, calibration,
                                                                             f"{prefix}calibration."))


def _calibration_to_json(calibration: Calibration | None) -> dict[str, Any] | None:
    if calibration is None:
        return None
    return {"cpu": calibration.cpu, "here": dataclasses.asdict(calibration.here),
            "guide": dataclasses.asdict(calibration.guide)}


def _calibration_from_json(reader: FieldReader, calibration: dict[str, Any], prefix: str) -> Calibration:
    def costs(name: str) -> MachineCosts:
        found = reader.get(calibration, name, dict, prefix)
        values = {}
        for field in dataclasses.fields(MachineCosts):
            value = float(reader.get(found, field.name, NUMBER, f"{prefix}{name}."))
            reader.require(math.isfinite(value) and value > 0, f"{prefix}{name}.{field.name}",
                           f"is {value!r}; it must be a positive, finite number of seconds")
            values[field.name] = value
        return MachineCosts(**values)

    cpu = reader.get(calibration, "cpu", str, prefix)  # its text checked with the whole file (checks)
    return Calibration(cpu, costs("here"), costs("guide"))


def _per_mode(reader: FieldReader, mapping: dict[str, Any], name: str, prefix: str) -> dict[str, float]:
    """A JSON object of positive finite numbers keyed by the three modes' names (a page divides by them)."""
    found = _values(reader, mapping, name, NUMBER, prefix, float)
    unknown = sorted(set(found) - set(MODES))
    if unknown:
        reader.require(False, f"{prefix}{name}", f"names {unknown[0]!r}, which is no mode; the modes are "
                                                 f"{', '.join(MODES)}")
    for mode, value in found.items():
        reader.require(math.isfinite(value) and value > 0, f"{prefix}{name}.{mode}",
                       f"is {value!r}; it must be a positive, finite number of seconds")
    return found


def _values(reader: FieldReader, mapping: dict[str, Any], name: str, types: Any, prefix: str = "",
            convert: Callable[[Any], Any] | None = None) -> dict[str, Any]:
    """A JSON object whose every value is of ``types`` (``convert``-ed, if given)."""
    found = reader.get(mapping, name, dict, prefix)
    checked = {key: reader.get(found, key, types, f"{prefix}{name}.") for key in found}
    return {key: convert(value) for key, value in checked.items()} if convert else checked


def _seconds(reader: FieldReader, mapping: dict[str, Any], name: str) -> float | None:
    value = reader.get(mapping, name, (*NUMBER, NONE))
    return None if value is None else float(value)


def _optional(reader: FieldReader, mapping: dict[str, Any], name: str, types: Any, prefix: str = "",
              convert: Callable[[Any], Any] | None = None) -> Any:
    """A field files saved before it existed lack: None when missing or null."""
    types = types if isinstance(types, tuple) else (types,)
    value = reader.get(mapping, name, (*types, NONE), prefix) if name in mapping else None
    return value if value is None or convert is None else convert(value)


# -- a Keras model's diagnosis --

def model_to_json(diagnosis: ModelDiagnosis, environment: Mapping[str, Any], name: str = SAVED_NAME) -> dict[str, Any]:
    """The diagnosis as a results file: each call a case (timed per call or per training step)."""
    block = {
        "kind": MODEL_KIND, "model_path": diagnosis.model_path, "batch": diagnosis.batch,
        "input_shapes": [list(shape) for shape in diagnosis.input_shapes],
        "loss": diagnosis.loss, "optimizer": diagnosis.optimizer, "compiled_by": diagnosis.compiled_by,
        "interrupted": diagnosis.interrupted, "verdict": diagnosis.verdict,
        "speedups": {call: ratio_to_json(found) for call, found in diagnosis.speedups.items()},  # for readers
        "load_s": diagnosis.load_s, "first_prediction_s": diagnosis.first_prediction_s,  # the latter for readers
        "memory": followed_to_json(diagnosis.memory),
    }
    cases = tuple(diagnosis.calls[call] for names in CALLS.values() for call in names if call in diagnosis.calls)
    return to_dict(ResultsFile(example=name, title=diagnosis.model_path, runner=_runner(environment), quick=False,
                               params={}, environment=environment, cases=cases, unavailable=dict(diagnosis.unavailable),
                               diagnosis=block))


def model_from_json(data: Any, path: Path | str = MODEL_UNSAVED) -> ModelDiagnosis:
    """A diagnosis from ``model_to_json``'s output (read from ``path``); otherwise a
    ``ResultsFileError`` (a ``ValueError``) naming ``path`` and the field that is wrong."""
    results = from_dict(data, path)
    reader, data = _reader(results.diagnosis, path, MODEL_KIND, "diagnosis"), results.diagnosis
    batch = reader.get(data, "batch", int)
    reader.require(batch >= 1, "batch", f"must be at least 1, found {batch}")
    shapes = reader.get(data, "input_shapes", list)
    reader.require(bool(shapes) and all(isinstance(shape, list) and shape and all(_whole(size) and size >= 1
                                                                                  for size in shape)
                                        for shape in shapes),
                   "input_shapes", "must be a non-empty list of shapes, each a list of positive whole numbers")
    compiled_by = reader.get(data, "compiled_by", str)
    reader.require(compiled_by in (FROM_FILE, FROM_TFSPEEDLAB), "compiled_by",
                   f"must be {FROM_FILE!r} or {FROM_TFSPEEDLAB!r}, found {compiled_by!r}")
    interrupted = reader.get(data, "interrupted", bool)
    calls = {case.label: case for case in results.cases}
    known = [call for names in CALLS.values() for call in names]
    unknown = sorted(set(calls) - set(known))
    reader.require(not unknown, "cases", f"name {unknown} besides the calls {known}")
    # A call neither timed nor failed was not measured: only a training call, when Ctrl-C cut the run short.
    unmeasured = [call for call in known if call not in calls and call not in results.unavailable]
    reader.require(not unmeasured or (interrupted and set(unmeasured) <= set(CALLS[TRAINING])), "cases",
                   f"lack {unmeasured}, neither timed nor failed (only training calls of an interrupted run may)")
    reader.require(any(call in calls for call in CALLS[PREDICT]), "cases", "hold no measured predict call")
    # Start-up and memory came later than the calls: a report kept before has neither.
    load_s = reader.get(data, "load_s", (float, int, NONE)) if "load_s" in data else None
    reader.require(load_s is None or load_s > 0, "load_s", f"must be above 0 seconds, found {load_s}")
    return ModelDiagnosis(
        model_path=reader.get(data, "model_path", str), batch=batch,
        input_shapes=tuple(tuple(shape) for shape in shapes), loss=reader.get(data, "loss", str),
        optimizer=reader.get(data, "optimizer", str), compiled_by=compiled_by, calls=calls,
        unavailable=dict(results.unavailable), interrupted=interrupted,
        load_s=None if load_s is None else float(load_s), memory=followed_from_json(reader, data))


def _runner(environment: Mapping[str, Any]) -> str:
    return "gpu" if environment["gpus"] else "cpu"


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
