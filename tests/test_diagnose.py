"""`tfspeedlab.run.diagnose`: the verdicts for the three kinds of function the guide measures (many
small ops, one big kernel, a function that retraces), the retracing probe, and the break-even.

The verdicts rest on measured ratios, but only where the guide's own measurements put them far
from the threshold (150 small ops: about ten times faster in a graph; a 1024 × 1024 matmul: the
same kernel either way); the retracing probe counts traces, which do not depend on timing."""

from __future__ import annotations

import json

import pytest
import tensorflow as tf

from tfspeedlab.cli import main
from tfspeedlab.measure.measurement import Measurement
from tfspeedlab.run.diagnose import MATERIAL_SPEEDUP, break_even, diagnose, probe_retracing


def many_small_ops(x):
    for _ in range(50):
        x = tf.nn.relu(x * 0.99 + 0.01)
    return x


def one_big_kernel(a):
    return tf.matmul(a, a)


def scaled(x, scale):
    return x * scale + 1.0


def test_many_small_ops_get_a_graph_and_its_break_even():
    diagnosis = diagnose(many_small_ops, tf.random.normal([10, 10], seed=0), budget_s=0.3)
    assert diagnosis.speedups["tf.function"].low >= MATERIAL_SPEEDUP
    assert diagnosis.verdict.startswith("Wrap it in tf.function")
    assert diagnosis.break_even_calls["tf.function"] >= 1
    assert diagnosis.op_count >= 150  # three ops per step, fifty steps, plus the function's own


def test_one_big_kernel_gets_no_graph_advice():
    diagnosis = diagnose(one_big_kernel, tf.random.normal([1024, 1024], seed=0), budget_s=0.3)
    assert diagnosis.verdict.startswith("tf.function makes no material difference")
    # A square matrix with one more row is no valid input: no retracing verdict is drawn from it.
    assert diagnosis.retracing.batch_size_traces is None


def test_python_numbers_and_new_batch_sizes_are_reported_with_their_fixes():
    probe = probe_retracing(scaled, (tf.ones([8, 4]), 0.5), {})
    assert probe.first_traces == 1
    assert probe.batch_size_traces == 1
    assert probe.python_number_traces == 2  # one new trace per new Python value
    assert any("input_signature" in fix for fix in probe.fixes)
    assert any("tensors" in fix for fix in probe.fixes)


def test_the_python_api_is_tfspeedlab_diagnose_with_the_readers_arguments():
    import tfspeedlab

    diagnosis = tfspeedlab.diagnose(scaled, tf.ones([4, 4]), scale=tf.constant(3.0), budget_s=0.1)
    assert isinstance(diagnosis, tfspeedlab.Diagnosis)
    assert diagnosis.modes["eager"].measurement.median_s > 0
    assert diagnosis.retracing.python_number_traces is None  # the scale came as a tensor


def test_keyword_arguments_reach_the_function():
    probe = probe_retracing(scaled, (tf.ones([2, 2]),), {"scale": tf.constant(2.0)})
    assert probe.python_number_traces is None and probe.first_traces == 1


def _measurement(median_s: float, first_call_s: float) -> Measurement:
    return Measurement((median_s,) * 5, 10, first_call_s, "test")


@pytest.mark.parametrize("eager, graph, expected", [
    ((1e-3, 1e-3), (1e-4, 10e-3), 10),  # 9 ms more on the first call, 0.9 ms saved per call
    ((1e-3, 1e-3), (2e-3, 10e-3), None),  # never cheaper per call: never pays back
    ((1e-3, 5e-3), (1e-4, 2e-3), 1.0),  # its first call is the cheaper one too
])
def test_break_even_counts_calls_until_the_first_call_is_paid_back(eager, graph, expected):
    assert break_even(_measurement(*eager), _measurement(*graph)) == expected


# ---------------------------------------------------------------- the command


SAMPLE = '''
import tensorflow as tf

def many_small_ops(x):
    for _ in range(50):
        x = tf.nn.relu(x * 0.99 + 0.01)
    return x

def make_inputs():
    return (tf.random.normal([10, 10], seed=0),), {}

def make_wrong_inputs():
    return (tf.ones([3]), tf.ones([4])), {}

def not_tensorflow(x):
    return x + 1

def make_numbers():
    return (3,), {}

def raises(x):
    raise RuntimeError("boom in the reader's code")

def inputs_raise():
    raise ValueError("no data here")

def inputs_of_the_wrong_kind():
    return 42
'''


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "sample.py"
    path.write_text(SAMPLE)
    return path


def test_the_command_prints_a_report_with_every_mode_and_the_verdict(sample, capsys):
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "0.2"]) == 0
    out = capsys.readouterr().out
    for part in ("eager", "tf.function", "XLA", "Ops in the traced graph", "Traces: 1 on the first call",
                 "Verdict: Wrap it in tf.function"):
        assert part in out


def test_a_markdown_report_is_written_to_keep(sample, tmp_path, capsys):
    target = tmp_path / "reports" / "diagnosis.md"
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "0.1",
                 "--markdown", str(target)]) == 0
    text = target.read_text()
    assert text.startswith("# Diagnosis of `") and "```text" in text and "**Verdict.** " in text
    assert f"wrote {target}" in capsys.readouterr().err


def test_json_report_holds_the_samples_and_the_verdict(sample, capsys):
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "0.2",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["modes"]) == {"eager", "tf.function", "XLA"}
    assert report["modes"]["tf.function"]["speedup_over_eager"]["low"] > 1
    assert report["verdict"].startswith("Wrap it in tf.function")


@pytest.mark.parametrize("args, message", [
    (["{tmp}/missing.py:f"], "no file"),
    (["{sample}:nope"], "defines no 'nope'"),
    (["no_such_package.module:f"], "no module"),
    (["just_a_name"], "write it as path/to/file.py:function"),
    (["{sample}:raises", "--inputs", "{sample}:make_inputs"], "raised RuntimeError when called with the inputs"),
    (["{sample}:not_tensorflow", "--inputs", "{sample}:make_numbers"], "neither takes nor returns a TensorFlow"),
    (["{sample}:many_small_ops", "--inputs", "{sample}:make_wrong_inputs"], "when called with the inputs"),
    (["{sample}:many_small_ops"], "give it inputs with --inputs"),
    (["{sample}:many_small_ops", "--inputs", "{sample}:inputs_raise"], "raised ValueError: no data here"),
    (["{sample}:many_small_ops", "--inputs", "{sample}:inputs_of_the_wrong_kind"], "return (args, kwargs)"),
    (["{sample}:many_small_ops", "--inputs", "{sample}:make_inputs", "--budget", "0"], "--budget"),
])
def test_bad_input_is_a_clear_error_and_exit_2(sample, tmp_path, capsys, args, message):
    code = main(["diagnose", *(arg.format(sample=sample, tmp=tmp_path) for arg in args)])
    assert code == 2
    error = capsys.readouterr().err
    assert message in error and "tfspeedlab: error:" in error
