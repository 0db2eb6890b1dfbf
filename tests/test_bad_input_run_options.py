"""Options that would lose measurements, refused before anything is measured: ``--only`` over the
pages' results however the path is written (``results/../results``, a symlink, the repository's
tree, ``$TFSPEEDLAB_RESULTS``), and a ``--processes`` (or ``--passes``) count the results file
could not hold, refused by the argument parser instead of by the write after the whole run."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import REPO, run_cli, snapshot
from tfspeedlab import cli
from tfspeedlab.core.results.schema import MAX_RUNS
from tfspeedlab.diagnosis import command as diagnose_command
from tfspeedlab.harness import supervisor
from tfspeedlab.site.site_data import RESULTS_VARIABLE

NARROWED = '''
# # Cases with parameters, for --only
import time
import tfspeedlab

def workload(quick=False):
    return tfspeedlab.Workload(name="narrowed", title="Narrowed", budget_s=0.05, cases=[
        tfspeedlab.Case(f"{mode} · {size}", time.sleep, (0.001,), params={"mode": mode, "size": size}, rounds=1)
        for mode in ("slow", "fast") for size in (1, 8)
    ])
'''
# What a committed file stands for here: whatever the command does, these bytes must stay.
COMMITTED = '{"a committed file": "the full example, every case"}\n'


@pytest.fixture
def examples(tmp_path):
    folder = tmp_path / "examples"
    folder.mkdir()
    (folder / "narrowed.py").write_text(textwrap.dedent(NARROWED))
    return folder


@pytest.fixture
def measured(monkeypatch):
    """What each command went on to measure, in place of measuring it: a refusal must come first."""
    calls: list[str] = []

    def run_examples(*args, **kwargs):
        calls.append("run")
        return iter(())

    def run_history(*args, **kwargs):
        calls.append("history")
        return []

    def diagnose(options):
        calls.append("diagnose")
        return 0

    monkeypatch.setattr(supervisor, "run_examples", run_examples)
    monkeypatch.setattr(cli, "run_history", run_history)
    monkeypatch.setattr(diagnose_command, "run", diagnose)
    monkeypatch.setattr(cli, "terminate_as_interrupt", lambda: None)  # this test process keeps its SIGTERM
    return calls


@pytest.fixture
def pages_results(tmp_path, monkeypatch):
    """A working folder with a ``results`` tree holding a committed file, as a checkout has."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(RESULTS_VARIABLE, raising=False)
    committed = tmp_path / "results" / "cpu" / "narrowed.json"
    committed.parent.mkdir(parents=True)
    committed.write_text(COMMITTED)
    return tmp_path / "results"


def _only_into(examples: Path, out: str) -> list[str]:
    return ["--examples", str(examples), "run", "narrowed", "--only", "size=1", "--runner", "cpu", "--out", out]


def _alias_of_results(tmp: Path) -> None:
    (tmp / "alias").symlink_to(tmp / "results")


def _runner_folder_linked_into_results(tmp: Path) -> None:
    (tmp / "other").mkdir()
    (tmp / "other" / "cpu").symlink_to(tmp / "results" / "cpu")


@pytest.mark.parametrize("out, make", [
    ("results/../results", None),
    ("{tmp}/results", None),
    ("alias", _alias_of_results),  # a symlink to results is results
    ("other", _runner_folder_linked_into_results),  # OUT/cpu/narrowed.json would land in results/cpu
    (str(REPO / "results" / ".." / "results"), None),  # the repository's own, from any working folder
])
def test_only_over_the_pages_results_is_refused_however_the_path_is_written(
        examples, pages_results, measured, capsys, tmp_path, out, make):
    if make:
        make(tmp_path)
    assert cli.main(_only_into(examples, out.format(tmp=tmp_path))) == 2
    assert "--only narrows an example" in capsys.readouterr().err
    assert measured == []
    assert (pages_results / "cpu" / "narrowed.json").read_text() == COMMITTED


def test_only_over_the_tree_a_build_is_pointed_at_is_refused(examples, pages_results, measured, capsys, tmp_path,
                                                             monkeypatch):
    built = tmp_path / "elsewhere"
    monkeypatch.setenv(RESULTS_VARIABLE, str(built))
    assert cli.main(_only_into(examples, f"{built}/cpu/..")) == 2
    assert "--only narrows an example" in capsys.readouterr().err and measured == []


def test_only_into_a_folder_of_its_own_goes_on_to_measure(examples, pages_results, measured, tmp_path):
    assert cli.main(_only_into(examples, str(tmp_path / "narrowed-results"))) == 0
    assert measured == ["run"]


def test_a_narrowed_run_leaves_the_committed_file_as_it_was(examples, pages_results, tmp_path):
    """End to end, in a fresh process: ``results/../results`` once replaced a full committed file."""
    before = snapshot(pages_results)
    completed = run_cli(*_only_into(examples, "results/../results"), cwd=tmp_path, timeout=300,
                        **{RESULTS_VARIABLE: ""})
    assert completed.returncode == 2, completed.stderr[-2000:]
    assert "--only narrows an example" in completed.stderr and "Traceback" not in completed.stderr
    assert snapshot(pages_results) == before


@pytest.mark.parametrize("command", [
    ["run", "narrowed"],
    ["history", "narrowed", "--tf", "2.21"],
    ["diagnose", "target.py:f"],
])
def test_more_processes_than_a_results_file_holds_are_refused_by_the_parser(examples, measured, capsys, tmp_path,
                                                                           command):
    arguments = ["--examples", str(examples), *command, "--processes"]
    out = [] if command[0] == "diagnose" else ["--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as refused:
        cli.main([*arguments, str(MAX_RUNS + 1), *out])
    assert refused.value.code == 2 and measured == []
    error = capsys.readouterr().err
    assert f"--processes: must be at most {MAX_RUNS}" in error and f"got {MAX_RUNS + 1}" in error
    # The most a file holds is still accepted, and the command goes on.
    assert cli.main([*arguments, str(MAX_RUNS), *out]) == 0
    assert measured == [command[0]]


def test_history_passes_whose_pooled_runs_a_results_file_cannot_hold_are_refused(examples, measured, capsys,
                                                                                 tmp_path):
    arguments = ["--examples", str(examples), "history", "narrowed", "--tf", "2.21", "--out", str(tmp_path / "out")]
    assert cli.main([*arguments, "--passes", "3", "--processes", str(MAX_RUNS // 2)]) == 2
    assert f"at most {MAX_RUNS}" in capsys.readouterr().err and measured == []
    assert cli.main([*arguments, "--passes", "2", "--processes", str(MAX_RUNS // 2)]) == 0
    assert measured == ["history"]

