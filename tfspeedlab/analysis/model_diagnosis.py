"""What ``tfspeedlab diagnose model.keras --batch N`` found: the reader's own Keras model through
the guide's predict ladder and its training calls, at their batch size, and what to do about it.

The measuring is ``tfspeedlab.run.diagnose_model``; this module holds the raw blocks of each call,
derives the speed-ups from them (predict rungs over ``predict``, training calls over
``train_on_batch``), words the verdict, and reads and writes the JSON. As with a function's
diagnosis, the JSON keeps the raw blocks and the ratios are recomputed on load (the bootstrap is
seeded by the samples), so a kept report reads exactly as the terminal printed it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from tfspeedlab.analysis import intervals
from tfspeedlab.analysis.diagnosis import MATERIAL_SPEEDUP, material
from tfspeedlab.analysis.diagnosis_report import VERDICT_LEAD
from tfspeedlab.analysis.summary import format_interval, format_speedup, text_columns
from tfspeedlab.measure.measurement import Measurement
from tfspeedlab.units import format_ratio, format_significant, format_time

KIND = "keras model"
PREDICT, TRAINING = "predict", "training"
# The guide's names for the calls (examples/predict_ladder.py, examples/train_apis.py), in report order.
CALLS = {
    PREDICT: ("predict", "predict_on_batch", "model(x)", "tf.function"),
    TRAINING: ("fit, steps_per_execution=1", "fit, steps_per_execution=10", "train_on_batch",
               "custom loop, tf.function step"),
}
BASELINES = {PREDICT: "predict", TRAINING: "train_on_batch"}
# How a call is named inside a sentence of the verdict.
SPOKEN = {
    "predict": "predict", "predict_on_batch": "predict_on_batch", "model(x)": "model(x)",
    "tf.function": "the tf.function around model(x)",
    "fit, steps_per_execution=1": "fit with steps_per_execution=1",
    "fit, steps_per_execution=10": "fit with steps_per_execution=10",
    "train_on_batch": "train_on_batch", "custom loop, tf.function step": "a custom loop's tf.function step",
}
# What to call instead of predict, as advice.
ADVICE = {"predict_on_batch": "use predict_on_batch", "model(x)": "call the model directly, model(x, training=False)",
          "tf.function": "call the model through a tf.function with an input_signature"}
# Batches one timed call of fit trains on; its time is divided by this to give a step's.
FIT_BATCHES = 20
# Who chose the loss and optimizer the training calls use.
FROM_FILE, FROM_TFSPEEDLAB = "the model file", "tfspeedlab"
# The guide's pages that explain each group.
PAGES = {PREDICT: ("predict-loop.md", "Why is model.predict slow in a loop?"),
         TRAINING: ("training-apis.md", "fit, train_on_batch or a custom loop?")}


@dataclass(frozen=True)
class ModelCall:
    """One way of calling the model, timed per call (predict) or per step (training).

    No measurement and an error: the call raised. Neither: it was not measured (interrupted)."""

    name: str
    group: str
    measurement: Measurement | None
    error: str | None = None


@dataclass(frozen=True)
class ModelDiagnosis:
    model_path: str
    batch: int
    input_shapes: tuple[tuple[int, ...], ...]
    loss: str
    optimizer: str
    compiled_by: str  # FROM_FILE or FROM_TFSPEEDLAB
    calls: tuple[ModelCall, ...]
    interrupted: bool = False  # Ctrl-C during the training calls: those were not measured

    def call(self, name: str) -> ModelCall | None:
        return next((call for call in self.calls if call.name == name), None)

    def group(self, group: str) -> tuple[ModelCall, ...]:
        return tuple(call for call in self.calls if call.group == group)

    @cached_property
    def speedups(self) -> dict[str, intervals.Ratio]:
        """Each call's speed-up over its group's baseline (baseline time ÷ its time), with its interval."""
        found = {}
        for group, baseline_name in BASELINES.items():
            baseline = self.call(baseline_name)
            if baseline is None or baseline.measurement is None:
                continue
            for call in self.group(group):
                if call.name != baseline_name and call.measurement is not None:
                    found[call.name] = intervals.ratio([baseline.measurement], [call.measurement])
        return found

    @property
    def verdict(self) -> str:
        return model_verdict(self)

    @property
    def links(self) -> list[tuple[str, str]]:
        """The guide's pages that explain this report, as (page, title)."""
        return [PAGES[PREDICT], PAGES[TRAINING]]


# -- the verdict: a "faster" or "slower" only where the whole interval is past the threshold --

def model_verdict(diagnosis: ModelDiagnosis) -> str:
    return " ".join([_group_verdict(diagnosis, PREDICT), _group_verdict(diagnosis, TRAINING)])


