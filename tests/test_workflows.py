"""The GitHub workflows: linted by actionlint and zizmor, held to our policy, and the results script they call."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, synthetic_results
from tfspeedlab.core.results.schema import to_dict
from tfspeedlab.core.results.store import write_json_atomic

WORKFLOWS = REPO / ".github" / "workflows"
COLLECT = REPO / "scripts" / "collect-results.sh"
# Tests run as `.venv/bin/python -m pytest` with no venv activated, so the
# linters the test extra installs are found beside the interpreter, not on PATH.
BIN = Path(sys.executable).parent


def _tool(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{name} is not beside {sys.executable}; install the test extra: pip install -e '.[test]'")
    return path


def _workflow_files() -> list[str]:
    files = sorted(str(path) for path in WORKFLOWS.glob("*.y*ml"))
    assert files, f"no workflows in {WORKFLOWS}"
    return files


def _run(command: list, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120, **kwargs)


def test_actionlint_finds_nothing():
    # The config file declares the self-hosted runner's `gpu` label.
    completed = _run([_tool("actionlint"), "-no-color", "-config-file", ".github/actionlint.yaml", *_workflow_files()])
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0 and not completed.stdout.strip(), output


def test_zizmor_finds_nothing():
    # --offline: CI machines reach package registries only, and the online
    # audits (are these commits really in those repositories?) need GitHub.
    # --strict-collection: otherwise a file that fails zizmor's schema is
    # skipped with a warning and the run still reports no findings.
    completed = _run([
        _tool("zizmor"), "--offline", "--strict-collection", "--no-progress", "--color=never", "--format=json",
        str(WORKFLOWS),
    ])
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert json.loads(completed.stdout) == [], output


# ---------------------------------------------------------------- policy the linters do not check


def _load(name: str) -> dict:
    workflow = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    # YAML 1.1 reads the bare key `on` as the boolean true.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def test_every_job_is_bounded_and_every_action_pinned():
    for path in WORKFLOWS.glob("*.y*ml"):
        text = path.read_text(encoding="utf-8")
        for line in re.findall(r"uses:\s*(\S.*)", text):
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*", line), f"{path}: unpinned {line}"
        workflow = _load(path.name)
        # It runs with the base repository's token on a pull request's code.
        assert "pull_request_target" not in workflow["on"], path
        assert workflow["permissions"] in ({}, {"contents": "read"}), path
        for name, job in workflow["jobs"].items():
            assert "timeout-minutes" in job, f"{path}: job {name} has no timeout"
            for step in job.get("steps", []):
                if step.get("uses", "").startswith("actions/checkout@"):
                    assert step["with"]["persist-credentials"] is False, f"{path}: job {name}"


def test_benchmarks_keep_the_gpu_and_write_scopes_away_from_strangers():
    workflow = _load("benchmarks.yml")
    assert set(workflow["on"]) == {"push", "schedule", "workflow_dispatch"}
    jobs = workflow["jobs"]
    assert jobs["gpu"]["runs-on"] == ["self-hosted", "linux", "gpu"]
    assert "github.event.repository.fork" in jobs["gpu"]["if"]
    writers = {name for name, job in jobs.items() if "write" in job.get("permissions", {}).values()}
    assert writers == {"deploy"}
    assert jobs["deploy"]["environment"]["name"] == "github-pages"
    assert "refs/heads/main" in jobs["deploy"]["if"]
    assert set(jobs["site"]["needs"]) == {"cpu", "gpu"}


# ---------------------------------------------------------------- scripts/collect-results.sh


def _collect(tmp_path: Path, *runners: str) -> subprocess.CompletedProcess:
    summary = tmp_path / "summary.md"
    # The script appends to GITHUB_STEP_SUMMARY when set: point it here, so a
    # test run inside GitHub Actions leaves the real summary alone.
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    return subprocess.run(
        ["bash", str(COLLECT), str(tmp_path / "artifacts"), str(tmp_path / "results"), *runners],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env,
    )


def _place(path: Path, example: str = "demo") -> None:
    write_json_atomic(path, to_dict(synthetic_results(example=example)))


def test_collect_uses_ci_results_where_a_job_uploaded_them_and_committed_ones_elsewhere(tmp_path):
    _place(tmp_path / "artifacts" / "results-cpu" / "demo.json")
    # Committed CPU results of an example the CI run did not produce: the
    # artifact is a whole runner folder, so it replaces rather than mixes.
    _place(tmp_path / "results" / "cpu" / "stale.json", example="stale")
    committed_gpu = tmp_path / "results" / "gpu" / "demo.json"
    _place(committed_gpu)
    before = committed_gpu.read_bytes()

    completed = _collect(tmp_path, "cpu", "gpu")

    assert completed.returncode == 0, completed.stderr
    results = tmp_path / "results"
    assert sorted(p.name for p in (results / "cpu").iterdir()) == ["SOURCE", "demo.json"]
    assert (results / "cpu" / "demo.json").read_bytes() == (tmp_path / "artifacts/results-cpu/demo.json").read_bytes()
    assert (results / "cpu" / "SOURCE").read_text() == "ci\n"
    assert committed_gpu.read_bytes() == before
    assert (results / "gpu" / "SOURCE").read_text() == "committed\n"
    summary = (tmp_path / "summary.md").read_text()
    assert "cpu: results measured in this CI run" in summary and "gpu: no results from this run" in summary


def test_collect_treats_an_empty_artifact_as_missing_and_invents_no_folder(tmp_path):
    (tmp_path / "artifacts" / "results-cpu").mkdir(parents=True)
    _place(tmp_path / "results" / "cpu" / "demo.json")

    completed = _collect(tmp_path, "cpu", "gpu")

    assert completed.returncode == 0, completed.stderr
    assert (tmp_path / "results" / "cpu" / "SOURCE").read_text() == "committed\n"
    # No GPU results anywhere: no folder, so the site says so instead of an empty table.
    assert not (tmp_path / "results" / "gpu").exists()
    assert "gpu: no results from this run and none committed" in completed.stdout


@pytest.mark.parametrize("runner", ["../cpu", "cpu/x", ""])
def test_collect_refuses_a_runner_name_that_is_not_a_plain_folder_name(tmp_path, runner):
    completed = _collect(tmp_path, runner)
    assert completed.returncode == 2
    assert "bad runner name" in completed.stderr


@pytest.mark.parametrize("folder, file", [("history/tf-2.15", "environment.json"), ("diagnose", "small_ops.json")])
def test_collect_keeps_committed_history_and_diagnoses_when_the_artifact_has_none(tmp_path, folder, file):
    # The benchmarks job measures neither the release history nor the sample diagnoses (their
    # own commands do): a CI artifact replacing results/cpu/ must not take them with it.
    _place(tmp_path / "artifacts" / "results-cpu" / "demo.json")
    kept = tmp_path / "results" / "cpu" / folder / file
    kept.parent.mkdir(parents=True)
    kept.write_text('{"kept": true}')

    completed = _collect(tmp_path, "cpu")

    assert completed.returncode == 0, completed.stderr
    assert sorted(p.name for p in (tmp_path / "results" / "cpu").iterdir()) == sorted(
        ["SOURCE", "demo.json", folder.split("/")[0]])
    assert kept.read_text() == '{"kept": true}'
