"""What ``tfspeedlab diagnose model.keras --batch N`` found: the reader's own Keras model through
the guide's predict ladder and its training calls, at their batch size, and what to do about it.

The measuring is ``tfspeedlab.run.diagnose_model``; this module holds the raw blocks of each call,
derives the speed-ups from them (predict rungs over ``predict``, training calls over
``train_on_batch``) and words the verdict, in the calls' own names. The terminal report is
``diagnosis_report``'s, the JSON ``model_diagnosis_codec``'s; ``tfspeedlab.analysis.model_diagnosis``
gathers them for other code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tfspeedlab.analysis import diagnosis_verdict, intervals
from tfspeedlab.analysis.memory_growth import FollowedMemory
from tfspeedlab.analysis.materiality import MATERIAL_SPEEDUP, material
from tfspeedlab.analysis.wording import Verdict, format_speedup
from tfspeedlab.measure.measurement import Measurement

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
# The guide's page on loading, first predictions and memory that grows.
START_PAGE = diagnosis_verdict.PAGES["memory"]


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
    # keras.models.load_model of the file in this process (TensorFlow already imported); None in a
    # report kept before it was measured.
    load_s: float | None = None
    memory: FollowedMemory | None = None  # None: not followed (a report kept before, or Ctrl-C)

    @property
    def first_prediction_s(self) -> float | None:
        """Loading the file and the first predict call: what a fresh process pays after its imports."""
        predict = self.call("predict")
        if self.load_s is None or predict is None or predict.measurement is None:
            return None
        return self.load_s + predict.measurement.first_call_s

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
        started = [START_PAGE] if self.load_s is not None or self.memory is not None else []
        return [PAGES[PREDICT], PAGES[TRAINING], *started]


# -- the advice: a call is named only where its whole interval is past the material threshold --

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
    faster = sorted((name for name, found in ratios.items() if material(found) is Verdict.FASTER),
                    key=lambda name: -ratios[name].value)
    slower = [name for name, found in ratios.items() if material(found) is Verdict.SLOWER]
    level = [name for name in ratios if name not in faster and name not in slower]
    sentences = []
    if faster:
        best, *others = faster
        advice = f"{_advice(diagnosis, faster)}: " if group == PREDICT else ""
        sentence = (f"{lead}, {advice}against {BASELINES[group]}, {SPOKEN[best]} ran "
                    f"{format_speedup(ratios[best])}{per}")
        sentence += "".join(f", {SPOKEN[name]} {format_speedup(ratios[name])}" for name in others)
        sentences.append(sentence + ".")
    else:
        sentences.append(f"{lead}, no call beat {BASELINES[group]} by {MATERIAL_SPEEDUP:.2f}× or more{per} at batch "
                         f"{diagnosis.batch}.")
    if slower:
        sentences.append(f"Against {BASELINES[group]}{per}, " + "; ".join(
            f"{SPOKEN[name]} ran {format_speedup(ratios[name])}" for name in slower) + ".")
    if level and faster:
        sentences.append(f"Within {MATERIAL_SPEEDUP:.2f}× of {BASELINES[group]}{per}: "
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