def _group_verdict(diagnosis: ModelDiagnosis, group: str) -> str:
    baseline = diagnosis.call(BASELINES[group])
    lead, per = ("For one batch at a time", "") if group == PREDICT else ("For training", " per step")
    if group == TRAINING and diagnosis.interrupted:
        return "The training calls were not measured (interrupted)."
    if baseline is None or baseline.measurement is None:
        why = f" ({baseline.error})" if baseline is not None and baseline.error else ""
        return (f"{BASELINES[group]} could not run{why}, so the other {group} calls are not compared with it."
                + _failures(diagnosis, group))
    ratios = {call.name: diagnosis.speedups[call.name] for call in diagnosis.group(group)
              if call.name in diagnosis.speedups}
    faster = sorted((name for name, found in ratios.items() if material(found) == "faster"),
                    key=lambda name: -ratios[name].value)
    slower = [name for name, found in ratios.items() if material(found) == "slower"]
    level = [name for name in ratios if name not in faster and name not in slower]
    sentences = []
    if faster:
        best, *others = faster
        advice = f"{_advice(diagnosis, faster)}: " if group == PREDICT else ""
        sentence = (f"{lead}, {advice}{SPOKEN[best]} is {format_ratio(ratios[best].value)} faster{per} than "
                    f"{BASELINES[group]} [{format_interval(ratios[best])}]")
        sentence += "".join(f", {SPOKEN[name]} {format_ratio(ratios[name].value)} [{format_interval(ratios[name])}]"
                            for name in others)
        sentences.append(sentence + ".")
    else:
        sentences.append(f"{lead}, no call is materially faster{per} than {BASELINES[group]} at batch "
                         f"{diagnosis.batch}.")
    if slower:
        sentences.append(f"Slower{per} than {BASELINES[group]}: " + "; ".join(
            f"{SPOKEN[name]}, {format_ratio(1 / ratios[name].value)} [{format_significant(1 / ratios[name].high, 3)}"
            f"–{format_ratio(1 / ratios[name].low)}]" for name in slower) + ".")
    if level and faster:
        sentences.append(f"No material difference{per} from {BASELINES[group]}: "
                         + ", ".join(SPOKEN[name] for name in level) + ".")
    if group == TRAINING and any(name.startswith("fit") for name in (*slower, *level)):
        sentences.append(f"(A fit call's own set-up is spread over its {FIT_BATCHES} batches here; an epoch of "
                         "more batches spreads it thinner.)")
    return " ".join(sentences) + _failures(diagnosis, group)


def _advice(diagnosis: ModelDiagnosis, faster: list[str]) -> str:
    """What to call instead of predict: the fastest rung, and any the fastest is not materially
    faster than (by their own interval), since the reader may choose between those freely."""
    best = diagnosis.call(faster[0]).measurement
    close = {name for name in faster
             if intervals.ratio([diagnosis.call(name).measurement], [best]).low < MATERIAL_SPEEDUP}
    if {"model(x)", "tf.function"} <= close:
        return "call the model directly or through a tf.function" + (
            " (or use predict_on_batch)" if "predict_on_batch" in close else "")
    return " or ".join(ADVICE[name] for name in faster if name in close)


def _failures(diagnosis: ModelDiagnosis, group: str) -> str:
    return "".join(f" {call.name} could not run: {call.error}." for call in diagnosis.group(group)
                   if call.error and call.name != BASELINES[group])


# -- the terminal report --

def model_text_report(diagnosis: ModelDiagnosis) -> str:
    shapes = " and ".join("(" + ", ".join(str(size) for size in shape) + ")" for shape in diagnosis.input_shapes)
    sections = [
        f"tfspeedlab diagnose {diagnosis.model_path} --batch {diagnosis.batch}",
        f"Predict ladder, per call on inputs {shapes} ({PAGES[PREDICT][0]} explains it)\n"
        + _table(diagnosis, PREDICT, "Per call (median)"),
        f"Training calls, per step (fit: {FIT_BATCHES} batches a call, its time ÷ {FIT_BATCHES}; "
        f"{PAGES[TRAINING][0]} explains them)\n" + _table(diagnosis, TRAINING, "Per step (median)"),
        _training_setup(diagnosis),
        VERDICT_LEAD + diagnosis.verdict,
    ]
    return "\n\n".join(sections)


def _table(diagnosis: ModelDiagnosis, group: str, per: str) -> str:
    rows = [("Call", per, f"Speed-up over {BASELINES[group]} [95%]", "First call")]
    for call in diagnosis.group(group):
        if call.measurement is None:
            rows.append((call.name, f"could not run: {call.error}" if call.error else "not measured (interrupted)",
                         "", ""))
            continue
        speedup = diagnosis.speedups.get(call.name)
        rows.append((call.name, format_time(call.measurement.median_s),
                     "1×\u00a0(baseline)" if call.name == BASELINES[group] else
                     format_speedup(speedup) if speedup else "—",
                     format_time(call.measurement.first_call_s)))
    return text_columns(rows)


