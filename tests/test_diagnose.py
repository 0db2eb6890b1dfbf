"""`tfspeedlab.diagnosis.function`: the verdicts for the three kinds of function the guide measures (many
small ops, one big kernel, a function that retraces), the retracing probe, and the break-even.

The verdicts rest on measured ratios, but only where the guide's own measurements put them far
from the threshold (150 small ops: about ten times faster in a graph; a 1024 × 1024 matmul: the
same kernel either way); the retracing probe counts traces, which do not depend on timing."""

from __future__ import annotations

import dataclasses
import json
import signal

import pytest
import tensorflow as tf
from conftest import run_cli, synthetic_results

from tfspeedlab.cli import main
from tfspeedlab.core.measure import timer
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import CaseResult, from_dict
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.cost_model import break_even
from tfspeedlab.core.stats.materiality import MATERIAL_SPEEDUP, agrees
from tfspeedlab.diagnosis import function as diagnose_module, threads as diagnose_threads
from tfspeedlab.diagnosis.codec import UNSAVED, from_results, to_json
from tfspeedlab.diagnosis.function import diagnose, probe_retracing
from tfspeedlab.diagnosis.function_core import Diagnosis, pool
from tfspeedlab.diagnosis.report import function_report
from tfspeedlab.diagnosis.targets import TargetError

# A budget every part fits in on any machine, once the timed blocks take a small share of it (below):
# parts that fit run as fast as they can, so a larger budget costs these tests no time.
ROOMY_BUDGET_S = 60.0
# The machine a diagnosis kept in a test claims (a saved diagnosis is a results file, with its environment).
ENVIRONMENT = synthetic_results().environment


@pytest.fixture(autouse=True)
def timed_blocks_take_little_of_the_budget(monkeypatch):
    """The timed blocks get 2% of the budget instead of half. Which later parts run (the retracing
    probe, the profiler) is decided against the clock; these tests check what a diagnosis does with
    its budget, not how fast this machine is, and a loaded 2-core CI runner once spent a 12 s budget
    before XLA's profile and a 1 s budget before the retracing probe."""
    monkeypatch.setattr(diagnose_module, "TIMING_SHARE", 0.02)


@pytest.fixture
def without_profiler(monkeypatch):
    """The profiler's split skipped as too costly for the budget (its own tests keep it): the
    other tests need every other part, and three profiles cost seconds each."""
    monkeypatch.setattr(diagnose_module, "PROFILE_FIXED_S", float("inf"))


def many_small_ops(x):
    for _ in range(50):
        x = tf.nn.relu(x * 0.99 + 0.01)
    return x


def one_big_kernel(a):
    return tf.matmul(a, a)


def scaled(x, scale):
    return x * scale + 1.0


def test_many_small_ops_get_a_graph_and_its_break_even(without_profiler):
    diagnosis = diagnose(many_small_ops, tf.random.normal([10, 10], seed=0), budget_s=ROOMY_BUDGET_S)
    assert diagnosis.speedups["tf.function"].low >= MATERIAL_SPEEDUP
    assert diagnosis.verdict.startswith("Wrap it in tf.function")
    assert diagnosis.break_even_calls["tf.function"] >= 1
    assert diagnosis.op_count >= 150  # three ops per step, fifty steps, plus the function's own


def test_one_big_kernel_gets_no_graph_advice(without_profiler):
    diagnosis = diagnose(one_big_kernel, tf.random.normal([1024, 1024], seed=0), budget_s=ROOMY_BUDGET_S)
    assert diagnosis.verdict.startswith("tf.function changes little")
    # A square matrix with one more row is no valid input: no retracing verdict is drawn from it.
    assert diagnosis.retracing.batch_size_traces is None
    # Set against the guide's cost model, one matmul costs far more than one elementwise op.
    assert diagnosis.placement.ops == 1
    assert "kernels do more work than elementwise arithmetic" in diagnosis.placement.reading(diagnosis)


def test_a_small_budget_skips_the_profiler_and_says_so():
    diagnosis = diagnose(many_small_ops, tf.ones([10, 10]), budget_s=0.3)
    assert not diagnosis.host_split
    assert all("budget was spent" in why for part, why in diagnosis.skipped.items() if "host-time" in part)
    assert "Not measured: host-time split" in function_report(diagnosis).text()


