"""A Keras model's diagnosis as JSON: each call's raw blocks, never the derived ratios beyond a
copy for readers of the file (they are recomputed on load; the bootstrap is seeded by the samples),
so a kept report reads exactly as the terminal printed it.

Reading checks every field with the results files' reader (``results.schema.FieldReader``), each
call's blocks with their runs' (``run_from_dict``): a malformed file is a ``ResultsFileError``
naming the file and the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import FieldReader, run_from_dict
from tfspeedlab.core.stats.memory_growth import followed_from_json, followed_to_json
from tfspeedlab.diagnosis.model_core import (CALLS, FROM_FILE, FROM_TFSPEEDLAB, KIND, PREDICT, TRAINING, ModelCall,
                                             ModelDiagnosis)

# What an error names when the JSON came from no file.
UNSAVED = "<model diagnosis>"
NONE = type(None)


def model_to_json(diagnosis: ModelDiagnosis) -> dict[str, Any]:
    def ratio(name: str) -> dict[str, float] | None:
        found = diagnosis.speedups.get(name)
        return None if found is None else {"value": found.value, "low": found.low, "high": found.high}

    def measurement(found: Measurement | None) -> dict[str, Any] | None:
        return None if found is None else {
            "samples_s": list(found.samples_s), "calls_per_block": found.calls_per_block,
            "first_call_s": found.first_call_s, "completion": found.completion,
            "tracing_count": found.tracing_count,
            "median_s": found.median_s}  # for readers of the file; recomputed on load

    return {
        "kind": KIND, "model_path": diagnosis.model_path, "batch": diagnosis.batch,
        "input_shapes": [list(shape) for shape in diagnosis.input_shapes],
        "loss": diagnosis.loss, "optimizer": diagnosis.optimizer, "compiled_by": diagnosis.compiled_by,
        "calls": [{"name": call.name, "group": call.group, "measurement": measurement(call.measurement),
                   "error": call.error, "speedup": ratio(call.name)} for call in diagnosis.calls],
        "interrupted": diagnosis.interrupted, "verdict": diagnosis.verdict,
        "load_s": diagnosis.load_s, "first_prediction_s": diagnosis.first_prediction_s,  # the latter for readers
        "memory": followed_to_json(diagnosis.memory),
    }


def model_from_json(data: Any, path: Path | str = UNSAVED) -> ModelDiagnosis:
    """A diagnosis from ``model_to_json``'s output (read from ``path``); otherwise a
    ``ResultsFileError`` (a ``ValueError``) naming ``path`` and the field that is wrong."""
    reader = FieldReader(path)
    reader.require(isinstance(data, dict), "<top level>", "must be a JSON object")
    reader.require(data.get("kind") == KIND, "kind", f"is {data.get('kind')!r}, not {KIND!r}")
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
    raw_calls = reader.get(data, "calls", list)
    calls = tuple(_call_from_json(reader, raw, f"calls[{index}]", interrupted) for index, raw in enumerate(raw_calls))
    names = [call.name for call in calls]
    reader.require(len(set(names)) == len(names), "calls", f"names a call twice: {names}")
    reader.require(any(call.group == PREDICT and call.measurement for call in calls), "calls",
                   "holds no measured predict call")
    # Start-up and memory came later than the calls: a report kept before has neither.
    load_s = reader.get(data, "load_s", (float, int, NONE)) if "load_s" in data else None
    reader.require(load_s is None or load_s > 0, "load_s", f"must be above 0 seconds, found {load_s}")
    return ModelDiagnosis(
        model_path=reader.get(data, "model_path", str), batch=batch,
        input_shapes=tuple(tuple(shape) for shape in shapes), loss=reader.get(data, "loss", str),
        optimizer=reader.get(data, "optimizer", str), compiled_by=compiled_by, calls=calls, interrupted=interrupted,
        load_s=None if load_s is None else float(load_s),
        memory=followed_from_json(reader, data))


def _call_from_json(reader: FieldReader, raw: Any, where: str, interrupted: bool) -> ModelCall:
    reader.require(isinstance(raw, dict), where, "must be a JSON object")
    prefix = f"{where}."
    group = reader.get(raw, "group", str, prefix)
    reader.require(group in CALLS, prefix + "group", f"must be one of {list(CALLS)}, found {group!r}")
    name = reader.get(raw, "name", str, prefix)
    reader.require(name in CALLS[group], prefix + "name", f"must be one of {list(CALLS[group])}, found {name!r}")
    error = reader.get(raw, "error", (str, NONE), prefix)
    found = reader.get(raw, "measurement", (dict, NONE), prefix)
    if found is None:
        reader.require(error is not None or (interrupted and group == TRAINING), where,
                       "has neither a measurement nor an error (only training calls of an interrupted run may)")
        return ModelCall(name, group, None, error)
    reader.require(error is None, where, "has both a measurement and an error")
    return ModelCall(name, group, run_from_dict(reader, found, prefix + "measurement.", stored_statistics=False), None)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
