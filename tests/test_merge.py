"""``merge_results`` and ``tfspeedlab merge``: newest run wins, bad files refuse the whole merge."""

import dataclasses
import json
from pathlib import Path

import pytest

from conftest import snapshot, synthetic_results
from tfspeedlab import cli
from tfspeedlab.core.results.merge import MergeError, merge_results
from tfspeedlab.core.results.schema import ResultsFile, to_dict
from tfspeedlab.core.results.store import load_results, write_failure, write_json_atomic, write_results

GPU = [{"name": "Test GPU", "device_type": "GPU"}]


def _results(utc_time="2026-01-01T00:00:00+00:00", runner="cpu", example="demo", gpus=None) -> ResultsFile:
    results = synthetic_results(runner=runner, example=example)
    gpus = gpus if gpus is not None else (GPU if runner == "gpu" else [])
    return dataclasses.replace(results, environment={**results.environment, "utc_time": utc_time, "gpus": gpus})


def _tree(root: Path, *results: ResultsFile) -> Path:
    for item in results:
        write_results(item, root)
    return root


def test_merges_trees_keeping_the_newest_run_of_each_runner_and_example(tmp_path):
    old = _tree(tmp_path / "old", _results("2026-01-01T00:00:00+00:00"), _results(runner="gpu"))
    new = _tree(tmp_path / "new", _results("2026-02-01T00:00:00+00:00"), _results(example="other"))
    into = tmp_path / "into"

    report = merge_results([old, new], into)

    assert sorted(report.written) == sorted(
        [into / "cpu" / "demo.json", into / "cpu" / "other.json", into / "gpu" / "demo.json"]
    )
    assert report.superseded == [old / "cpu" / "demo.json"]
    assert load_results(into / "cpu" / "demo.json").environment["utc_time"] == "2026-02-01T00:00:00+00:00"
    assert (into / "cpu" / "demo.json").read_bytes() == (new / "cpu" / "demo.json").read_bytes()


def test_order_of_sources_does_not_matter_and_a_tie_keeps_the_first(tmp_path):
    old = _tree(tmp_path / "old", _results("2026-01-01T00:00:00+00:00"))
    new = _tree(tmp_path / "new", _results("2026-02-01T00:00:00+00:00"))
    merge_results([new, old], tmp_path / "into")
    assert load_results(tmp_path / "into/cpu/demo.json").environment["utc_time"].startswith("2026-02")

    twin = _tree(tmp_path / "twin", _results("2026-02-01T00:00:00+00:00"))
    report = merge_results([new, twin], tmp_path / "into2")
    assert report.superseded == [twin / "cpu" / "demo.json"]


def test_times_compare_as_times_not_as_text(tmp_path):
    # 01:00 at +02:00 is 23:00 UTC the day before: earlier, though it sorts later as text.
    east = _tree(tmp_path / "east", _results("2026-01-02T01:00:00+02:00"))
    west = _tree(tmp_path / "west", _results("2026-01-01T23:30:00+00:00"))
    merge_results([east, west], tmp_path / "into")
    assert load_results(tmp_path / "into/cpu/demo.json").environment["utc_time"] == "2026-01-01T23:30:00+00:00"


def test_never_deletes_and_never_replaces_a_newer_file_in_the_target(tmp_path):
    into = _tree(tmp_path / "into", _results("2026-03-01T00:00:00+00:00"), _results(example="mine"))
    failure = write_failure(into, "cpu", "mine", "RuntimeError", "traceback", "2026-03-02T00:00:00+00:00")
    (into / "cpu" / "notes.txt").write_text("kept\n")
    before = snapshot(into)
    source = _tree(tmp_path / "source", _results("2026-02-01T00:00:00+00:00"), _results(example="fresh"))

    report = merge_results([source], into)

    assert report.written == [into / "cpu" / "fresh.json"]
    assert report.unchanged == [into / "cpu" / "demo.json"]
    after = snapshot(into)
    assert {name: after[name] for name in before} == before
    assert failure.exists()


def test_accepts_a_runner_folder_a_ci_artifact_folder_and_single_files(tmp_path):
    cpu_folder = _tree(tmp_path / "a", _results()) / "cpu"
    artifact = tmp_path / "artifacts" / "results-gpu"
    write_json_atomic(artifact / "demo.json", to_dict(_results(runner="gpu")))
    single = _tree(tmp_path / "b", _results(example="single")) / "cpu" / "single.json"
    write_failure(tmp_path / "a", "cpu", "demo", "E", "tb", "2026-01-02T00:00:00+00:00")

    report = merge_results([cpu_folder, artifact, single], tmp_path / "into")

    assert snapshot(tmp_path / "into").keys() == {"cpu/demo.json", "cpu/single.json", "gpu/demo.json"}
    assert report.ignored == [cpu_folder / "demo.failed.json"]