def test_with_budget_for_it_the_profiler_splits_host_time_by_layer():
    diagnosis = diagnose(many_small_ops, tf.ones([10, 10]), budget_s=ROOMY_BUDGET_S)
    assert set(diagnosis.host_split) == {"eager", "tf.function", "XLA"}
    eager, graph = diagnosis.host_split["eager"].fractions(), diagnosis.host_split["tf.function"].fractions()
    # 150 ops issued one by one from Python against one graph call: the shares move the guide's way.
    assert eager["dispatch"] + eager["python"] > graph["dispatch"] + graph["python"]
    assert abs(sum(eager.values()) - 1) < 1e-6
    assert "split by TensorFlow's profiler" in function_report(diagnosis).text()


def test_ctrl_c_while_timing_keeps_the_blocks_timed_so_far(monkeypatch):
    blocks = []
    time_block = timer.TimedCall.time_block

    def interrupted_after_six(self):
        if len(blocks) == 6:  # two blocks of each mode
            raise KeyboardInterrupt
        blocks.append(self)
        time_block(self)

    monkeypatch.setattr(timer.TimedCall, "time_block", interrupted_after_six)
    diagnosis = diagnose(many_small_ops, tf.ones([10, 10]), budget_s=ROOMY_BUDGET_S)
    assert diagnosis.interrupted
    assert all(diagnosis.modes[mode].measurement.blocks == 2 for mode in ("eager", "tf.function", "XLA"))
    assert diagnosis.skipped["retracing probe"] == "interrupted"
    assert diagnosis.verdict.endswith(" Interrupted: these are the blocks timed so far.")


def test_a_diagnosis_round_trips_through_json_and_reads_the_same(without_profiler):
    diagnosis = diagnose(scaled, tf.ones([8, 4]), 0.5, budget_s=ROOMY_BUDGET_S)
    again = from_results(from_dict(json.loads(json.dumps(to_json(diagnosis, ENVIRONMENT))), UNSAVED))
    assert function_report(again).text() == function_report(diagnosis).text()
    assert again.verdict == diagnosis.verdict and "Pass the numbers as tensors" in again.verdict


def test_diagnoses_from_several_processes_pool_into_one_with_every_run(without_profiler):
    first, second = (diagnose(many_small_ops, tf.ones([10, 10]), budget_s=ROOMY_BUDGET_S) for _ in range(2))
    pooled = pool([first, second])
    assert pooled.processes == 2
    assert pooled.modes["XLA"].runs == first.modes["XLA"].runs + second.modes["XLA"].runs
    assert pooled.modes["eager"].measurement.blocks == first.modes["eager"].measurement.blocks + \
        second.modes["eager"].measurement.blocks
    assert pooled.budget_s == pytest.approx(2 * ROOMY_BUDGET_S)
    assert "Timed in 2 fresh processes" in function_report(pooled).text()
    assert from_results(from_dict(json.loads(json.dumps(to_json(pooled, ENVIRONMENT))), UNSAVED)).modes == pooled.modes
    with pytest.raises(ValueError, match="one target"):
        pool([first, diagnose(scaled, tf.ones([8, 4]), 0.5, budget_s=0.2)])


@pytest.mark.parametrize("damage", [
    lambda data: data.pop("diagnosis"),
    lambda data: data["diagnosis"].update(kind="keras model"),
    lambda data: data["cases"].pop(0),
    lambda data: data["cases"][0]["runs"][0].update(samples_s=[]),
    lambda data: data["cases"][2]["runs"][0].update(first_call_s="soon"),
    lambda data: data["cases"][2].update(runs=[]),
])
def test_a_malformed_diagnosis_file_is_a_clear_error(damage):
    data = to_json(diagnose(scaled, tf.ones([8, 4]), 0.5, budget_s=0.2), ENVIRONMENT)
    damage(data)
    with pytest.raises(ValueError):
        from_results(from_dict(data, UNSAVED))


def test_python_numbers_and_new_batch_sizes_are_reported_with_their_fixes():
    probe = probe_retracing(scaled, (tf.ones([8, 4]), 0.5), {})
    assert probe.first_traces == 1
    assert probe.batch_size_traces == 1
    assert probe.python_number_traces == 2  # one new trace per new Python value
    assert any("input_signature" in fix for fix in probe.fixes)
    assert any("tensors" in fix for fix in probe.fixes)


