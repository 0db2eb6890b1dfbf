"""What the commands print besides their answer: no warning of the project's own, none of
TensorFlow's, XLA's or XProf's log lines below errors unless ``--verbose`` asks, no CUDA probe on a
CPU-only run, a suggestion for a misspelt example, nothing that reads as a run that started before
a refusal, and plain words for a file that is not JSON."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import PASSING_EXAMPLE, REPO
from tfspeedlab import cli
from tfspeedlab.core.results.schema import ResultsFileError
from tfspeedlab.core.results.store import load_results
from tfspeedlab.harness import native_logs

# A native log line as TensorFlow (``2026-12-07 14:50:00.123456: W tensorflow/…``) or Abseil
# (``W0000 00:00:1765000000.123456  1234 file.cc:12]``) prints it, anywhere in the output.
NATIVE_LINE = re.compile(r"^(?:[IWEF]\d{4} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] )", re.MULTILINE)
# A Python warning as the warnings module prints it (``<frozen runpy>:128: RuntimeWarning: …``).
PYTHON_WARNING = re.compile(r"\b\w*Warning: ")
TINY_TF_EXAMPLE = '''
# # One TensorFlow op
import tensorflow as tf
import tfspeedlab

def workload(quick=False):
    x = tf.ones([4, 4])
    return tfspeedlab.Workload(name="one_op", title="One op", budget_s=0.05,
                               cases=[tfspeedlab.Case("relu", tf.nn.relu, (x,))])
'''
FUNCTION = '''
import tensorflow as tf

def small(x):
    for _ in range(10):
        x = tf.nn.relu(x * 0.99 + 0.01)
    return x

def make_inputs():
    return (tf.ones([10, 10]),), {}
'''


def as_a_reader_runs_it(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """The command with the environment a reader has: none of the test suite's own quieting."""
    env = {name: value for name, value in os.environ.items()
           if name not in (native_logs.LEVEL_VARIABLE, native_logs.VERBOSE_VARIABLE, native_logs.FILTERED_VARIABLE,
                           "CUDA_VISIBLE_DEVICES")}
    return subprocess.run([sys.executable, "-m", "tfspeedlab", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env=env)


def assert_quiet(completed: subprocess.CompletedProcess) -> None:
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert not NATIVE_LINE.search(output), NATIVE_LINE.findall(output)[:5] or output[-4000:]
    assert not PYTHON_WARNING.search(output), output[-4000:]
    assert "cuInit" not in output and "absl::InitializeLog" not in output


@pytest.fixture
def examples(tmp_path):
    folder = tmp_path / "examples"
    folder.mkdir()
    (folder / "passing.py").write_text(textwrap.dedent(PASSING_EXAMPLE))
    (folder / "one_op.py").write_text(textwrap.dedent(TINY_TF_EXAMPLE))
    return folder


# -- TensorFlow's log lines, the CUDA probe and the project's own warnings --

@pytest.mark.slow  # a quick run of small_ops: TensorFlow imported, every mode timed
def test_a_quick_run_of_small_ops_prints_no_native_log_line_and_no_warning(tmp_path):
    completed = as_a_reader_runs_it("run", "small_ops", "--quick", "--out", str(tmp_path / "mine"))
    assert_quiet(completed)
    assert "small_ops: ok" in completed.stderr


@pytest.mark.slow  # TensorFlow imported, a process forked from it
def test_a_forked_worker_starts_without_a_runpy_warning(examples, tmp_path):
    # A quick CPU run forks each worker from a process that imported TensorFlow (and the worker module).
    completed = as_a_reader_runs_it("--examples", str(examples), "run", "one_op", "--quick", "--runner", "cpu",
                                    "--out", str(tmp_path / "mine"))
    assert_quiet(completed)
    assert "found in sys.modules" not in completed.stderr


@pytest.mark.slow  # TensorFlow imported in a fresh process
def test_verbose_shows_tensorflows_own_lines(examples, tmp_path):
    completed = as_a_reader_runs_it("--examples", str(examples), "run", "one_op", "--quick", "--runner", "cpu",
                                    "--out", str(tmp_path / "mine"), "--verbose")
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert NATIVE_LINE.search(completed.stderr), completed.stderr[-4000:]


@pytest.mark.slow  # a diagnosis: TensorFlow, three modes timed, the profiler
def test_diagnose_prints_its_progress_and_report_without_native_log_lines(tmp_path):
    source = tmp_path / "mine.py"
    source.write_text(textwrap.dedent(FUNCTION))
    completed = as_a_reader_runs_it("diagnose", f"{source}:small", "--inputs", f"{source}:make_inputs",
                                    "--budget", "20")
    assert_quiet(completed)
    assert "profiling" in completed.stderr and "Verdict:" in completed.stdout  # the profiler ran, and XProf


# -- what reaches standard error through the filter --

FILTER_SCRIPT = '''
import os, sys
from tfspeedlab.harness import native_logs
with native_logs.filtered():
    os.write(2, b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\\n")
    os.write(2, b"E0000 00:00:1765000000.123456    1234 xplane_to_tools.cc:12] No UnifiedProfileProcessor registered\\n")
    os.write(2, b"W0000 00:00:1765000000.123456    1234 profiler.cc:40] delay_ms was ignored\\n")
    print("progress line", file=sys.stderr, flush=True)
    os.write(2, b"2026-12-07 14:50:00.123456: I tensorflow/core/util/port.cc:153] oneDNN custom operations are on\\n")
    os.write(2, b"E0000 00:00:1765000000.123456    1234 real.cc:1] a real error\\n")
    os.system("echo from a child >&2")
    os.write(2, b"half a line, then ")
    os.write(2, b"the rest\\n")
    os.write(2, b"E1 without its end")
print("after", file=sys.stderr)
'''


def _filtered_output(**env: str) -> str:
    base = {name: value for name, value in os.environ.items()
            if name not in (native_logs.VERBOSE_VARIABLE, native_logs.FILTERED_VARIABLE)}
    completed = subprocess.run([sys.executable, "-c", FILTER_SCRIPT], cwd=REPO, capture_output=True, text=True,
                               timeout=60, env={**base, **env})
    assert completed.returncode == 0, completed.stderr
    return completed.stderr


def test_the_filter_drops_log_lines_below_errors_and_known_noise_and_passes_the_rest():
    assert _filtered_output().splitlines() == [
        "progress line", "E0000 00:00:1765000000.123456    1234 real.cc:1] a real error", "from a child",
        "half a line, then the rest", "E1 without its endafter"]


def test_with_verbose_the_filter_lets_every_line_through():
    printed = _filtered_output(**{native_logs.VERBOSE_VARIABLE: "1"})
    assert "No UnifiedProfileProcessor registered" in printed and "delay_ms" in printed
    assert "oneDNN custom operations" in printed and "absl::InitializeLog" in printed


@pytest.mark.parametrize("line, hidden", [
    (b"W0000 00:00:1765000000.1 99 a.cc:1] x\n", True),
    (b"I1207 14:50:00.123456 99 a.cc:1] x\n", True),
    (b"E0000 00:00:1765000000.1 99 util.cc:131] oneDNN supports DT_HALF only on platforms with AVX-512. "
     b"Falling back to the default Eigen-based implementation if present.\n", True),
    (b"E0000 00:00:1765000000.1 99 a.cc:1] out of memory\n", False),
    (b"F0000 00:00:1765000000.1 99 a.cc:1] check failed\n", False),
    (b"[1/25] call_cost: The fixed cost of a call\n", False),
    (b"Error: W0000 is a name\n", False),
])
def test_which_lines_are_hidden(line, hidden):
    assert native_logs.hidden(line) is hidden


@pytest.mark.parametrize("gpu_to_find", [False, True])
def test_cudas_failed_probe_is_noise_only_where_there_is_no_gpu_to_find(monkeypatch, gpu_to_find):
    monkeypatch.setattr(native_logs, "no_gpu_to_find", lambda: not gpu_to_find)
    line = (b"E0000 00:00:1796655046.575075   29671 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: "
            b"Failed call to cuInit: UNKNOWN ERROR (303)\n")
    assert native_logs.hidden(line) is not gpu_to_find


# -- refusals and errors --

def test_a_misspelt_example_gets_the_nearest_name(capsys):
    assert cli.main(["run", "smal_ops"]) == 2
    error = capsys.readouterr().err
    assert "smal_ops (did you mean small_ops?)" in error and error.count("\n") == 1
    assert cli.main(["run", "zzzzzz"]) == 2
    assert "did you mean" not in capsys.readouterr().err  # nothing near: no guess


def test_a_gpu_run_without_a_gpu_refuses_before_announcing_any_example(examples, tmp_path):
    out = tmp_path / "results"
    completed = subprocess.run(
        [sys.executable, "-m", "tfspeedlab", "--examples", str(examples), "run", "passing", "--runner", "gpu",
         "--out", str(out)], cwd=REPO, capture_output=True, text=True, timeout=300)
    if completed.returncode == 0:
        pytest.skip("this machine has a GPU")
    assert completed.returncode == 3
    assert "TensorFlow sees no GPU" in completed.stderr
    assert "[1/" not in completed.stderr and "passing" not in completed.stderr
    assert not out.exists()


@pytest.mark.parametrize("content, problem", [
    (b'{\n  "schema": "tfspeedlab.results",\n    ,\n}', "not JSON (line 3, column 5: expecting"),
    (b"\xff\xfe{}", "not UTF-8 text (byte 0xff at position 0)"),
])
def test_a_file_that_is_not_json_is_named_in_plain_words(tmp_path, content, problem):
    path = tmp_path / "demo.json"
    path.write_bytes(content)
    with pytest.raises(ResultsFileError) as raised:
        load_results(path)
    assert str(raised.value).startswith(f"{path}: {problem}")
    assert "field '<file>'" not in str(raised.value)


def test_a_command_refusing_a_file_that_is_not_json_says_so_in_one_line(tmp_path, capsys):
    for side in ("first", "second"):
        (tmp_path / side / "cpu").mkdir(parents=True)
        (tmp_path / side / "cpu" / "demo.json").write_text("{\n  oops\n}\n")
    assert cli.main(["pool", str(tmp_path / "first"), str(tmp_path / "second"), "--into", str(tmp_path / "into")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "demo.json: not JSON (line 2, column 3" in error, error