def _training_setup(diagnosis: ModelDiagnosis) -> str:
    if diagnosis.compiled_by == FROM_FILE:
        return (f"Loss and optimizer: {diagnosis.loss} and {diagnosis.optimizer}, as compiled in the model file "
                "(each training call on a freshly loaded model)")
    return (f"Loss and optimizer: {diagnosis.loss} and {diagnosis.optimizer}, chosen by tfspeedlab: the model "
            "file was saved without a loss (each training call on a freshly loaded model)")


# -- JSON: the raw blocks, never the derived ratios (they are recomputed on load) --

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
    }


def model_from_json(data: Any) -> ModelDiagnosis:
    """A diagnosis from ``model_to_json``'s output; ``ValueError`` naming what is wrong otherwise."""
    _expect(isinstance(data, dict), "<top level>", "must be a JSON object")
    _expect(data.get("kind") == KIND, "kind", f"is {data.get('kind')!r}, not {KIND!r}")
    batch = _field(data, "batch", int)
    _expect(batch >= 1, "batch", f"must be at least 1, found {batch}")
    shapes = _field(data, "input_shapes", list)
    _expect(bool(shapes) and all(isinstance(shape, list) and shape and all(_whole(size) and size >= 1 for size in shape)
                                 for shape in shapes),
            "input_shapes", "must be a non-empty list of shapes, each a list of positive whole numbers")
    compiled_by = _field(data, "compiled_by", str)
    _expect(compiled_by in (FROM_FILE, FROM_TFSPEEDLAB), "compiled_by",
            f"must be {FROM_FILE!r} or {FROM_TFSPEEDLAB!r}, found {compiled_by!r}")
    interrupted = _field(data, "interrupted", bool)
    raw_calls = _field(data, "calls", list)
    calls = tuple(_call_from_json(raw, f"calls[{index}]", interrupted) for index, raw in enumerate(raw_calls))
    names = [call.name for call in calls]
    _expect(len(set(names)) == len(names), "calls", f"names a call twice: {names}")
    _expect(any(call.group == PREDICT and call.measurement for call in calls), "calls",
            "holds no measured predict call")
    return ModelDiagnosis(
        model_path=_field(data, "model_path", str), batch=batch,
        input_shapes=tuple(tuple(shape) for shape in shapes), loss=_field(data, "loss", str),
        optimizer=_field(data, "optimizer", str), compiled_by=compiled_by, calls=calls, interrupted=interrupted)


def _call_from_json(raw: Any, where: str, interrupted: bool) -> ModelCall:
    _expect(isinstance(raw, dict), where, "must be a JSON object")
    group = _field(raw, "group", str, where)
    _expect(group in CALLS, f"{where}.group", f"must be one of {list(CALLS)}, found {group!r}")
    name = _field(raw, "name", str, where)
    _expect(name in CALLS[group], f"{where}.name", f"must be one of {list(CALLS[group])}, found {name!r}")
    error = _field(raw, "error", (str, type(None)), where)
    found = _field(raw, "measurement", (dict, type(None)), where)
    if found is None:
        _expect(error is not None or (interrupted and group == TRAINING), where,
                "has neither a measurement nor an error (only training calls of an interrupted run may)")
        return ModelCall(name, group, None, error)
    _expect(error is None, where, "has both a measurement and an error")
    inner = f"{where}.measurement"
    samples = _field(found, "samples_s", list, inner)
    _expect(bool(samples) and all(_positive(sample) for sample in samples), f"{inner}.samples_s",
            "must be a non-empty list of positive numbers")
    calls_per_block = _field(found, "calls_per_block", int, inner)
    _expect(calls_per_block >= 1, f"{inner}.calls_per_block", f"must be at least 1, found {calls_per_block}")
    first_call = _field(found, "first_call_s", (int, float), inner)
    _expect(_positive(first_call), f"{inner}.first_call_s", "must be a positive number")
    measurement = Measurement(tuple(float(sample) for sample in samples), calls_per_block, float(first_call),
                              _field(found, "completion", str, inner),
                              _field(found, "tracing_count", (int, type(None)), inner))
    return ModelCall(name, group, measurement, None)


def _field(mapping: dict[str, Any], name: str, types: type | tuple[type, ...], where: str = "") -> Any:
    path = f"{where}.{name}" if where else name
    _expect(name in mapping, path, "is missing")
    value = mapping[name]
    types = types if isinstance(types, tuple) else (types,)
    # JSON's true is a Python int; a count given as true/false is an error.
    _expect(isinstance(value, types) and (bool in types or not isinstance(value, bool)), path,
            f"must be {' or '.join('null' if kind is type(None) else kind.__name__ for kind in types)}, "
            f"found {type(value).__name__}")
    return value


def _expect(condition: bool, where: str, problem: str) -> None:
    if not condition:
        raise ValueError(f"not a Keras model diagnosis: {where} {problem}")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
