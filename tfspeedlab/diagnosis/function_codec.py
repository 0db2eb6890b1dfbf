"""A function's diagnosis as JSON: the raw blocks and findings, never the derived ratios beyond a
copy for readers of the file (they are recomputed on load, and the bootstrap is seeded by the
samples, so a kept report reads exactly as the terminal printed it).

Reading checks every field with the results files' reader (``results.schema.FieldReader``), each
mode's runs with theirs (``run_from_dict``): a malformed file is a ``ResultsFileError`` naming the
file and the field.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tfspeedlab.core.profiling.trace import HOST_LAYERS, Breakdown
from tfspeedlab.core.results.schema import FieldReader, run_from_dict
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.memory_growth import followed_from_json, followed_to_json
from tfspeedlab.diagnosis.function_core import MODES, Diagnosis, ModeResult, Placement, RetraceProbe

KIND = "function"
# What an error names when the JSON came from no file.
UNSAVED = "<diagnosis>"
NUMBER = (int, float)
NONE = type(None)


def to_json(diagnosis: Diagnosis) -> dict[str, Any]:
    def ratio(found: intervals.Ratio | None) -> dict[str, float] | None:
        return None if found is None else {"value": found.value, "low": found.low, "high": found.high}

    modes = {}
    for mode, result in diagnosis.modes.items():
        modes[mode] = {"error": result.error} if not result.runs else {
            "runs": [{"samples_s": list(run.samples_s), "calls_per_block": run.calls_per_block,
                      "first_call_s": run.first_call_s, "completion": run.completion,
                      "tracing_count": run.tracing_count} for run in result.runs],
            # For readers of the file; recomputed from the runs on load.
            "median_s": result.measurement.median_s, "per_call_s": diagnosis.per_call_s[mode],
            "speedup_over_eager": ratio(diagnosis.speedups.get(mode)),
            "break_even_calls": diagnosis.break_even_calls.get(mode)}
    probe = diagnosis.retracing
    placement = diagnosis.placement
    return {
        "kind": KIND, "target": diagnosis.target, "modes": modes,
        "xla_over_tf_function": ratio(diagnosis.xla_over_graph), "op_count": diagnosis.op_count,
        "compute_op_count": diagnosis.compute_op_count,
        "retracing": None if probe is None else {
            "first_traces": probe.first_traces, "batch_size_traces": probe.batch_size_traces,
            "python_number_traces": probe.python_number_traces, "batch_size_unprobed": probe.batch_size_unprobed,
            "retrace_s": probe.retrace_s, "fixes": probe.fixes},
        "host_split": {mode: {"total_s": split.total_s, "calls": split.calls,
                              **{f"{layer}_s": getattr(split, f"{layer}_s") for layer in HOST_LAYERS}}
                       for mode, split in diagnosis.host_split.items()},
        "placement": None if placement is None else {
            "runner": placement.runner, "fitted_on": placement.fitted_on, "ops": placement.ops, "elements": placement.elements,
            "predicted_s": placement.predicted_s, "band": placement.band, "extrapolated": placement.extrapolated},
        "skipped": diagnosis.skipped, "budget_s": diagnosis.budget_s, "elapsed_s": diagnosis.elapsed_s,
        "tracing_s": diagnosis.tracing_s, "memory": followed_to_json(diagnosis.memory),
        "interrupted": diagnosis.interrupted, "verdict": diagnosis.verdict,
    }


def from_json(data: Any, path: Path | str = UNSAVED) -> Diagnosis:
    """A diagnosis from ``to_json``'s output (read from ``path``); otherwise a ``ResultsFileError``
    (a ``ValueError``) naming ``path`` and the field that is wrong."""
    reader = FieldReader(path)
    reader.require(isinstance(data, dict), "<top level>", "must be a JSON object")
    reader.require(data.get("kind") == KIND, "kind", f"is {data.get('kind')!r}, not {KIND!r}")
    modes = reader.get(data, "modes", dict)
    probe = reader.get(data, "retracing", (dict, NONE))
    placement = reader.get(data, "placement", (dict, NONE))
    return Diagnosis(
        target=reader.get(data, "target", str),
        modes={mode: _mode_from_json(reader, modes, mode) for mode in MODES},
        op_count=reader.get(data, "op_count", (int, NONE)),
        retracing=None if probe is None else _probe_from_json(reader, probe, "retracing."),
        host_split={mode: _split_from_json(reader, split, f"host_split.{mode}.")
                    for mode, split in _values(reader, data, "host_split", dict).items()},
        placement=None if placement is None else _placement_from_json(reader, placement, "placement."),
        skipped=_values(reader, data, "skipped", str),
        budget_s=_seconds(reader, data, "budget_s"), elapsed_s=_seconds(reader, data, "elapsed_s"),
        tracing_s=_seconds(reader, data, "tracing_s"), interrupted=reader.get(data, "interrupted", bool),
        compute_op_count=_optional(reader, data, "compute_op_count", int), memory=followed_from_json(reader, data))


def _mode_from_json(reader: FieldReader, modes: dict[str, Any], mode: str) -> ModeResult:
    entry = reader.get(modes, mode, dict, "modes.")
    prefix = f"modes.{mode}."
    if "runs" not in entry:
        return ModeResult(mode, (), reader.get(entry, "error", str, prefix))
    runs = reader.get(entry, "runs", list, prefix)
    reader.require(bool(runs), prefix + "runs", "is empty: a mode that ran has at least one run")
    return ModeResult(mode, tuple(run_from_dict(reader, run, f"{prefix}runs[{index}].", stored_statistics=False)
                                  for index, run in enumerate(runs)))


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
    return Placement(reader.get(placement, "runner", str, prefix), reader.get(placement, "fitted_on", str, prefix),
                     reader.get(placement, "ops", int, prefix), reader.get(placement, "elements", int, prefix),
                     _per_mode(reader, placement, "predicted_s", prefix), _per_mode(reader, placement, "band", prefix),
                     reader.get(placement, "extrapolated", bool, prefix))


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
