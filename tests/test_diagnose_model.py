"""`tfspeedlab.diagnosis.model`: a reader's own Keras model through the predict ladder and the
training calls.

The one timed verdict asserted is the predict ladder's: on a small MLP, calling the model (directly
or through a tf.function) is tens of times faster than ``predict`` in the guide's measurements, far
past the 1.10× threshold at any small batch. Everything else is structure: which calls ran, who
chose the loss, the JSON round trip, the report's shape, and the errors a reader can make."""

from __future__ import annotations

import json

import keras
import pytest
from conftest import synthetic_results

from tfspeedlab.core.stats.materiality import MATERIAL_SPEEDUP
from tfspeedlab.diagnosis import model as diagnose_model_module
from tfspeedlab.diagnosis.codec import model_from_json, model_to_json
from tfspeedlab.diagnosis.model import diagnose_model
from tfspeedlab.diagnosis.model_core import CALLS, FROM_FILE, FROM_TFSPEEDLAB, PREDICT, START_PAGE, TRAINING
from tfspeedlab.diagnosis.report import model_report
from tfspeedlab.diagnosis.targets import TargetError

BATCH = 8
BUDGET_S = 0.2
# The machine a diagnosis kept in a test claims (a saved diagnosis is a results file, with its environment).
ENVIRONMENT = synthetic_results().environment


def _mlp():
    return keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10)])