def test_the_python_api_is_tfspeedlab_diagnose_with_the_readers_arguments(without_profiler):
    import tfspeedlab

    diagnosis = tfspeedlab.diagnose(scaled, tf.ones([4, 4]), scale=tf.constant(3.0), budget_s=ROOMY_BUDGET_S)
    assert isinstance(diagnosis, tfspeedlab.Diagnosis)
    assert diagnosis.modes["eager"].measurement.median_s > 0
    assert diagnosis.retracing.python_number_traces is None  # the scale came as a tensor


def test_python_numbers_given_as_keywords_are_probed_and_a_retrace_is_timed():
    probe = probe_retracing(scaled, (tf.ones([8, 4]),), {"scale": 0.5})
    assert probe.python_number_traces == 2
    assert probe.retrace_s > 0


def test_a_function_that_refuses_another_batch_size_says_why_it_was_not_probed():
    probe = probe_retracing(one_big_kernel, (tf.ones([4, 4]),), {})
    assert probe.batch_size_traces is None
    assert probe.batch_size_unprobed == "the function does not accept one more row"


def test_keyword_arguments_reach_the_function():
    probe = probe_retracing(scaled, (tf.ones([2, 2]),), {"scale": tf.constant(2.0)})
    assert probe.python_number_traces is None and probe.first_traces == 1


@pytest.mark.parametrize("eager, graph, expected", [
    ((1e-3, 1e-3), (1e-4, 10e-3), 10),  # 9 ms more on the first call, 0.9 ms saved per call
    ((1e-3, 1e-3), (2e-3, 10e-3), None),  # never cheaper per call: never pays back
    ((1e-3, 5e-3), (1e-4, 2e-3), 1.0),  # its first call is the cheaper one too
])
def test_break_even_counts_calls_until_the_first_call_is_paid_back(eager, graph, expected):
    assert break_even(eager[0], eager[1], graph[0], graph[1]) == expected


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

def interrupts_itself(x):
    raise KeyboardInterrupt("raised by the function")

def interrupts_itself_when_traced(x):
    if not tf.executing_eagerly():
        raise KeyboardInterrupt("raised by the function")
    return many_small_ops(x)
'''
# Functions that leave a thread running (no daemon, waiting for ever): only ever run in a process of their own.
LEAVES_A_THREAD = SAMPLE + '''
import threading

STARTED = []

def start_a_thread():
    if not STARTED:
        STARTED.append(threading.Thread(target=threading.Event().wait, name="the reader's worker"))
        STARTED[0].start()

def leaves_a_thread_running(x):
    start_a_thread()
    return many_small_ops(x)

def leaves_a_thread_and_raises(x):
    start_a_thread()
    raise RuntimeError("boom after starting a thread")
