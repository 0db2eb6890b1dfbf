"""Quick runs fork their processes from one that imported TensorFlow once; full runs start fresh ones.

What each test checks is which way a process was started, seen from inside it:
a forked child finds TensorFlow imported before the example imports anything.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO, run_cli

# Records, as a case parameter, whether TensorFlow was already imported when the example
# was loaded (true only in a forked process), and in which process the case ran.
SEES_PRELOAD = '''
# # Sees the preload
import os
import sys
import time
import tfspeedlab

PRELOADED = "tensorflow" in sys.modules

def case(label, process=None, env=None):
    return tfspeedlab.Case(label, time.sleep, (0.001,), process=process, env=env or {},
                           params={"preloaded": str(PRELOADED), "pid": os.getpid()})

def workload(quick=False):
    return tfspeedlab.Workload(name="sees_preload", title="Sees the preload", cases=[{cases}], budget_s=0.05)
'''


def _example(tmp_path, cases: str):
    folder = tmp_path / "examples"
    folder.mkdir()
    (folder / "sees_preload.py").write_text(textwrap.dedent(SEES_PRELOAD).replace("{cases}", cases))
    return folder


def _run(tmp_path, cases: str, *flags: str) -> dict[str, dict]:
    examples = _example(tmp_path, cases)
    out = tmp_path / "results"
    completed = run_cli("--examples", str(examples), "run", "sees_preload", "--runner", "cpu", "--out", str(out),
                        *flags)
    assert completed.returncode == 0, completed.stderr[-3000:]
    results = json.loads((out / "cpu" / "sees_preload.json").read_text())
    return {case["label"]: case["params"] for case in results["cases"]}


@pytest.mark.parametrize("flags, forked", [(("--quick",), "True"), (("--quick", "--cold-start"), "False"),
                                           ((), "False")])
def test_only_a_quick_run_forks_and_cold_start_turns_it_off(tmp_path, flags, forked):
    params = _run(tmp_path, 'case("alone")', *flags)
    assert params["alone"]["preloaded"] == forked


def test_process_groups_are_forked_in_a_quick_run_unless_they_set_variables(tmp_path):
    params = _run(tmp_path, 'case("a", "A"), case("b", "B"), case("legacy", "L", {"TFSPEEDLAB_TEST_VARIABLE": "1"})',
                  "--quick")
    assert params["a"]["preloaded"] == params["b"]["preloaded"] == "True"
    assert params["a"]["pid"] != params["b"]["pid"]  # still a process per group
    # Variables are read when TensorFlow is imported: that group needs a fresh interpreter.
    assert params["legacy"]["preloaded"] == "False"


def test_process_groups_of_a_full_run_start_fresh(tmp_path):
    params = _run(tmp_path, 'case("a", "A"), case("b", "B")', "--processes", "1")
    assert params["a"]["preloaded"] == params["b"]["preloaded"] == "False"


def test_fork_is_allowed_only_before_tensorflows_runtime_starts_and_without_variables():
    code = textwrap.dedent('''
        from tfspeedlab.harness import launch
        print(launch.fork_allowed({}))           # TensorFlow not imported: nothing to gain
        import tensorflow as tf
        print(launch.fork_allowed({}))           # imported, runtime not started
        print(launch.fork_allowed({"TF_USE_LEGACY_KERAS": "1"}))
        tf.constant(1.0) + 1.0                   # the runtime starts: thread pools, devices
        print(launch.fork_allowed({}))
    ''')
    completed = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300,
                               env={"PATH": "/usr/bin:/bin", "CUDA_VISIBLE_DEVICES": "-1", "TF_CPP_MIN_LOG_LEVEL": "2",
                                    "PYTHONPATH": str(REPO)})
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.split() == ["False", "True", "False", "False"]


# Takes a known time to load, and records when its process loaded it: two examples run at
# once load within that time of each other, one after the other at least that far apart.
LOADS_SLOWLY = '''
# # Loads slowly
import time
import tfspeedlab

LOADED_AT = time.time()
LOAD_S = 2.0

def workload(quick=False):
    time.sleep(LOAD_S)
    return tfspeedlab.Workload(name="{name}", title="Loads slowly", budget_s=0.05,
                               cases=[tfspeedlab.Case("sleep", time.sleep, (0.001,),
                                                      params={{"loaded_at": LOADED_AT}})])
'''


def _two_slow_loaders(tmp_path):
    folder = tmp_path / "examples"
    folder.mkdir()
    for name in ("first", "second"):
        (folder / f"{name}.py").write_text(textwrap.dedent(LOADS_SLOWLY.format(name=name)))
    return folder


def _load_times(out) -> list[float]:
    return [json.loads((out / "cpu" / f"{name}.json").read_text())["cases"][0]["params"]["loaded_at"]
            for name in ("first", "second")]


@pytest.mark.parametrize("flags, together", [(("--quick",), True), (("--quick", "--jobs", "1"), False),
                                             (("--quick", "--cold-start"), False)],
                         ids=["quick", "quick-jobs-1", "quick-cold"])
def test_a_quick_run_runs_two_examples_at_once_unless_told_not_to(tmp_path, flags, together):
    examples, out = _two_slow_loaders(tmp_path), tmp_path / "results"
    completed = run_cli("--examples", str(examples), "run", "first", "second", "--runner", "cpu",
                        "--out", str(out), *flags)
    assert completed.returncode == 0, completed.stderr[-3000:]
    first, second = _load_times(out)
    assert (abs(second - first) < 1.5) is together, (first, second)
    # The summary lists them in the order asked for, whichever finished first.
    summary = completed.stderr.split("summary")[1]
    assert summary.index("first: ok") < summary.index("second: ok")


def test_a_full_run_refuses_to_run_examples_at_once(tmp_path):
    examples, out = _two_slow_loaders(tmp_path), tmp_path / "results"
    completed = run_cli("--examples", str(examples), "run", "--runner", "cpu", "--out", str(out), "--jobs", "2")
    assert completed.returncode == 2
    assert "--jobs is for quick runs" in completed.stderr and not out.exists()
