"""The sample diagnoses of "Diagnose your own code": the committed reports say what the guide's own
full runs of the same functions say, on the same machine; they reach the page as the terminal
printed them; a malformed or misnamed file stops the build, naming it."""

import html
import json
from pathlib import Path

import pytest

from conftest import REPO, synthetic_results
from tfspeedlab.cli import main
from tfspeedlab.core.results.schema import ResultsFile, to_dict
from tfspeedlab.core.results.store import write_json_atomic
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.materiality import agrees
from tfspeedlab.diagnosis.report import function_report
from tfspeedlab.diagnosis.saved import DiagnosisFileError, Samples, load_samples
from tfspeedlab.site import directives

COMMITTED = load_samples(REPO / "results", "cpu")
# Each sample, the example it comes from, and its eager, tf.function and XLA cases there.
AGAINST_FULL_RUNS = {"small_ops": ("small_ops", "eager", "graph", "xla"),
                     "matmul": ("matmul", "eager 2048", "graph 2048", "xla 2048")}


def test_the_three_samples_and_their_full_runs_are_committed():
    assert sorted(COMMITTED.reports) == ["matmul", "small_ops", "tracing"]
    assert sorted(COMMITTED.guide) == ["matmul", "small_ops", "tracing"]
    for sample in COMMITTED.reports.values():
        # Measured in one sitting, on one machine, with the same TensorFlow.
        guide = COMMITTED.guide["small_ops"].environment
        assert sample.environment["cpu_model"] == guide["cpu_model"]
        assert sample.environment["tensorflow"] == guide["tensorflow"]


@pytest.mark.parametrize("name", sorted(AGAINST_FULL_RUNS))
def test_each_verdict_is_the_one_the_full_run_on_the_same_machine_gives(name):
    example, eager, graph, xla = AGAINST_FULL_RUNS[name]
    diagnosis = COMMITTED.reports[name].diagnosis
    for mode, case in (("tf.function", graph), ("XLA", xla)):
        assert agrees(diagnosis.speedups[mode], intervals.speedup(COMMITTED.guide[example], eager, case))


def test_the_three_kinds_get_the_three_verdicts():
    reports = {name: sample.diagnosis for name, sample in COMMITTED.reports.items()}
    assert reports["small_ops"].verdict.startswith("Wrap it in tf.function")
    assert reports["matmul"].verdict.startswith("tf.function changes little")
    assert reports["tracing"].verdict.startswith("Fix the retracing first")


def test_the_retracing_sample_traces_once_per_new_number_as_the_full_run_counted():
    probe = COMMITTED.reports["tracing"].diagnosis.retracing
    assert probe.python_number_traces == 2  # two new values, two traces
    tracing = COMMITTED.guide["tracing"]
    calls = tracing.case("python scalars").params["calls"]
    assert tracing.case("python scalars").metrics["traces"] == calls
    assert tracing.case("fix: tensor scalars").metrics["traces"] == 1


def test_the_page_shows_each_report_as_the_terminal_printed_it(committed_site):
    page = (committed_site / "diagnose" / "index.html").read_text()
    for sample in COMMITTED.reports.values():
        first_table_row = function_report(sample.diagnosis).sections[1].splitlines()[2]
        assert first_table_row.split()[0] == "eager" and first_table_row.split()[1] in page
        assert sample.diagnosis.target.split(" --inputs")[0] in page
    assert page.count(">Verdict<") == 3
    assert "not measured in this build" not in page


def test_one_report_is_the_terminal_text_the_markdown_file_and_the_html_page():
    report = function_report(COMMITTED.reports["small_ops"].diagnosis)
    assert report.text() == f"{report.body}\n\nVerdict: {report.verdict}"
    markdown = report.markdown()
    assert f"```text\n{report.body}\n```" in markdown and f"**Verdict.** {report.verdict}\n" in markdown
    assert "(https://tfspeedlab.github.io/tfspeedlab/small-ops/)" in markdown
    page = report.html()
    assert f"<pre>{html.escape(report.body)}</pre>" in page and html.escape(report.verdict) in page


def test_a_build_without_diagnoses_says_not_yet_measured(quick_site):
    page = (quick_site / "diagnose" / "index.html").read_text()
    assert "Not yet measured on CPU" in page and "not measured in this build" in page


