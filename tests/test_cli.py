import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import PASSING_EXAMPLE, REPO, SLOW_EXAMPLE, default_sigint, output_after_interrupt, run_cli
from tfspeedlab import cli

FAILING = '''
# # A failing example
def workload(quick=False):
    raise RuntimeError("this example is broken on purpose")
'''
ISOLATED = '''
# # Process groups
import os
import time
import tfspeedlab

def setup():
    pid, flag = os.getpid(), os.environ.get("ISOLATION_FLAG") == "on"
    return tfspeedlab.Prepared(time.sleep, (0.001,), metrics=lambda: {"pid": pid, "flag": float(flag)})

def workload(quick=False):
    return tfspeedlab.Workload(name="isolated", title="Isolated", budget_s=0.05, cases=[
        tfspeedlab.Case("a1", setup=setup, process="a", env={"ISOLATION_FLAG": "on", "TF_XLA_FLAGS": "--x"}),
        tfspeedlab.Case("b", setup=setup, process="b"),
        tfspeedlab.Case("a2", setup=setup, process="a", env={"ISOLATION_FLAG": "on", "TF_XLA_FLAGS": "--x"}),
        tfspeedlab.Case("twice", setup=setup, process="c", rounds=2),
    ])
'''
NARROWED = '''
# # Cases with parameters, for --only
import time
import tfspeedlab

def workload(quick=False):
    return tfspeedlab.Workload(name="narrowed", title="Narrowed", budget_s=0.05, baseline="slow · 1", cases=[
        tfspeedlab.Case(f"{mode} · {size}", time.sleep, (0.001,), params={"mode": mode, "size": size}, rounds=2)
        for mode in ("slow", "fast") for size in (1, 8)
    ])
'''
SKIPPING = '''
# # Needs an extra
import tfspeedlab

def workload(quick=False):
    raise tfspeedlab.SkipExample("needs the made-up package 'nosuchlib': pip install -e .[compare]")
'''
ARTIFACTS = '''
# # Writes a file beside its results
import os
import time
import tfspeedlab

def setup():
    def metrics():
        tfspeedlab.artifact_path("trace one.txt").write_text("from pid %d" % os.getpid())
        if os.environ.get("ARTIFACT_FAIL") == "1":
            raise RuntimeError("failing after the artifact was written")
        return {}
    return tfspeedlab.Prepared(time.sleep, (0.001,), metrics=metrics)

def workload(quick=False):
    return tfspeedlab.Workload(name="artifacts", title="Artifacts", budget_s=0.05, cases=[
        tfspeedlab.Case("a", setup=setup, process="a"),
    ])
'''


@pytest.fixture
def examples_dir(tmp_path):
    folder = tmp_path / "examples"
    folder.mkdir()
    for name, text in (("passing", PASSING_EXAMPLE), ("failing", FAILING), ("slow", SLOW_EXAMPLE), ("isolated", ISOLATED),
                       ("skipping", SKIPPING), ("artifacts", ARTIFACTS), ("narrowed", NARROWED)):
        (folder / f"{name}.py").write_text(textwrap.dedent(text))
    return folder


def test_unknown_name_exits_2_and_lists_valid_names(capsys):
    assert cli.main(["run", "no_such_example"]) == 2
    error = capsys.readouterr().err
    assert "unknown example(s): no_such_example" in error
    assert "small_ops" in error


def test_no_command_prints_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    assert "usage" in capsys.readouterr().out


def test_list_shows_names_and_titles(capsys):
    assert cli.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("small_ops ") and line.endswith("  Many small ops: eager vs tf.function vs XLA")
               for line in lines)


def test_failing_example_is_recorded_and_the_rest_still_run(examples_dir, tmp_path):
    out = tmp_path / "results"
    completed = run_cli("--examples", str(examples_dir), "run", "failing", "passing", "--runner", "cpu",
                        "--out", str(out))
    assert completed.returncode == 1
    assert "failing: FAILED" in completed.stderr and "passing: ok" in completed.stderr
    failure = json.loads((out / "cpu" / "failing.failed.json").read_text())
    assert failure["error"] == "RuntimeError: this example is broken on purpose"
    assert "Traceback" in failure["traceback"]
    assert not (out / "cpu" / "failing.json").exists()
    assert json.loads((out / "cpu" / "passing.json").read_text())["cases"][0]["label"] == "sleep"


def test_only_narrows_an_example_to_the_cases_it_names_in_every_process(examples_dir, tmp_path):
    out = tmp_path / "results"
    completed = run_cli("--examples", str(examples_dir), "run", "narrowed", "--only", "size=1", "--runner", "cpu",
                        "--out", str(out))
    assert completed.returncode == 0, completed.stderr[-3000:]
    written = json.loads((out / "cpu" / "narrowed.json").read_text())
    assert [case["label"] for case in written["cases"]] == ["slow · 1", "fast · 1"]
    assert all(len(case["runs"]) == 2 for case in written["cases"])  # both processes were narrowed
    assert written["params"]["only"] == {"size": "1"} and written["baseline"] == "slow · 1"
    # Over the pages' own results it is refused: a narrowed file is no page's results.
    refused = run_cli("--examples", str(examples_dir), "run", "narrowed", "--only", "size=1")
    assert refused.returncode == 2 and "--only narrows an example" in refused.stderr
    nothing = run_cli("--examples", str(examples_dir), "run", "narrowed", "--only", "size=3", "--out", str(out))
    assert nothing.returncode == 1 and "no case has size=3" in nothing.stderr