def test_rewrites_a_file_written_by_a_run_byte_for_byte(tmp_path):
    # Merged files are re-serialised from the validated results; for a file
    # that `tfspeedlab run` wrote (through write_results), that must give back
    # exactly the same text, extra environment fields included.
    results = _results(runner="gpu")
    results = dataclasses.replace(results, environment={**results.environment, "gpu_driver": "999.1"})
    written = write_results(results, tmp_path / "run")
    merge_results([written], tmp_path / "into")
    assert (tmp_path / "into" / "gpu" / "demo.json").read_bytes() == written.read_bytes()


# ---------------------------------------------------------------- refusals: nothing is written


def _refused(sources: list[Path], into: Path) -> str:
    before = snapshot(into) if into.exists() else None
    with pytest.raises(MergeError) as caught:
        merge_results(sources, into)
    assert (snapshot(into) if into.exists() else None) == before, "a refused merge wrote something"
    return str(caught.value)


def test_refuses_everything_when_one_file_is_malformed(tmp_path):
    good = _tree(tmp_path / "good", _results(example="fine"))
    bad = _tree(tmp_path / "bad", _results())
    data = json.loads((bad / "cpu" / "demo.json").read_text())
    data["cases"][0]["runs"][0]["median_s"] = 123.0
    (bad / "cpu" / "demo.json").write_text(json.dumps(data))

    message = _refused([good, bad], tmp_path / "into")

    assert "nothing was written" in message
    assert f"{bad / 'cpu' / 'demo.json'}: field 'cases[0].runs[0].median_s'" in message


def test_refuses_a_file_whose_runner_disagrees_with_its_folder(tmp_path):
    source = tmp_path / "source"
    write_json_atomic(source / "cpu" / "demo.json", to_dict(_results(runner="gpu")))
    message = _refused([source], tmp_path / "into")
    assert "field 'runner' is 'gpu', but the file sits in the 'cpu' folder" in message


@pytest.mark.parametrize(("runner", "gpus", "problem"), [
    ("gpu", [], "is empty"),
    ("cpu", GPU, "lists a GPU"),
])
def test_refuses_an_environment_that_does_not_fit_the_runner(tmp_path, runner, gpus, problem):
    source = _tree(tmp_path / "source", _results(runner=runner, gpus=gpus))
    message = _refused([source], tmp_path / "into")
    assert f"field 'environment.gpus' {problem}" in message


def test_refuses_a_file_named_for_another_example(tmp_path):
    source = tmp_path / "source"
    write_json_atomic(source / "cpu" / "renamed.json", to_dict(_results()))
    assert "field 'example' is 'demo', but the file is named renamed.json" in _refused([source], tmp_path / "into")


def test_refuses_a_file_outside_a_runner_folder_and_lists_every_problem(tmp_path):
    loose = tmp_path / "loose" / "demo.json"
    write_json_atomic(loose, to_dict(_results()))
    empty = tmp_path / "empty"
    empty.mkdir()

    message = _refused([loose, empty, tmp_path / "missing"], tmp_path / "into")

    assert f"{loose}: cannot tell which runner" in message
    assert f"{empty}: no results files found" in message
    assert f"{tmp_path / 'missing'}: no such file or folder" in message


def test_refuses_to_replace_a_target_file_it_cannot_read(tmp_path):
    into = tmp_path / "into"
    (into / "cpu").mkdir(parents=True)
    (into / "cpu" / "demo.json").write_text("{ not json")
    source = _tree(tmp_path / "source", _results())
    assert "already in the target" in _refused([source], into)


# ---------------------------------------------------------------- the CLI


def test_cli_merges_and_reports(tmp_path, capsys):
    source = _tree(tmp_path / "source", _results())
    code = cli.main(["merge", str(source), "--into", str(tmp_path / "into")])
    out = capsys.readouterr().out
    assert code == 0
    assert f"wrote {tmp_path / 'into' / 'cpu' / 'demo.json'}" in out
    assert "1 written, 0 already up to date" in out


def test_cli_refusal_exits_2_with_the_reason(tmp_path, capsys):
    source = _tree(tmp_path / "source", _results(runner="gpu", gpus=[]))
    code = cli.main(["merge", str(source), "--into", str(tmp_path / "into")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("tfspeedlab: error: nothing was written:")
    assert "environment.gpus" in err
    assert not (tmp_path / "into").exists()


def test_profiler_traces_travel_with_their_results_and_stale_ones_go(tmp_path):
    new = _tree(tmp_path / "new", _results("2026-02-01T00:00:00+00:00"),
                _results("2026-02-01T00:00:00+00:00", example="other"))
    (new / "cpu" / "traces" / "demo").mkdir(parents=True)
    (new / "cpu" / "traces" / "demo" / "graph.xplane.pb").write_bytes(b"new trace")
    into = _tree(tmp_path / "into", _results("2026-01-01T00:00:00+00:00", example="other"))
    stale = into / "cpu" / "traces" / "other" / "eager.xplane.pb"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old trace of an older run")

    merge_results([new], into)

    assert (into / "cpu" / "traces" / "demo" / "graph.xplane.pb").read_bytes() == b"new trace"
    assert not stale.exists()  # the newer 'other' results came without traces
    assert sorted(p.name for p in into.iterdir()) == ["cpu"]  # no staging folder left
