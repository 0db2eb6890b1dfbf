"""`tfspeedlab history`: releases chosen, environments built and kept, each release run in its own
environment, failures recorded while the rest go on, Ctrl-C keeping what was measured; the history
tree read back, compared between releases and merged. No test downloads a TensorFlow: the installed
one stands in for a release (an "environment" whose Python is this one), and stand-ins for uv and
PyPI drive the failure paths. One real older release runs in an opt-in slow test."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import build_site, default_sigint, site_results, synthetic_results
from tfspeedlab.cli import main
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.history import ENVIRONMENT_FAILURE, ENVIRONMENT_RECORD, load_history, release_folder
from tfspeedlab.core.results.merge import merge_results
from tfspeedlab.core.results.pool import PoolError, pool
from tfspeedlab.core.results.schema import CaseResult, ResultsFile, ResultsFileError, to_dict
from tfspeedlab.core.results.store import write_json_atomic
from tfspeedlab.core.spec.layout import Grid
from tfspeedlab.core.spec.releases import ALL_RELEASES, Release, UnknownReleaseError, parse_selection
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.units import format_time
from tfspeedlab.harness.catalog import ExampleScript
from tfspeedlab.history import charts, environments, tables, trends
from tfspeedlab.history.directives import chart_uri
from tfspeedlab.render.charts import TEXT_PT, line_chars

REPO = Path(__file__).resolve().parent.parent
INSTALLED = Release(*(int(part) for part in __import__("tensorflow").__version__.split(".")[:2]))

TINY_EXAMPLE = '''
import time
import tensorflow as tf
import tfspeedlab

def workload(quick=False):
    x = tf.constant(1.0)
    return tfspeedlab.Workload(name="tiny", title="One add", budget_s=0.05,
                               cases=[tfspeedlab.Case("add", tf.add, (x, x), {"mode": "eager", "in_history": True}),
                                      tfspeedlab.Case("mul", tf.multiply, (x, x), {"mode": "eager",
                                                                                     "in_history": False})])

if __name__ == "__main__":
    tfspeedlab.main(workload)
'''

# Slow only in the environment of release SLOW_RELEASE (its stand-in Python says which it is).
SLOW_EXAMPLE = '''
import os
import time
import tensorflow as tf
import tfspeedlab

def slow_add(x):
    time.sleep(0.05)
    return x + 1

def workload(quick=False):
    slow = os.environ.get("FAKE_RELEASE") == "SLOW_RELEASE"
    return tfspeedlab.Workload(name="slow", title="A slow add", budget_s=120.0 if slow else 0.05,
                               cases=[tfspeedlab.Case("add", slow_add, (tf.constant(1.0),), {"mode": "eager"})])

if __name__ == "__main__":
    tfspeedlab.main(workload)
'''

FAILING_EXAMPLE = '''
import tfspeedlab

def workload(quick=False):
    raise RuntimeError("this release lacks the API")
'''


# ---------------------------------------------------------------- choosing releases


def test_default_is_every_release_from_2_12_to_2_21():
    assert [release.name for release in parse_selection(None)] == [f"2.{minor}" for minor in range(12, 22)]


def test_a_selection_is_sorted_and_deduplicated():
    assert [release.name for release in parse_selection("2.21, 2.15,2.21")] == ["2.15", "2.21"]


@pytest.mark.parametrize("text", ["2.99", "2.11", "3.0", "2.15.1", "", "2.15;rm -rf", "latest"])
def test_a_release_outside_the_history_is_refused(text):
    with pytest.raises(UnknownReleaseError, match="2.12 to 2.21"):
        parse_selection(text)


def test_cli_bad_version_exits_2_with_a_clear_message(capsys, tmp_path):
    assert main(["history", "--tf", "2.99", "--out", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "--tf '2.99'" in error and "2.12 to 2.21" in error and "Traceback" not in error
    assert not any(tmp_path.iterdir())


def test_cli_unknown_example_exits_2(capsys, tmp_path):
    assert main(["history", "no_such_example", "--tf", "2.21", "--out", str(tmp_path)]) == 2
    assert "no_such_example" in capsys.readouterr().err


def test_keras_3_releases_also_install_tf_keras_and_a_gpu_runner_the_cuda_build():
    assert Release(2, 15).requirements("cpu") == ["tensorflow-cpu==2.15.*"]
    assert Release(2, 16).requirements("cpu") == ["tensorflow-cpu==2.16.*", "tf-keras==2.16.*"]
    assert Release(2, 21).requirements("gpu") == ["tensorflow[and-cuda]==2.21.*", "tf-keras==2.21.*"]


# ---------------------------------------------------------------- environments


def _fake_pypi(folder: Path) -> Path:
    """PyPI's JSON API as files: tensorflow-cpu 2.15 has a post release, a release candidate and a
    yanked patch; the newest live patch is 2.15.1."""
    def files(day: str, yanked: bool = False) -> list[dict]:
        return [{"upload_time_iso_8601": f"{day}T12:00:00.000000Z", "yanked": yanked}]

    releases = {"2.15.0": files("2023-11-14"), "2.15.0.post1": files("2023-12-05"), "2.15.1": files("2024-03-08"),
                "2.15.2": files("2024-04-01", yanked=True), "2.16.0rc0": files("2024-02-09"),
                "2.16.1": files("2024-03-08"), "2.16.2": files("2024-06-28")}
    for project, versions in {"tensorflow-cpu": releases,
                              "tf-keras": {"2.16.0": files("2024-03-09"), "2.17.0": files("2024-07-15")}}.items():
        (folder / project).mkdir(parents=True)
        (folder / project / "json").write_text(json.dumps({"releases": versions}))
    return folder


def test_newest_patch_skips_pre_releases_and_yanked_files(tmp_path, monkeypatch):
    monkeypatch.setenv(environments.PYPI_VARIABLE, _fake_pypi(tmp_path / "pypi").as_uri())
    version, uploaded = environments.newest_patch("tensorflow-cpu", Release(2, 15))
    assert version == "2.15.1" and uploaded.isoformat().startswith("2024-03-08")
    assert environments.newest_patch("tensorflow-cpu", Release(2, 16))[0] == "2.16.2"
    with pytest.raises(environments.EnvironmentBuildError, match="no tensorflow-cpu 2.12.x"):
        environments.newest_patch("tensorflow-cpu", Release(2, 12))


def _fake_uv(folder: Path, message: str) -> str:
    """A uv that fails every command, as an install that cannot resolve would."""
    script = folder / "uv"
    script.write_text(f"#!/bin/sh\necho '{message}' >&2\nexit 1\n")
    script.chmod(0o755)
    return str(script)


def test_an_environment_that_cannot_be_built_is_recorded_and_the_other_releases_go_on(tmp_path, monkeypatch):
    monkeypatch.setenv(environments.PYPI_VARIABLE, _fake_pypi(tmp_path / "pypi").as_uri())
    monkeypatch.setenv(environments.UV_VARIABLE, _fake_uv(tmp_path, "No solution found when resolving"))
    out, envs = tmp_path / "results", tmp_path / "envs"

    code = main(["history", "--tf", "2.15,2.16", "--out", str(out), "--envs", str(envs), "--quick"])

    assert code == 1
    for release in (Release(2, 15), Release(2, 16)):  # both tried: one failure did not stop the other
        record = json.loads((release_folder(out, "cpu", release) / ENVIRONMENT_FAILURE).read_text())
        assert "No solution found when resolving" in record["error"]
        assert record["release"] == release.name
    # Half-built environments carry no record, so the next run builds them again.
    assert not list(envs.glob(f"*/{ENVIRONMENT_RECORD}"))
    [history_2_15, history_2_16] = load_history(out, "cpu")
    assert history_2_15.environment_failure and not history_2_15.results


def test_without_pypi_the_release_fails_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv(environments.PYPI_VARIABLE, (tmp_path / "nowhere").as_uri())
    with pytest.raises(environments.EnvironmentBuildError, match="cannot read"):
        environments.ensure(Release(2, 15), "cpu", tmp_path / "envs", log=lambda line: None)


def _installed_environment(envs: Path, release: Release, python: str | None = None) -> None:
    """An environment for ``release`` whose Python is this one (the installed TensorFlow), or a
    script standing in for a Python that fails."""
    folder = envs / f"cpu-{release.folder}"
    (folder / "bin").mkdir(parents=True)
    wrapper = folder / "bin" / "python"
    wrapper.write_text(python or f'#!/bin/sh\nFAKE_RELEASE={release.name} exec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    import platform
    from importlib import metadata

    import tensorflow as tf

    def version(distribution):
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            return None

    # What this Python has installed, as a real environment's record says (the results files measured
    # in it must agree with it).
    write_json_atomic(folder / ENVIRONMENT_RECORD, {
        "release": release.name, "requirements": release.requirements("cpu"), "tensorflow": tf.__version__,
        "keras": version("keras"), "tf_keras": version("tf-keras"), "numpy": version("numpy"),
        "python": platform.python_version(), "packages": [], "resolved_at": "2026-01-01T00:00:00+00:00"})


def _examples(tmp_path: Path, **sources: str) -> Path:
    folder = tmp_path / "examples"
    folder.mkdir(exist_ok=True)
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source)
    return folder


def test_the_installed_release_is_measured_through_the_harness_into_its_release_folder(tmp_path):
    out, envs = tmp_path / "results", tmp_path / "envs"
    _installed_environment(envs, INSTALLED)
    examples = _examples(tmp_path, tiny=TINY_EXAMPLE)

    code = main(["--examples", str(examples), "history", "tiny", "--tf", INSTALLED.name, "--quick",
                 "--out", str(out), "--envs", str(envs)])

    assert code == 0
    folder = release_folder(out, "cpu", INSTALLED)
    assert sorted(path.name for path in folder.iterdir()) == [ENVIRONMENT_RECORD, "tiny.json"]
    [item] = load_history(out, "cpu")
    assert item.release == INSTALLED and item.results["tiny"].case("add").runs
    assert item.environment["requirements"] == INSTALLED.requirements("cpu")
    # Nothing of the run's staging is left behind, and the main results tree is untouched.
    assert sorted(path.name for path in (out / "cpu").iterdir()) == ["history"]
    assert [path.name for path in (out / "cpu" / "history").iterdir()] == [INSTALLED.folder]


def test_only_narrows_every_releases_run_to_the_part_meant_for_the_history(tmp_path):
    out, envs = tmp_path / "results", tmp_path / "envs"
    _installed_environment(envs, INSTALLED)
    examples = _examples(tmp_path, tiny=TINY_EXAMPLE)

    assert main(["--examples", str(examples), "history", "tiny", "--tf", INSTALLED.name, "--quick", "--out", str(out),
                 "--envs", str(envs), "--only", "in_history=True"]) == 0

    [item] = load_history(out, "cpu")
    assert [case.label for case in item.results["tiny"].cases] == ["add"]
    assert item.results["tiny"].params["only"] == {"in_history": "True"}


@pytest.mark.slow  # builds two release environments and measures in them
def test_a_failing_release_is_recorded_and_the_next_release_still_runs(tmp_path):
    out, envs = tmp_path / "results", tmp_path / "envs"
    older = Release(2, INSTALLED.minor - 1)
    _installed_environment(envs, older)
    _installed_environment(envs, INSTALLED)
    examples = _examples(tmp_path, tiny=TINY_EXAMPLE, broken=FAILING_EXAMPLE)

    code = main(["--examples", str(examples), "history", "broken", "tiny", "--tf", f"{older.name},{INSTALLED.name}",
                 "--quick", "--out", str(out), "--envs", str(envs)])

    assert code == 1
    history = load_history(out, "cpu")
    assert [item.release for item in history] == [older, INSTALLED]
    for item in history:
        assert "this release lacks the API" in item.failures["broken"]
        assert "tiny" in item.results


@pytest.mark.slow  # builds two release environments and measures in them
def test_ctrl_c_keeps_every_release_measured_before_it(tmp_path):
    out, envs = tmp_path / "results", tmp_path / "envs"
    older = Release(2, INSTALLED.minor - 1)
    _installed_environment(envs, older)
    _installed_environment(envs, INSTALLED)
    examples = _examples(tmp_path, tiny=TINY_EXAMPLE, slow=SLOW_EXAMPLE.replace("SLOW_RELEASE", INSTALLED.name))
    # Both examples are quick on the first release; on the second, "slow" is interrupted.
    command = [sys.executable, "-m", "tfspeedlab", "--examples", str(examples), "history", "tiny", "slow",
               "--tf", f"{older.name},{INSTALLED.name}", "--out", str(out), "--envs", str(envs), "--processes", "1"]
    child = subprocess.Popen(command, cwd=REPO, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=default_sigint)
    deadline = time.monotonic() + 240
    try:
        # Wait until the second release's slow example is being timed.
        lines = []
        for line in child.stderr:
            lines.append(line)
            if any(f"[2/2] TensorFlow {INSTALLED.name}" in seen for seen in lines) and "slow · add" in line:
                break
            assert time.monotonic() < deadline, "".join(lines)
        time.sleep(1)
        os.killpg(child.pid, signal.SIGINT)
        rest = child.stderr.read()
        assert child.wait(timeout=120) == 130, "".join(lines) + rest
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    history = {item.release: item for item in load_history(out, "cpu")}
    assert sorted(history[older].results) == ["slow", "tiny"]  # the release finished before: kept
    assert sorted(history[INSTALLED].results) == ["tiny"]  # finished before the interrupt: kept
    assert "interrupted" in rest
    assert not list((out / "cpu" / "history").glob(".staging-*"))


# ---------------------------------------------------------------- reading, comparing and merging


def _release_results(factor: float, utc: str = "2026-01-01T00:00:00+00:00", release: str = "2.16") -> ResultsFile:
    """A history file of ``release`` whose "graph" case takes ``factor`` times the base time (tight samples)."""
    base = synthetic_results(example="releases")
    samples = tuple(1e-3 * factor * (1 + 0.001 * i) for i in range(30))
    cases = (CaseResult("graph", {"mode": "graph", "workload": "ops"}, (Measurement(samples, 10, 0.05, "test"),
                                                                       Measurement(samples, 10, 0.05, "test"))),)
    environment = {**base.environment, "utc_time": utc, "tensorflow": f"{release}.0"}
    return ResultsFile("releases", "Releases", "cpu", False, {}, environment, cases,
                       layout=Grid(rows="mode", columns="workload"))


def _history_tree(root: Path, factors: dict[str, float], utc_time: str | None = None) -> Path:
    for name, factor in factors.items():
        folder = release_folder(root, "cpu", parse_selection(name)[0])
        results = _release_results(factor, utc_time or "2026-01-01T00:00:00+00:00", name)
        write_json_atomic(folder / "releases.json", to_dict(results))
        write_json_atomic(folder / ENVIRONMENT_RECORD, {"release": name, "tensorflow": f"{name}.0", "packages": []})
    return root


def test_a_doubled_time_between_releases_is_a_material_change_and_equal_times_are_not(tmp_path):
    history = load_history(_history_tree(tmp_path, {"2.14": 1.0, "2.15": 1.0, "2.16": 2.0}), "cpu")
    [step] = trends.material_steps(history, "releases")
    assert (step.before.name, step.after.name, step.case) == ("2.15", "2.16", "graph")
    assert step.change.low > 1.9 and step.change.high < 2.1
    assert [s.significant for s in trends.steps(history, "releases")] == [False, True]
    assert trends.workload_groups(history, "releases") == {"ops": {"graph": "graph"}}


def test_an_example_without_workloads_charts_the_cases_it_re_measures_on_every_release(tmp_path):
    # Start-up and memory name no workload or mode: their trend is the in_history cases, one line each,
    # and a case left out of the history is not charted even where a release measured it.
    samples = tuple(1.0 + 0.01 * i for i in range(8))
    for name in ("2.15", "2.16"):
        cases = tuple(CaseResult(label, {"kind": "import", "in_history": marked},
                                 (Measurement(samples, 1, 0.05, "test"), Measurement(samples, 1, 0.05, "test")))
                      for label, marked in (("import tensorflow", True), ("import keras (JAX backend)", False)))
        base = synthetic_results(example="startup")
        results = ResultsFile("startup", "Start-up", "cpu", False, {}, {**base.environment, "tensorflow": f"{name}.0"},
                              cases)
        folder = release_folder(tmp_path, "cpu", parse_selection(name)[0])
        write_json_atomic(folder / "startup.json", to_dict(results))
        write_json_atomic(folder / ENVIRONMENT_RECORD, {"release": name, "tensorflow": f"{name}.0", "packages": []})
    history = load_history(tmp_path, "cpu")
    assert trends.workload_groups(history, "startup") == {trends.HISTORY_GROUP: {"import tensorflow": "import tensorflow"}}
    assert [point.release.name for point in trends.trend(history, "startup", "import tensorflow")] == ["2.15", "2.16"]
    assert trends.workload_groups(history, "absent") == {}


def test_a_history_measured_in_two_sittings_charts_each_sitting_as_a_line_of_its_own(tmp_path):
    # The second sitting (the second process) ran 1.5x slower: its line must show that, the first stay level.
    first, second = tuple(1.0 + 0.01 * i for i in range(8)), tuple(1.5 + 0.01 * i for i in range(8))
    for name in ("2.15", "2.16"):
        case = CaseResult("import tensorflow", {"kind": "import", "in_history": True},
                          (Measurement(first, 1, 0.05, "test"), Measurement(second, 1, 0.05, "test")))
        base = synthetic_results(example="startup")
        environment = {**base.environment, "tensorflow": f"{name}.0", "sitting_runs": [1, 1]}
        folder = release_folder(tmp_path, "cpu", parse_selection(name)[0])
        write_json_atomic(folder / "startup.json", to_dict(ResultsFile("startup", "Start-up", "cpu", False, {},
                                                                        environment, (case,))))
        write_json_atomic(folder / ENVIRONMENT_RECORD, {"release": name, "tensorflow": f"{name}.0", "packages": []})
    history = load_history(tmp_path, "cpu")
    series = charts.trend_series(history, "startup", trends.HISTORY_GROUP)
    # "Pass", as the page and the passes table name them.
    assert list(series) == ["import tensorflow · pass 1", "import tensorflow · pass 2"]
    one, two = ([point.estimate_s for point in points] for points in series.values())
    assert all(0.99 < a < 1.1 for a in one) and all(1.49 < b < 1.6 for b in two)
    # The largest move between passes is one case's, as the per-pass table gives it (not a median).
    move = trends.largest_pass_move(history, "startup")
    assert move is not None and move.case == "import tensorflow" and 1.49 < move.factor < 1.51
    quantities = charts.trend_quantities(history, "startup", trends.HISTORY_GROUP)
    assert quantities == {"import tensorflow": "cold start: import time"}
    svg = charts.trend_svg(series, [item.release for item in history], "startup", trends.HISTORY_GROUP, "light",
                                   quantities)
    # A line per pass, with no interval; the caption does not call a pass of cold starts "one process".
    assert "pass 2" in svg and "a line per pass" in svg and "no interval" in svg and "sitting" not in svg
    assert "one process" not in svg
    # A cold start is labelled as one, not as a time per call.
    assert "cold start: import time (s)" in svg and "time per call" not in svg
    assert "10th percentile of its cold starts" in svg
    # Its title says what it shows, not the example's name; no caption line runs past the figure's width.
    assert "Start-up on every release" in svg and ">startup<" not in svg
    captions = [line for line in re.findall(r">([^<>]+)</text>", svg) if "cold start" in line or "interval" in line]
    assert captions and all(len(line) <= line_chars(TEXT_PT) for line in captions)


def test_releases_measured_on_different_cpu_models_are_not_compared(tmp_path):
    _history_tree(tmp_path, {"2.15": 1.0, "2.16": 2.0})
    path = release_folder(tmp_path, "cpu", Release(2, 16)) / "releases.json"
    results = _release_results(2.0)
    write_json_atomic(path, to_dict(ResultsFile(**{**results.__dict__, "source": None,
                                                   "environment": {**results.environment, "cpu_model": "Other"}})))
    history = load_history(tmp_path, "cpu")
    assert trends.steps(history, "releases") == []
    assert "not compared (different CPUs)" in tables.trend_table(history, "releases", "ops")
    with pytest.raises(trends.DifferentMachines, match="different CPU models"):
        trends.across(history, "releases", "graph", Release(2, 15), Release(2, 16))


def test_history_folders_that_name_no_release_and_linked_records_are_refused(tmp_path):
    _history_tree(tmp_path, {"2.15": 1.0})
    (tmp_path / "cpu" / "history" / ".staging-tf-2.16-1").mkdir()  # a run in progress: skipped
    assert [item.release.name for item in load_history(tmp_path, "cpu")] == ["2.15"]
    (tmp_path / "cpu" / "history" / "tf-9.99").mkdir()
    with pytest.raises(ResultsFileError, match="not a release folder"):
        load_history(tmp_path, "cpu")
    (tmp_path / "cpu" / "history" / "tf-9.99").rmdir()
    record = release_folder(tmp_path, "cpu", Release(2, 15)) / ENVIRONMENT_RECORD
    record.write_text(json.dumps({"tensorflow": {"not": "text"}}))
    with pytest.raises(ResultsFileError, match="tensorflow"):
        load_history(tmp_path, "cpu")
    record.unlink()
    record.symlink_to("/etc/passwd")
    with pytest.raises(ResultsFileError, match="symbolic link"):
        load_history(tmp_path, "cpu")


def test_merge_brings_each_release_with_its_environment_newest_run_winning(tmp_path):
    first = _history_tree(tmp_path / "first", {"2.15": 1.0, "2.16": 1.0})
    newer = tmp_path / "second"
    folder = release_folder(newer, "cpu", Release(2, 16))
    newest = _release_results(3.0, "2026-02-01T00:00:00+00:00")
    newest = ResultsFile(**{**newest.__dict__, "environment": {**newest.environment, "tensorflow": "2.16.9"}})
    write_json_atomic(folder / "releases.json", to_dict(newest))
    write_json_atomic(folder / ENVIRONMENT_RECORD, {"release": "2.16", "tensorflow": "2.16.9", "packages": []})
    write_json_atomic(folder / "releases.failed.json", {"error": "x"})  # a failure record is not merged

    report = merge_results([first, newer], tmp_path / "into")

    assert len(report.written) == 2 and report.ignored
    history = load_history(tmp_path / "into", "cpu")
    assert [item.release.name for item in history] == ["2.15", "2.16"]
    assert history[1].environment["tensorflow"] == "2.16.9"
    assert history[1].results["releases"].environment["utc_time"].startswith("2026-02-01")


@pytest.mark.slow  # builds two release environments and measures in them
def test_two_passes_measure_each_release_twice_and_pool_its_processes(tmp_path, capsys):
    out, envs = tmp_path / "results", tmp_path / "envs"
    older = Release(2, INSTALLED.minor - 1)
    _installed_environment(envs, older)
    _installed_environment(envs, INSTALLED)
    examples = _examples(tmp_path, tiny=TINY_EXAMPLE)

    code = main(["--examples", str(examples), "history", "tiny", "--tf", f"{older.name},{INSTALLED.name}",
                 "--quick", "--passes", "2", "--out", str(out), "--envs", str(envs)])

    assert code == 0
    order = re.findall(r"\] TensorFlow (2\.\d+), pass (\d)/2", capsys.readouterr().err)
    # The second pass runs the releases in the opposite order.
    assert order == [(older.name, "1"), (INSTALLED.name, "1"), (INSTALLED.name, "2"), (older.name, "2")]
    for item in load_history(out, "cpu"):
        results = item.results["tiny"]
        assert len(results.case("add").runs) == 2  # one quick process from each pass
        assert len(results.environment["sittings"]) == 2


def test_pool_joins_two_sittings_of_the_same_code_and_refuses_others(tmp_path):
    first, second = _release_results(1.0), _release_results(1.2, "2026-01-01T01:00:00+00:00")
    pooled = pool(first, second)
    assert len(pooled.case("graph").runs) == 4
    assert pooled.environment["sittings"] == ["2026-01-01T00:00:00+00:00", "2026-01-01T01:00:00+00:00"]
    other_code = ResultsFile(**{**second.__dict__, "environment": {**second.environment, "git_commit": "abc"}})
    with pytest.raises(PoolError, match="git_commit"):
        pool(first, other_code)
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "b"), "--into", str(tmp_path / "c")]) == 2


def test_pool_trees_pool_history_files_with_their_environment(tmp_path):
    _history_tree(tmp_path / "a", {"2.15": 1.0, "2.16": 1.0})
    _history_tree(tmp_path / "b", {"2.16": 1.0}, "2026-01-01T01:00:00+00:00")
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "b"), "--into", str(tmp_path / "c")]) == 0
    [item] = load_history(tmp_path / "c", "cpu")
    assert item.release.name == "2.16" and len(item.results["releases"].case("graph").runs) == 4
    assert item.environment["release"] == "2.16"


# ---------------------------------------------------------------- the releases example


def test_a_mode_a_release_cannot_run_is_left_out_and_named_with_its_reason(monkeypatch):
    module = ExampleScript("releases", REPO / "examples" / "releases.py").load()
    monkeypatch.setattr(module, "tf1_style_missing", lambda: "needs the tf-keras package")
    workload = module.workload(quick=True)
    labels = [case.label for case in workload.cases]
    assert not [label for label in labels if "TF1-style" in label]
    assert workload.params["not_run"] == {"tiny model · TF1-style train_on_batch": "needs the tf-keras package",
                                          "small model · TF1-style train_on_batch": "needs the tf-keras package"}
    assert "tiny model · train_on_batch" in labels


def test_the_environment_table_says_which_modes_a_release_did_not_run(tmp_path):
    _history_tree(tmp_path, {"2.16": 1.0})
    path = release_folder(tmp_path, "cpu", Release(2, 16)) / "releases.json"
    results = _release_results(1.0)
    write_json_atomic(path, to_dict(ResultsFile(**{**results.__dict__, "params": {"not_run": {"x · TF1-style": "r"}},
                                                   "source": None})))
    table = tables.environments_table(load_history(tmp_path, "cpu"), "releases")
    assert "measured; not run: x · TF1-style" in table


# ---------------------------------------------------------------- the page


def test_the_release_page_without_a_history_says_not_yet_measured(quick_site):
    page = (quick_site / "releases" / "index.html").read_text()
    assert "Not yet measured on CPU" in page and "Not yet measured on GPU" in page
    assert "tfspeedlab history --runner cpu" in page  # what fills it (the GPU has one line for the whole page)
    assert "{{" not in page


def test_the_release_page_shows_every_committed_release_with_its_figures(committed_site):
    history = load_history(REPO / "results", "cpu")
    assert len([item for item in history if "releases" in item.results]) >= 8
    page = (committed_site / "releases" / "index.html").read_text()
    for item in history:
        assert f"<code>{item.environment['tensorflow']}</code>" in page
        results = item.results["releases"]
        # Every release's time of one case reaches its trend table.
        assert format_time(intervals.estimate_s(results.case("training step · train_on_batch"))) in page
    for workload in trends.workload_groups(history, "releases"):
        for theme in ("light", "dark"):
            chart = committed_site / chart_uri("cpu", "releases", workload, theme)
            assert chart.read_text().startswith("<?xml"), chart
    assert "Not yet measured on GPU" in page  # no GPU history until a GPU runner measures one


def test_the_listing_threshold_stays_above_the_drift_between_passes_of_the_committed_history():
    # The page says smaller changes may be the machine's: that holds only while the threshold is
    # above the largest median move of one release between its two passes.
    drift = trends.largest_drift(load_history(REPO / "results", "cpu"), "releases")
    assert drift is not None and drift < trends.MATERIAL_CHANGE


def test_a_malformed_history_file_stops_the_build_naming_it(quick_results, tmp_path):
    results = site_results(quick_results, tmp_path / "results")
    record = release_folder(results, "cpu", Release(2, 15)) / ENVIRONMENT_RECORD
    record.parent.mkdir(parents=True)
    record.write_text("{not json")
    completed = build_site(results, tmp_path / "site")
    assert completed.returncode != 0
    assert "malformed history file" in completed.stderr and "environment.json" in completed.stderr


# ---------------------------------------------------------------- CI


def test_the_history_workflow_runs_one_job_per_release_and_merges_them():
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "history.yml").read_text())
    matrix = workflow["jobs"]["release"]["strategy"]["matrix"]["release"]
    assert matrix == [release.name for release in ALL_RELEASES]
    assert workflow["jobs"]["release"]["strategy"]["fail-fast"] is False
    merge_steps = " ".join(step.get("run", "") for step in workflow["jobs"]["merge"]["steps"])
    assert "tfspeedlab merge" in merge_steps


# ---------------------------------------------------------------- one real older release (opt-in)


@pytest.mark.skipif(os.environ.get("TFSPEEDLAB_SLOW_HISTORY") != "1",
                    reason="downloads TensorFlow 2.12 (about 200 MB); set TFSPEEDLAB_SLOW_HISTORY=1")
def test_a_real_older_release_builds_and_runs(tmp_path):
    out = tmp_path / "results"
    code = main(["history", "--tf", "2.12", "--quick", "--out", str(out)])
    assert code == 0
    [item] = load_history(out, "cpu")
    assert item.environment["tensorflow"].startswith("2.12.") and item.environment["keras"].startswith("2.12")
    assert item.results["releases"].environment["tensorflow"].startswith("2.12.")


def test_a_change_between_releases_reads_in_the_four_verdicts_and_none_from_one_process():
    from tfspeedlab.core import wording
    from tfspeedlab.core.stats.intervals import Ratio

    wide = wording.change_cell(Ratio(1.1, 0.04, 19.0, processes=3))
    assert wide.startswith("inconclusive here (") and "slower to" in wide
    assert wording.change_cell(Ratio(1.0, 0.95, 1.05, processes=3)) == "the same within 6%"
    assert wording.change_cell(Ratio(2.0, 1.8, 2.2, processes=3)).startswith("2.00×")
    assert wording.change_cell(Ratio(2.0, 1.8, 2.2, processes=1)) == wording.NO_VERDICT_CELL


def _passes_tree(root: Path, per_pass: int) -> list:
    """Start-up on two releases, each pooled from two passes of ``per_pass`` processes; 2.16 twice as slow."""
    for name, factor in (("2.15", 1.0), ("2.16", 2.0)):
        runs = tuple(Measurement(tuple(factor * (1.0 + 0.01 * i + 0.1 * p) for i in range(4)), 1, 0.05, "test")
                     for p in range(2 * per_pass))
        case = CaseResult("import tensorflow", {"kind": "import", "in_history": True}, runs)
        base = synthetic_results(example="startup")
        environment = {**base.environment, "tensorflow": f"{name}.0", "sitting_runs": [per_pass, per_pass]}
        folder = release_folder(root, "cpu", parse_selection(name)[0])
        write_json_atomic(folder / "startup.json", to_dict(ResultsFile("startup", "Start-up", "cpu", False, {},
                                                                        environment, (case,))))
        write_json_atomic(folder / ENVIRONMENT_RECORD, {"release": name, "tensorflow": f"{name}.0", "packages": []})
    return load_history(root, "cpu")


def test_a_change_from_one_process_per_pass_gets_no_verdict_however_many_passes_pooled_it(tmp_path):
    """Start-up's history pools two passes of one process each: its last row read "inconclusive here
    (52.5× slower to 25.0× faster)" beside a chart saying "no interval: one process per pass". Its note
    gives the reason, the passes' gap, not "timed in one process"."""
    from tfspeedlab.core import wording

    history = _passes_tree(tmp_path / "one", per_pass=1)
    labels = {"import tensorflow": "import tensorflow"}
    change = trends.across(history, "startup", "import tensorflow", Release(2, 15), Release(2, 16))
    assert change.one_process and change.value == pytest.approx(2.0, rel=0.05)
    table = tables.times_table(history, "startup", labels)
    assert table.splitlines()[-3].endswith(f"| {wording.NO_VERDICT_CELL} |")  # the last row, then the note
    gap = trends.pass_gap(history, "startup")
    # Each pass's blocks (1.0-1.03 s, then 1.1-1.13 s; 2.16 twice those) lie apart on both releases.
    assert (gap.passes, gap.blocks_per_pass, gap.apart, gap.pairs) == (2, 4, 2, 2)
    assert table.rstrip().endswith(tables.passes_note(gap)) and wording.ONE_PROCESS_NOTE not in table
    assert "2 passes" in table and "2 of the 2" in table
    assert not any(step.significant for step in trends.steps(history, "startup"))
    assert trends.material_steps(history, "startup") == []
    # The passes table: each pass's time, no column of no verdicts and no bare factor beside it.
    shifts = tables.sittings_table(history, "startup")
    assert wording.NO_VERDICT_CELL not in shifts and "×" not in shifts
    assert "| 2.16 | 2.01 s → 2.21 s |" in shifts.replace("\u00a0", " ")  # each pass's 10th percentile
    # Two processes in each pass: a verdict, as before.
    history = _passes_tree(tmp_path / "two", per_pass=2)
    change = trends.across(history, "startup", "import tensorflow", Release(2, 15), Release(2, 16))
    assert not change.one_process
    assert wording.NO_VERDICT_CELL not in tables.times_table(history, "startup", labels)
    assert trends.pass_gap(history, "startup") is None