def test_gpu_runner_without_gpu_refuses_and_writes_nothing(examples_dir, tmp_path):
    tf = pytest.importorskip("tensorflow")
    if tf.config.list_physical_devices("GPU"):
        pytest.skip("this machine has a GPU")
    out = tmp_path / "results"
    completed = run_cli("--examples", str(examples_dir), "run", "passing", "--runner", "gpu", "--out", str(out))
    assert completed.returncode == 3
    assert "TensorFlow sees no GPU" in completed.stderr
    assert not out.exists()


def test_ctrl_c_stops_the_run_and_keeps_previous_results(examples_dir, tmp_path):
    out = tmp_path / "results"
    previous = out / "cpu" / "slow.json"
    previous.parent.mkdir(parents=True)
    previous.write_text('{"kept": true}')
    process = subprocess.Popen(
        [sys.executable, "-m", "tfspeedlab", "--examples", str(examples_dir), "run", "slow",
         "--runner", "cpu", "--out", str(out)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=default_sigint,
        start_new_session=True,  # its own process group, as a terminal would give it
    )
    deadline = time.monotonic() + 120
    for line in process.stdout:
        if "slow · sleep  (1/1)" in line or time.monotonic() > deadline:
            break
    time.sleep(0.5)  # inside the timed blocks now
    os.killpg(process.pid, signal.SIGINT)
    remaining = output_after_interrupt(process, timeout=60)
    assert process.returncode == 130, remaining
    assert "interrupted" in remaining
    assert previous.read_text() == '{"kept": true}'
    assert sorted(p.name for p in previous.parent.iterdir()) == ["slow.json"]


def test_process_groups_run_in_their_own_processes_with_their_env(examples_dir, tmp_path):
    out = tmp_path / "results"
    completed = run_cli("--examples", str(examples_dir), "run", "isolated", "--runner", "cpu", "--out", str(out))
    assert completed.returncode == 0, completed.stderr[-3000:]
    results = json.loads((out / "cpu" / "isolated.json").read_text())
    cases = {case["label"]: case for case in results["cases"]}
    assert [case["label"] for case in results["cases"]] == ["a1", "b", "a2", "twice"]  # the workload's order
    assert cases["a1"]["metrics"]["pid"] == cases["a2"]["metrics"]["pid"] != cases["b"]["metrics"]["pid"]
    assert cases["a1"]["metrics"]["flag"] == cases["a2"]["metrics"]["flag"] == 1.0
    assert cases["b"]["metrics"]["flag"] == 0.0
    assert cases["a1"]["params"]["env"] == {"ISOLATION_FLAG": "on", "TF_XLA_FLAGS": "--x"}
    # The file's environment is the run's, not one group's: a group's variables stay with its cases.
    assert "TF_XLA_FLAGS" not in results["environment"]["tf_variables"]
    # Every case is a set of runs, one per process: three by default in a full run, or as many as it asks.
    assert [len(cases[label]["runs"]) for label in ("a1", "b", "a2", "twice")] == [3, 3, 3, 2]
    for run in cases["twice"]["runs"]:
        assert run["blocks"] >= 5 and len(run["samples_s"]) == run["blocks"]


def test_example_missing_an_extra_is_skipped_with_its_reason_and_writes_nothing(examples_dir, tmp_path):
    out = tmp_path / "results"
    completed = run_cli("--examples", str(examples_dir), "run", "skipping", "passing", "--runner", "cpu",
                        "--out", str(out))
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "skipping skipped: needs the made-up package 'nosuchlib'" in completed.stderr
    assert "skipping: skipped" in completed.stderr
    assert sorted(p.name for p in (out / "cpu").iterdir()) == ["passing.json"]


def test_artifacts_written_in_a_child_are_published_with_the_results(examples_dir, tmp_path):
    out = tmp_path / "results"
    completed = run_cli("--examples", str(examples_dir), "run", "artifacts", "--runner", "cpu", "--out", str(out))
    assert completed.returncode == 0, completed.stderr[-3000:]
    published = out / "cpu" / "traces" / "artifacts" / "trace_one.txt"
    first = published.read_text()
    assert first.startswith("from pid")
    assert [p.name for p in out.iterdir()] == ["cpu"]  # no staging folder left behind

    # A failing run keeps the previous artifacts and results, and cleans up its staging.
    completed = run_cli("--examples", str(examples_dir), "run", "artifacts", "--runner", "cpu", "--out", str(out),
                        ARTIFACT_FAIL="1")
    assert completed.returncode == 1
    assert published.read_text() == first
    assert (out / "cpu" / "artifacts.json").exists() and (out / "cpu" / "artifacts.failed.json").exists()
    assert [p.name for p in out.iterdir()] == ["cpu"]
