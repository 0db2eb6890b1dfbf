"""``tfspeedlab diagnose model.keras --backends …``: the reader's model on each Keras 3 backend, in fresh
processes, compared with the first backend named; a backend that is missing or unknown is refused
before anything is timed."""

from __future__ import annotations

import importlib.util
import json

import keras
import pytest

from conftest import run_cli
from tfspeedlab.diagnosis import backends as diagnose_backends
from tfspeedlab.diagnosis.targets import TargetError
from tfspeedlab.harness.exits import UsageError

JAX_INSTALLED = importlib.util.find_spec("jax") is not None


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.01), "mse")
    path = tmp_path_factory.mktemp("backends") / "model.keras"
    model.save(path)
    return path


def test_backend_names_are_checked_and_kept_in_order(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: object())  # as if all were installed
    assert diagnose_backends.parse_backends(" JAX , tensorflow,jax,torch ") == ("jax", "tensorflow", "torch")
    with pytest.raises(UsageError, match="'theano' is no Keras 3 backend"):
        diagnose_backends.parse_backends("tensorflow,theano")
    with pytest.raises(UsageError, match="at least two backends"):
        diagnose_backends.parse_backends("tensorflow,tensorflow")


def test_a_backend_that_is_not_installed_is_named_with_its_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "torch" else real(name, *rest))
    with pytest.raises(TargetError, match=r"the torch backend needs torch, which is not installed here: pip install torch"):
        diagnose_backends.parse_backends("tensorflow,torch")


@pytest.mark.slow
@pytest.mark.skipif(not JAX_INSTALLED, reason='needs JAX: pip install -e ".[compare]"')
def test_the_report_names_each_backends_time_and_the_verdict(model_file, tmp_path):
    saved = tmp_path / "report.json"
    completed = run_cli("diagnose", str(model_file), "--backends", "tensorflow,jax", "--batch", "8",
                        "--budget", "6", "--save", str(saved))
    assert completed.returncode == 0, completed.stderr[-3000:]
    text = completed.stdout
    assert "--backends tensorflow,jax" in text.splitlines()[0]
    for call in ("predict", "model(x)", "train_on_batch"):
        assert sum(line.split()[:1] == [call] for line in text.splitlines()) == 2, text
    # Saved from TensorFlow, the file says jit_compile=False; each backend still runs its own default.
    assert 'jit_compile="auto" resolved to: tensorflow not compiled, jax XLA/compiled' in text
    assert "Verdict:" in text and "against tensorflow" in text
    data = json.loads(saved.read_text())
    assert data["kind"] == "keras backends" and data["backends"] == ["tensorflow", "jax"]
    assert {item["backend"] for item in data["comparisons"]} == {"jax"}
    # Two fresh processes per backend: every comparison can carry a verdict.
    assert all(len(found["samples_s"]) == 2 for found in data["calls"]["predict"].values())
    assert data["environment"]["tensorflow"]


def test_an_unknown_backend_exits_2_with_one_line_before_timing(model_file):
    completed = run_cli("diagnose", str(model_file), "--backends", "tensorflow,mxnet", "--budget", "1")
    assert completed.returncode == 2
    assert "'mxnet' is no Keras 3 backend" in completed.stderr and "Traceback" not in completed.stderr


def test_backends_are_for_a_model_file(tmp_path):
    script = tmp_path / "f.py"
    script.write_text("import tensorflow as tf\ndef f():\n    return tf.constant(1.0)\n")
    completed = run_cli("diagnose", f"{script}:f", "--backends", "tensorflow,jax", "--budget", "1")
    assert completed.returncode == 2 and "--backends is for a Keras model file" in completed.stderr


def _runs(per_call_s, first_call_s, spread=0.02):
    """Two processes' blocks around ``per_call_s``, as the backend probes write them."""
    from tfspeedlab.core.measure.measurement import Measurement

    return tuple(Measurement(tuple(per_call_s * (1 + spread * (k % 5 - 2) / 2 + 0.01 * p) for k in range(20)),
                             10, first_call_s, "test") for p in range(2))


def test_the_report_pays_back_a_costlier_first_call_and_says_when_there_is_none():
    from tfspeedlab.core.results.schema import CaseResult
    from tfspeedlab.diagnosis.backend_core import BackendDiagnosis, report, to_json

    def case(call, backend, per_call_s, first_call_s):
        return CaseResult(call, {"backend": backend}, _runs(per_call_s, first_call_s))

    calls = {"train_on_batch": {"tensorflow": case("train_on_batch", "tensorflow", 2e-3, 0.1),
                                "jax": case("train_on_batch", "jax", 1e-3, 1.1)},
             "predict": {"tensorflow": case("predict", "tensorflow", 30e-3, 0.2),
                         "jax": case("predict", "jax", 1e-3, 0.05)},
             "model(x)": {"tensorflow": case("model(x)", "tensorflow", 1e-3, 0.01)}}
    found = BackendDiagnosis("m.keras", 32, ("tensorflow", "jax"), calls, {("model(x)", "jax"): "RuntimeError: cannot"},
                             {"tensorflow": False, "jax": True})
    by_call = {item.call: item for item in found.comparisons()}
    # 1 s more on the first call, 1 ms saved per call: paid back after about a thousand calls.
    assert 900 <= by_call["train_on_batch"].pays_back_after <= 1100
    assert by_call["predict"].pays_back_after == 0 and "model(x)" not in by_call
    text = report(found).text()
    assert "\n\nVerdict:\ntrain_on_batch: against tensorflow, jax ran" in text  # a line per call, below the lead
    assert "predict: against tensorflow, jax ran" in text and "its first call was no costlier" in text
    assert "**Verdict.** train_on_batch: against tensorflow" in report(found).markdown()
    assert "could not run: RuntimeError: cannot" in text
    assert "tensorflow not compiled, jax XLA/compiled" in text
    data = to_json(found)
    assert data["calls"]["model(x)"]["jax"] == {"error": "RuntimeError: cannot"}