'''


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "sample.py"
    path.write_text(SAMPLE)
    return path


def test_the_command_prints_a_report_with_every_mode_and_the_verdict(sample, capsys, without_profiler):
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "60"]) == 0
    out = capsys.readouterr().out
    for part in ("eager", "tf.function", "XLA", "Ops in the traced graph", "Traces: 1 on the first call",
                 "Verdict: Wrap it in tf.function"):
        assert part in out


def test_several_processes_are_diagnosed_apart_and_pooled(sample, tmp_path, capsys):
    saved = tmp_path / "pooled.json"
    # Each child imports TensorFlow outside its share but inside this budget: room for that on a loaded machine.
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "30",
                 "--processes", "2", "--save", str(saved)]) == 0
    assert "Timed in 2 fresh processes" in capsys.readouterr().out
    data = json.loads(saved.read_text())
    assert [(case["label"], len(case["runs"])) for case in data["cases"]] == [("eager", 2), ("tf.function", 2), ("XLA", 2)]
    assert data["environment"]["tensorflow"] == tf.__version__


@pytest.fixture
def ctrl_c_raises_keyboard_interrupt():
    """SIGINT handled as Python sets it up in a terminal, whatever this test process inherited (a
    background job starts with it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_in_the_command_prints_what_was_measured_and_exits_130(sample, monkeypatch, capsys,
                                                                      ctrl_c_raises_keyboard_interrupt):
    blocks = []
    time_block = timer.TimedCall.time_block

    def interrupted_after_nine(self):
        if len(blocks) == 9:
            signal.raise_signal(signal.SIGINT)  # the reader's Ctrl-C, as the terminal sends it
        blocks.append(self)
        time_block(self)

    monkeypatch.setattr(timer.TimedCall, "time_block", interrupted_after_nine)
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "60"]) == 130
    out = capsys.readouterr().out
    assert "Verdict: Wrap it in tf.function" in out and "Interrupted: these are the blocks timed so far." in out
    assert "Not measured: retracing probe (interrupted)" in out


@pytest.mark.parametrize("function", ["interrupts_itself", "interrupts_itself_when_traced"])
def test_a_keyboard_interrupt_the_function_raises_is_its_failure_not_a_ctrl_c(sample, capsys, function,
                                                                             ctrl_c_raises_keyboard_interrupt):
    assert main(["diagnose", f"{sample}:{function}", "--inputs", f"{sample}:make_inputs", "--budget", "60"]) == 2
    error = capsys.readouterr().err
    assert "raised KeyboardInterrupt: raised by the function of its own (no Ctrl-C came)" in error
    assert "interrupted" not in error


def test_a_keyboard_interrupt_with_no_ctrl_c_behind_it_while_timing_reports_no_blocks(
        sample, monkeypatch, capsys, ctrl_c_raises_keyboard_interrupt):
    """Raised in a timed block (where only the function runs) with no SIGINT behind it: not the
    reader's Ctrl-C (the blocks timed so far, exit 130) but the function's failure, exit 2."""
    blocks = []
    time_block = timer.TimedCall.time_block

    def raises_after_nine(self):
        if len(blocks) == 9:
            raise KeyboardInterrupt("raised in a timed block")
        blocks.append(self)
        time_block(self)

    monkeypatch.setattr(timer.TimedCall, "time_block", raises_after_nine)
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "60"]) == 2
    captured = capsys.readouterr()
    assert "while being timed raised KeyboardInterrupt: raised in a timed block of its own" in captured.err
    assert "Verdict" not in captured.out


@pytest.mark.parametrize("function, code, said", [
    ("leaves_a_thread_running", 0, "Verdict: "),
    ("leaves_a_thread_and_raises", 2, "raised RuntimeError when called with the inputs: boom after starting a thread"),
])
def test_the_command_ends_whatever_threads_the_function_left_running(tmp_path, function, code, said):
    target = tmp_path / "threads_left.py"
    target.write_text(LEAVES_A_THREAD)
    # A fresh process: Python's wait for the thread at exit is what hung. The timeout is that hang's only bound.
    completed = run_cli("diagnose", f"{target}:{function}", "--inputs", f"{target}:make_inputs", "--budget", "3",
                        timeout=300)
    assert completed.returncode == code, completed.stderr[-2000:]
    assert said in completed.stdout + completed.stderr


def test_html_and_markdown_reports_are_written_to_keep(sample, tmp_path, capsys, without_profiler):
    page = tmp_path / "report.html"
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "60",
                 "--html", str(page)]) == 0
    text = page.read_text()
    assert text.startswith("<!doctype html>") and "<pre>" in text and "<strong>Verdict.</strong> Wrap it" in text
    assert "<script" not in text and 'href="https://tfspeedlab.github.io/tfspeedlab/small-ops/"' in text


def test_a_markdown_report_is_written_to_keep(sample, tmp_path, capsys, without_profiler):
    target = tmp_path / "reports" / "diagnosis.md"
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "60",
                 "--markdown", str(target)]) == 0
    text = target.read_text()
    assert text.startswith("# Diagnosis of `") and "```text" in text and "**Verdict.** " in text
    assert f"wrote {target}" in capsys.readouterr().err


def test_json_report_holds_the_samples_and_the_verdict(sample, capsys, without_profiler):
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "60",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [case["label"] for case in report["cases"]] == ["eager", "tf.function", "XLA"]
    assert report["diagnosis"]["speedup_over_eager"]["tf.function"]["low"] > 1
    assert report["diagnosis"]["verdict"].startswith("Wrap it in tf.function")


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
    (["{sample}:many_small_ops", "--inputs", "{sample}:make_inputs", "--batch", "8"], "--batch is for a Keras model"),
    (["{sample}:many_small_ops", "--inputs", "{sample}:make_inputs", "--html", "{tmp}"], "is a folder"),
])
def test_bad_input_is_a_clear_error_and_exit_2(sample, tmp_path, capsys, args, message):
    code = main(["diagnose", *(arg.format(sample=sample, tmp=tmp_path) for arg in args)])
    assert code == 2
    error = capsys.readouterr().err
    assert message in error and "tfspeedlab: error:" in error


@pytest.mark.parametrize("diagnosed, full_run, expected", [
    ((11.0, 10.0, 12.0), (10.4, 9.3, 11.5), True),  # both faster
    ((0.86, 0.82, 0.89), (0.86, 0.80, 0.99), True),  # both slower: the full run's interval is wider
    ((0.99, 0.96, 1.03), (1.01, 0.86, 1.17), True),  # neither can tell
    ((1.04, 1.02, 1.06), (1.05, 1.02, 1.08), True),  # a clear 5%: below the material threshold
    ((11.0, 10.0, 12.0), (0.9, 0.8, 0.95), False),  # opposite directions
    ((1.3, 1.2, 1.4), (1.0, 0.9, 1.1), False),  # the full run cannot confirm a material speed-up
    ((1.0, 0.97, 1.03), (1.5, 1.3, 1.7), False),  # the full run finds a material one
])
def test_a_diagnosis_agrees_with_a_full_run_when_their_words_do(diagnosed, full_run, expected):
    assert agrees(intervals.Ratio(*diagnosed), intervals.Ratio(*full_run)) is expected


# ------------------------------------------------------------ --threads

def _diagnosed(seconds_by_mode, processes=2):
    """A diagnosis whose modes' blocks sit tightly around the given seconds, in ``processes`` runs."""
    seconds_by_mode = {"eager": 1e-3, "tf.function": 1e-3, "XLA": 1e-3, **seconds_by_mode}
    modes = {mode: CaseResult(mode, {}, tuple(Measurement(tuple(seconds * (1 + 0.01 * k) for k in range(10)), 10,
                                                          seconds, "test") for _ in range(processes)))
             for mode, seconds in seconds_by_mode.items()}
    return Diagnosis("sample.py:f", modes, op_count=None, retracing=None)


def test_a_thread_setting_is_named_only_where_it_is_materially_faster():
    faster = diagnose_threads.compare("sample.py:f", {
        "default": [_diagnosed({"eager": 1e-3, "tf.function": 2e-4})],
        "inter default · intra 1": [_diagnosed({"eager": 1e-3, "tf.function": 1e-4})],
        "inter 1 · intra 1": [_diagnosed({"eager": 1.02e-3, "tf.function": 2e-4})]})
    faster = dataclasses.replace(faster, processes=2)
    setting, mode, ratio = faster.best()
    assert (setting.setting, mode) == ("inter default · intra 1", "tf.function") and ratio.value == pytest.approx(2)
    line = diagnose_threads.verdict(faster)
    assert line.startswith("against the defaults, inter default · intra 1 made tf.function 2.00×\u00a0faster [")
    assert "set_intra_op_parallelism_threads(1)" in line and "set_inter_op" not in line
    report = diagnose_threads.report(faster).text()
    assert report.endswith("\n\nVerdict: " + line) and "inter_op_parallelism_threads=default" in report

    same = diagnose_threads.compare("sample.py:f", {
        "default": [_diagnosed({"tf.function": 2e-4})], "inter 1 · intra 1": [_diagnosed({"tf.function": 2.02e-4})]})
    same = dataclasses.replace(same, processes=2)
    assert same.best() is None
    assert "keep TensorFlow's default thread settings" in diagnose_threads.verdict(same)


def test_one_process_per_setting_gives_no_thread_verdict():
    one = diagnose_threads.compare("sample.py:f", {
        "default": [_diagnosed({"tf.function": 2e-4}, processes=1)],
        "inter default · intra 1": [_diagnosed({"tf.function": 1e-4}, processes=1)]})
    assert one.processes == 1 and one.best() is None
    assert "none from one process" in diagnose_threads.verdict(one)


def test_a_malformed_thread_setting_in_the_environment_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(diagnose_threads.THREADS_VARIABLE, "two,1")
    with pytest.raises(TargetError, match="expected two whole numbers"):
        diagnose_threads.apply_from_environment()


def test_the_command_times_each_thread_setting_in_fresh_processes_that_take_it(sample, tmp_path, capsys):
    saved = tmp_path / "threads.json"
    # Six children (three settings, two processes each), a sixth of the budget each after their imports.
    assert main(["diagnose", f"{sample}:many_small_ops", "--inputs", f"{sample}:make_inputs", "--budget", "12",
                 "--threads", "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    data = json.loads(saved.read_text())
    assert list(data["settings"]) == list(diagnose_threads.SETTINGS)
    for setting, found in data["settings"].items():
        # Each child ran with its setting in force, as TensorFlow reported it.
        assert found["in_force"] == [list(diagnose_threads.SETTINGS[setting])] * 2, setting
        assert found["modes"]["tf.function"]["time_s"] > 0
    assert data["settings"]["default"]["modes"]["tf.function"]["against_default"] is None
    assert data["settings"]["inter 1 · intra 1"]["modes"]["tf.function"]["against_default"]["processes"] == 2
    assert out.strip().splitlines()[-1] == data["verdict"]


def test_threads_are_for_a_function_not_a_model(tmp_path, capsys):
    assert main(["diagnose", str(tmp_path / "model.keras"), "--threads"]) == 2
    assert "--threads is for a function" in capsys.readouterr().err


KEPT = []


def keeps_what_it_makes(x):
    """A function that leaks as the reports describe: each call keeps 512 KiB outside Python's heap."""
    KEPT.append(tf.ones([128 * 1024]) + x[0, 0])
    return x * 2.0


def test_memory_over_repeated_calls_is_followed_and_a_growth_is_reported(without_profiler):
    KEPT.clear()
    diagnosis = diagnose(keeps_what_it_makes, tf.ones([4, 4]), budget_s=ROOMY_BUDGET_S)
    memory = diagnosis.memory
    assert memory is not None and memory.calls >= len(memory.parts_per_call) >= 2
    # 512 KiB kept per call: resident memory grows by about that, whatever else moves it.
    assert 256 * 1024 < memory.per_call.value < 1024 * 1024 and memory.per_call.low > 0
    report = function_report(diagnosis).text()
    assert f"Resident memory over {memory.calls} calls of the function as given: grows" in report
    assert ("memory-startup.md", "Does TensorFlow leak memory? How long does it take to start?") in diagnosis.links
    assert "Resident memory grows" in diagnosis.verdict and "memory-startup.md" in diagnosis.verdict
    again = from_results(from_dict(json.loads(json.dumps(to_json(diagnosis, ENVIRONMENT))), UNSAVED))
    assert again.memory == memory and function_report(again).text() == report
    # A report kept before memory was followed still loads, with no memory line.
    data = to_json(diagnosis, ENVIRONMENT)
    data["diagnosis"].pop("memory")
    older = from_results(from_dict(data, UNSAVED))
    assert older.memory is None and "Resident memory" not in function_report(older).text()
    # Pooled, the memory followed in one process stands for the others (each followed the same calls).
    assert pool([diagnosis, dataclasses.replace(diagnosis, memory=None)]).memory == memory
    KEPT.clear()


def test_ctrl_c_while_following_memory_keeps_the_timings_and_says_so(without_profiler, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(diagnose_module, "follow_within", interrupted)
    diagnosis = diagnose(many_small_ops, tf.ones([10, 10]), budget_s=ROOMY_BUDGET_S)
    assert diagnosis.interrupted and diagnosis.memory is None
    assert diagnosis.skipped["memory over repeated calls"] == "interrupted"
    assert diagnosis.speedups["tf.function"].low > 1  # the timings stand


def test_a_malformed_memory_field_is_a_clear_error(without_profiler):
    data = to_json(diagnose(scaled, tf.ones([8, 4]), 0.5, budget_s=ROOMY_BUDGET_S), ENVIRONMENT)
    data["diagnosis"]["memory"]["parts_per_call_bytes"] = ["lots", 1.0]
    with pytest.raises(ValueError, match="memory.parts_per_call_bytes"):
        from_results(from_dict(data, UNSAVED))
