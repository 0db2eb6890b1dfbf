import json
from dataclasses import replace

import pytest

from conftest import synthetic_results
from tfspeedlab.core.results.schema import ResultsFileError, to_dict
from tfspeedlab.core.results.store import load_results, load_runner, write_json_atomic, write_results
from tfspeedlab.core.stats import intervals


def written(tmp_path, mutate=None):
    data = to_dict(synthetic_results())
    if mutate:
        mutate(data)
    path = tmp_path / "cpu" / "demo.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_round_trip(tmp_path):
    original = synthetic_results()
    path = write_results(original, tmp_path)
    assert path == tmp_path / "cpu" / "demo.json"
    loaded = load_results(path)
    assert loaded == original
    assert intervals.speedup(loaded, "eager", "graph").value == pytest.approx(10.0)


def test_metrics_read_as_fields_and_are_written_as_the_same_mapping(tmp_path):
    original = synthetic_results()
    case = replace(original.cases[0], metrics={"loss_start": 2.0, "loss_end": 0.5, "tf_function_fraction": 0.25})
    loaded = load_results(write_results(replace(original, cases=(case, *original.cases[1:])), tmp_path))
    metrics = loaded.cases[0].metrics
    assert (metrics.loss_start, metrics.loss_end, metrics.weight_change) == (2.0, 0.5, None)
    assert metrics.layer_fraction("tf_function") == 0.25
    assert to_dict(loaded)["cases"][0]["metrics"] == {"loss_start": 2.0, "loss_end": 0.5, "tf_function_fraction": 0.25}


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "cpu" / "demo.json"
    write_json_atomic(target, {"version": "old"})
    with pytest.raises(TypeError):
        write_json_atomic(target, {"version": object()})  # not JSON-serialisable
    assert json.loads(target.read_text()) == {"version": "old"}
    assert list(target.parent.iterdir()) == [target]  # no temporary file left behind


def test_not_json_names_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"schema": "tfspeedlab.results", ')
    with pytest.raises(ResultsFileError, match="broken.json"):
        load_results(path)


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["cases"][1]["runs"][0].pop("samples_s"), "cases[1].runs[0].samples_s"),
        (lambda d: d["cases"][0]["runs"][0].update(samples_s=[]), "cases[0].runs[0].samples_s"),
        (lambda d: d["cases"][0]["runs"][0].update(calls_per_block="ten"), "cases[0].runs[0].calls_per_block"),
        (lambda d: d["cases"][0]["runs"][0].update(first_call_s=-1), "cases[0].runs[0].first_call_s"),
        (lambda d: d["cases"][0].update(runs=[]), "cases[0].runs"),
        (lambda d: d["cases"][0].update(runs="one"), "cases[0].runs"),
        (lambda d: d["cases"][0]["runs"].append("a run"), "cases[0].runs[1]"),
        (lambda d: d["environment"].pop("tensorflow"), "environment.tensorflow"),
        (lambda d: d.update(runner="tpu"), "runner"),
        (lambda d: d.update(baseline="nope"), "baseline"),
        (lambda d: d.update(quick="yes"), "quick"),
        (lambda d: d.update(schema="something.else"), "schema"),
    ],
)
def test_malformed_file_error_names_file_and_field(tmp_path, mutate, field):
    path = written(tmp_path, mutate)
    with pytest.raises(ResultsFileError) as raised:
        load_results(path)
    assert raised.value.field == field
    assert str(path) in str(raised.value) and f"'{field}'" in str(raised.value)


@pytest.mark.parametrize("version", [0, 1, 2])
def test_old_schema_version_is_refused_with_advice(tmp_path, version):
    path = written(tmp_path, lambda d: d.update(schema_version=version))
    with pytest.raises(ResultsFileError, match="schema_version.*re-run") as raised:
        load_results(path)
    assert str(path) in str(raised.value)


def test_hand_edited_statistic_is_refused(tmp_path):
    run = lambda d: d["cases"][0]["runs"][0]  # noqa: E731
    path = written(tmp_path, lambda d: run(d).update(median_s=run(d)["median_s"] / 2))
    with pytest.raises(ResultsFileError, match=r"cases\[0\].runs\[0\].median_s.*derived from samples"):
        load_results(path)


def test_load_runner_skips_failure_records_and_checks_names(tmp_path):
    write_results(synthetic_results(), tmp_path)
    (tmp_path / "cpu" / "demo.failed.json").write_text("{}")
    assert list(load_runner(tmp_path / "cpu")) == ["demo"]
    (tmp_path / "cpu" / "demo.json").rename(tmp_path / "cpu" / "other.json")
    with pytest.raises(ResultsFileError, match="other.json"):
        load_runner(tmp_path / "cpu")