@pytest.fixture(scope="module")
def compiled_model(tmp_path_factory):
    model = _mlp()
    model.compile(keras.optimizers.SGD(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    path = tmp_path_factory.mktemp("model") / "model.keras"
    model.save(path)
    return path


@pytest.fixture(scope="module")
def diagnosis(compiled_model):
    return diagnose_model(compiled_model, BATCH, budget_s=BUDGET_S)


def test_every_call_is_measured_with_the_files_loss_and_optimizer(diagnosis):
    assert list(diagnosis.calls) == [*CALLS[PREDICT], *CALLS[TRAINING]] and not diagnosis.unavailable
    assert diagnosis.input_shapes == ((BATCH, 32),) and not diagnosis.interrupted
    assert diagnosis.compiled_by == FROM_FILE
    assert diagnosis.loss.startswith("SparseCategoricalCrossentropy") and diagnosis.optimizer.startswith("SGD")
    # Every call but each group's baseline has its speed-up.
    assert set(diagnosis.speedups) == set(CALLS[PREDICT][1:]) | (set(CALLS[TRAINING]) - {"train_on_batch"})


def test_the_verdict_says_calling_the_model_beats_predict(diagnosis):
    direct = max(diagnosis.speedups["model(x)"].low, diagnosis.speedups["tf.function"].low)
    assert direct >= MATERIAL_SPEEDUP
    assert diagnosis.verdict.startswith("For one batch at a time, ")
    assert "against predict, " in diagnosis.verdict and "\u00a0faster [" in diagnosis.verdict
    assert "For training" in diagnosis.verdict


def test_the_diagnosis_round_trips_through_json(diagnosis):
    data = json.loads(json.dumps(model_to_json(diagnosis, ENVIRONMENT)))
    assert data["diagnosis"]["kind"] == "keras model"
    again = model_from_json(data)
    assert again == diagnosis
    assert again.speedups == diagnosis.speedups and model_report(again).text() == model_report(diagnosis).text()


def test_the_text_report_has_its_tables_and_ends_in_the_verdict(diagnosis, compiled_model):
    report = model_report(diagnosis).text()
    lines = report.splitlines()
    assert lines[0] == f"tfspeedlab diagnose {compiled_model} --batch {BATCH}" and lines[1] == ""
    assert all(name in report for name in (*CALLS[PREDICT], *CALLS[TRAINING]))
    assert "predict-loop.md" in report and "training-apis.md" in report
    last = report.split("\n\n")[-1]
    assert last.startswith("Verdict: ") and last == "Verdict: " + diagnosis.verdict


def test_an_uncompiled_model_trains_with_sgd_and_mse_chosen_by_tfspeedlab(tmp_path):
    path = tmp_path / "plain.keras"
    _mlp().save(path)
    found = diagnose_model(path, 4, budget_s=0.1)
    assert found.compiled_by == FROM_TFSPEEDLAB and found.loss == "mse" and found.optimizer.startswith("SGD")
    assert all(name in found.calls for name in CALLS[TRAINING])
    assert "chosen by tfspeedlab" in model_report(found).text()


def test_ctrl_c_during_the_training_calls_keeps_the_predict_ladder(compiled_model, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(diagnose_model_module, "training_rungs", interrupted)
    lines = []
    found = diagnose_model(compiled_model, 2, budget_s=0.1, progress=lines.append)
    assert found.interrupted and lines[0] == "loading model.keras"
    assert list(found.calls) == list(CALLS[PREDICT]) and not found.unavailable  # training: neither
    assert "not measured (interrupted)" in model_report(found).text()
    assert model_from_json(json.loads(json.dumps(model_to_json(found, ENVIRONMENT)))) == found


def test_a_training_call_that_raises_is_recorded_and_the_others_go_on(compiled_model, monkeypatch):
    real = diagnose_model_module.training_rungs

    def one_broken(*args):
        rungs = real(*args)

        def broken():
            raise RuntimeError("no step for you\nsecond line")

        return {**rungs, "train_on_batch": broken}

    monkeypatch.setattr(diagnose_model_module, "training_rungs", one_broken)
    found = diagnose_model(compiled_model, 2, budget_s=0.1)
    assert found.unavailable == {"train_on_batch": "RuntimeError: no step for you"}
    assert "fit, steps_per_execution=1" in found.calls
    assert "train_on_batch could not run (RuntimeError: no step for you)" in found.verdict


def test_bad_inputs_are_target_errors(tmp_path, compiled_model):
    with pytest.raises(TargetError, match="no file"):
        diagnose_model(tmp_path / "missing.keras", 8)
    text = tmp_path / "x.keras"
    text.write_text("not a model")
    with pytest.raises(TargetError, match="not a model Keras can load.*Keras said"):
        diagnose_model(text, 8)
    with pytest.raises(TargetError, match="--batch must be at least 1"):
        diagnose_model(compiled_model, 0)


def test_an_input_with_unknown_sizes_besides_the_batch_is_a_target_error(tmp_path):
    path = tmp_path / "sequence.keras"
    keras.Sequential([keras.Input((None, 8)), keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(2)]).save(path)
    with pytest.raises(TargetError, match="unknown sizes besides the batch"):
        diagnose_model(path, 8)


@pytest.mark.parametrize("damage", [
    lambda data: data["diagnosis"].update(kind="function"),
    lambda data: data["diagnosis"].pop("batch"),
    lambda data: data["diagnosis"].update(batch=True),
    lambda data: data["diagnosis"].update(input_shapes=[[8, None]]),
    lambda data: data["cases"][0]["runs"][0].update(samples_s=[]),
    lambda data: data["cases"][1]["runs"][0].update(first_call_s="soon"),
    lambda data: data["cases"][2].update(label="model.predict"),
    lambda data: data["cases"].pop(5),  # neither timed nor failed, yet not interrupted
    lambda data: data.update(cases="all of them"),
    lambda data: data["diagnosis"].clear() or data["diagnosis"].update(kind="keras model"),
    lambda data: data["diagnosis"].update(load_s=-1.0),
    lambda data: data["diagnosis"]["memory"].update(parts_per_call_bytes=[1.0]),
    lambda data: data["diagnosis"]["memory"].update(calls=True),
])
def test_malformed_json_is_a_clear_value_error(diagnosis, damage):
    data = json.loads(json.dumps(model_to_json(diagnosis, ENVIRONMENT)))
    damage(data)
    with pytest.raises(ValueError, match=r"^<model diagnosis>: field '"):
        model_from_json(data)


def test_the_report_gives_the_load_the_first_prediction_and_memory_over_predict_calls(diagnosis):
    assert diagnosis.load_s > 0
    predict = diagnosis.calls["predict"].measurement
    assert diagnosis.first_prediction_s == pytest.approx(diagnosis.load_s + predict.first_call_s)
    memory = diagnosis.memory
    assert memory.calls >= len(memory.parts_per_call) == 5
    report = model_report(diagnosis).text()
    assert "Loading the file: " in report and "loading and the first predict call: " in report
    assert f"Resident memory over {memory.calls} predict calls: " in report and "memory-startup.md" in report
    assert ("memory-startup.md", START_PAGE[1]) in diagnosis.links


def test_a_report_kept_before_load_and_memory_were_measured_still_reads(diagnosis):
    data = json.loads(json.dumps(model_to_json(diagnosis, ENVIRONMENT)))
    for field in ("load_s", "first_prediction_s", "memory"):
        data["diagnosis"].pop(field)
    again = model_from_json(data)
    assert again.load_s is None and again.memory is None and again.first_prediction_s is None
    assert "Loading the file" not in model_report(again).text() and len(again.links) == 2