def test_a_malformed_diagnosis_file_is_refused_naming_it(tmp_path):
    # The site plugin turns this error into a failed build naming the file (as for results files).
    folder = tmp_path / "cpu" / "diagnose"
    folder.mkdir(parents=True)
    data = json.loads((REPO / "results" / "cpu" / "diagnose" / "small_ops.json").read_text())
    del data["cases"][0]["runs"][0]["samples_s"]
    (folder / "small_ops.json").write_text(json.dumps(data))
    with pytest.raises(DiagnosisFileError, match="small_ops.json"):
        load_samples(tmp_path, "cpu")


@pytest.mark.parametrize("name", ["Small-Ops", "../up", "a b"])
def test_a_sample_named_outside_lower_case_letters_digits_and_underscores_is_refused(tmp_path, name):
    folder = tmp_path / "cpu" / "diagnose"
    folder.mkdir(parents=True)
    (folder / f"{name.replace('/', '_')}.json").write_text("{}")
    with pytest.raises(DiagnosisFileError, match="lower-case letters, digits and _"):
        load_samples(tmp_path, "cpu")


def test_a_sample_without_its_diagnosis_block_is_refused(tmp_path):
    folder = tmp_path / "cpu" / "diagnose"
    folder.mkdir(parents=True)
    data = json.loads((REPO / "results" / "cpu" / "diagnose" / "matmul.json").read_text())
    del data["diagnosis"]
    (folder / "matmul.json").write_text(json.dumps(data))
    with pytest.raises(DiagnosisFileError, match="no diagnosis block"):
        load_samples(tmp_path, "cpu")


def test_a_diagnosis_that_disagrees_with_its_full_run_stops_the_build(tmp_path):
    # The matmul sample finds no material difference; a full run where the graph is ten times faster disagrees.
    samples = Samples({"matmul": COMMITTED.reports["matmul"]}, {"demo": synthetic_results()})
    context = directives.Context(results={"cpu": {}, "gpu": {}}, results_root=tmp_path, page_uri="diagnose.md",
                                 diagnoses={"cpu": samples, "gpu": Samples({}, {})})
    with pytest.raises(directives.DirectiveError, match="re-measure both"):
        directives.render("diagnosis_agreement", ["matmul", "demo", "eager", "graph", "graph"], context)


def _copy_sample(name: str, root: Path, hour: int | None) -> None:
    """The committed sample ``name`` under ``root``: as committed (``hour`` None), or as if saved in
    one new sitting ``hour`` hours into 2027 (the same sitting twice is refused: it would pool a
    process with itself)."""
    data = json.loads((REPO / "results" / "cpu" / "diagnose" / f"{name}.json").read_text())
    if hour is not None:
        data["environment"]["utc_time"] = f"2027-01-01T{hour:02d}:00:00+00:00"
        data["environment"].pop("sittings", None)
        data["environment"].pop("sitting_runs", None)
    write_json_atomic(root / "cpu" / "diagnose" / f"{name}.json", data)


def test_pool_writes_nothing_when_results_files_disagree_beside_diagnoses_that_pool(tmp_path, capsys):
    # Pooling diagnoses must not hide a results file that cannot pool: the command stops, writing nothing.
    demo = synthetic_results()
    sides = {"a": demo, "b": ResultsFile(**{**demo.__dict__, "environment": {**demo.environment, "git_commit": "abc"}})}
    for hour, (side, results) in enumerate(sides.items()):
        write_json_atomic(tmp_path / side / "cpu" / "demo.json", to_dict(results))
        _copy_sample("small_ops", tmp_path / side, hour)
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "b"), "--into", str(tmp_path / "c")]) == 2
    assert "environment.git_commit differs" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_pool_joins_saved_diagnoses_when_no_results_file_sits_in_both(tmp_path, capsys):
    _copy_sample("tracing", tmp_path / "a", None)
    _copy_sample("tracing", tmp_path / "b", 0)
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "b"), "--into", str(tmp_path / "c")]) == 0
    pooled = load_samples(tmp_path / "c", "cpu").reports["tracing"]
    committed = COMMITTED.reports["tracing"]
    assert pooled.diagnosis.processes == 2 * committed.diagnosis.processes
    assert len(pooled.environment["sittings"]) == len(committed.environment["sittings"]) + 1


def test_a_pooled_budget_reads_to_the_tenth_of_a_second():
    from tfspeedlab.diagnosis.report import plain_seconds
    assert [plain_seconds(value) for value in (30.0, 68.4024, 176.9, 0.5)] == ["30", "68.4", "176.9", "0.5"]
