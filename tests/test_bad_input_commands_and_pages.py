"""Bad input to the commands and the pages: ``diagnose``, ``pool``, ``compare``, ``history`` and
saved diagnoses on pages, tried as an attacker and an unlucky user would; each test is named by the
behaviour it holds the code to."""

from __future__ import annotations

import dataclasses
import html.parser
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import markdown as python_markdown
import pytest

from conftest import REPO, build_site, run_cli, snapshot, synthetic_results
from tfspeedlab.cli import main
from tfspeedlab.core.results.history import ReleaseResults, load_history, release_folder
from tfspeedlab.core.results.pool import PoolError, pool
from tfspeedlab.core.results.schema import ResultsFileError
from tfspeedlab.core.results.store import read_json, write_json_atomic, write_results
from tfspeedlab.core.spec.releases import Release, release_from_folder
from tfspeedlab.diagnosis.report_files import check_report_paths
from tfspeedlab.diagnosis.saved import DiagnosisFileError, load as load_diagnosis
from tfspeedlab.harness.compare import CompareError, compare
from tfspeedlab.harness.exits import UsageError
from tfspeedlab.history import environments, tables as history_tables
from tfspeedlab.render.markdown import text
from tfspeedlab.site import site_data, tables

SAMPLE = '''
import os
import sys
import tensorflow as tf

def small(x):
    for _ in range(5):
        x = tf.nn.relu(x * 0.99 + 0.01)
    return x

def make_inputs():
    return (tf.ones([4, 4]),), {}

def exits(x):
    sys.exit(0)

def hard_exits(x):
    os._exit(0)

def exits_when_traced(x):
    if not tf.executing_eagerly():
        sys.exit(0)
    return x * 2.0

def hard_exits_when_compiled(x):
    if not tf.executing_eagerly():
        os._exit(0)
    return x * 2.0

def generator_exit(x):
    raise GeneratorExit("from the reader")

def inputs_exit():
    sys.exit(0)

def chatty(x):
    print("a line the reader printed")
    return tf.nn.relu(x)

def long_xla_error(x):
    return tf.numpy_function(lambda v: v * 2, [x], tf.float32, name="n" * 400)

CALLS = []

def slow(x):
    import time
    def sleep(v):
        CALLS.append(1)
        time.sleep(0.3)
        return v
    return tf.numpy_function(sleep, [x], tf.float32)
'''


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "t_copy.py"
    path.write_text(SAMPLE)
    return path


def _diagnose(sample, function, *extra, inputs="make_inputs"):
    return ["diagnose", f"{sample}:{function}", "--inputs", f"{sample}:{inputs}", *extra]


def _html(markdown_text: str) -> str:
    return python_markdown.markdown(markdown_text, extensions=["tables", "attr_list", "md_in_html"])


# 1. A trace file's name reaches a page, a link and a shell command: refused outside a safe set.

def test_a_trace_named_outside_the_safe_set_stops_the_build_naming_it(tmp_path):
    root = tmp_path / "results"
    write_results(synthetic_results(example="time_breakdown"), root)
    hostile = "0\n    ```\n\n<img src=y onerror=alert(2)>\n\n```\n.xplane.pb"
    traces = root / "cpu" / "traces" / "time_breakdown"
    traces.mkdir(parents=True)
    (traces / hostile).write_bytes(b"trace")
    with pytest.raises(site_data.SiteDataError, match="kept trace's name"):
        site_data.load(root)


# 2. Text at the end of a cell cannot set HTML attributes through attr_list.

ATTRIBUTE = "eager {: onclick=\"alert('T15')\" }"


def test_a_label_or_baseline_written_as_attr_list_syntax_stays_text():
    results = synthetic_results()
    results = dataclasses.replace(results, baseline=ATTRIBUTE, cases=tuple(
        dataclasses.replace(case, label=ATTRIBUTE if case.label == "eager" else case.label) for case in results.cases))
    page = _html(tables.cases_table(results))
    elements = _Elements()
    elements.feed(page)
    # Shown as the text it is, never obeyed as an attribute.
    assert elements.handlers == [] and "{: onclick" in page


def test_the_history_outcome_cell_is_text_too():
    assert "<td onclick" not in _html("| Outcome |\n| --- |\n| " + text(f"failed: {ATTRIBUTE}") + " |")
    history = [ReleaseResults(Release(2, 15), {}, {"release": "2.15", "tensorflow": "2.15.1"}, None,
                              {"releases": f"boom {ATTRIBUTE}"})]
    page = _html(history_tables.environments_table(history, "releases"))
    elements = _Elements()
    elements.feed(page)
    assert "boom" in page and elements.handlers == []


# 3. A results file's title is escaped where the estimator table names it.

def test_a_hostile_title_in_the_estimator_table_is_text():
    results = synthetic_results()
    # Four processes per case: the experiment runs, and its caption names the results' title.
    results = dataclasses.replace(results, title='Title <script>alert("T16")</script>', quick=False, cases=tuple(
        dataclasses.replace(case, runs=tuple(dataclasses.replace(case.runs[0], samples_s=tuple(
            t * (1 + 0.01 * process) for t in case.runs[0].samples_s)) for process in range(4)))
        for case in results.cases))
    page = _html(tables.estimator_table(results))
    assert "processes per case" in page
    assert "<script" not in page and "&lt;script&gt;" in page


# 4. Reports never replace a device, a symlink's target or the diagnosed source; checked first.

def test_a_device_a_pipe_a_link_and_the_source_are_refused_before_anything_is_written(tmp_path, sample):
    with pytest.raises(UsageError, match="not a regular file"):
        check_report_paths({"save": Path("/dev/null")}, [])
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    for option, path, message in (("save", fifo, "not a regular file"), ("html", link, "symbolic link"),
                                  ("markdown", sample, "source of the function")):
        before = sample.read_text()
        completed = run_cli(*_diagnose(sample, "small", f"--{option}", str(path), "--budget", "5"))
        assert completed.returncode == 2 and message in completed.stderr
        assert "timing" not in completed.stderr  # refused before measuring
        assert sample.read_text() == before and fifo.exists() and link.is_symlink()
    assert not (tmp_path / "elsewhere.json").exists()


def test_two_reports_to_one_file_and_an_unwritable_folder_are_refused_before_measuring(tmp_path, sample, capsys):
    report = tmp_path / "r.out"
    assert main(_diagnose(sample, "small", "--save", str(report), "--markdown", str(report))) == 2
    assert "writes the same file" in capsys.readouterr().err
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who may write anywhere (root)")
        assert main(_diagnose(sample, "small", "--save", str(locked / "r.json"))) == 2
        error = capsys.readouterr().err
        assert "permission denied" in error and "timing" not in error
    finally:
        locked.chmod(0o700)


# 5. A failing standard output loses no requested --save and ends in one line, no traceback.

@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
def test_a_full_stdout_still_saves_the_report_and_says_so_in_one_line(tmp_path, sample):
    saved = tmp_path / "bp.json"
    with open("/dev/full", "w") as full:
        completed = subprocess.run([sys.executable, "-m", "tfspeedlab", *_diagnose(
            sample, "small", "--json", "--save", str(saved), "--budget", "3")], stdout=full, stderr=subprocess.PIPE,
            text=True, cwd=REPO)
    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    assert "cannot write the output: No space left on device" in completed.stderr
    assert json.loads(saved.read_text())["diagnosis"]["kind"] == "function"


@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
@pytest.mark.parametrize("args", [["env"], ["list"], ["compare", "{a}", "{a}"]])
def test_env_list_and_compare_on_a_full_disk_or_a_closed_pipe_end_in_one_line(tmp_path, args):
    write_results(synthetic_results(), tmp_path / "r")
    argv = [arg.format(a=tmp_path / "r" / "cpu" / "demo.json") for arg in args]
    with open("/dev/full", "w") as full:
        completed = subprocess.run([sys.executable, "-m", "tfspeedlab", *argv], stdout=full,
                                   stderr=subprocess.PIPE, text=True, cwd=REPO)
    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    # One line of ours (TensorFlow's own start-up log may come before it).
    ours = [line for line in completed.stderr.splitlines() if line.startswith("tfspeedlab")]
    assert len(ours) == 1 and "No space left on device" in ours[0]
    reader = subprocess.Popen([sys.executable, "-m", "tfspeedlab", *argv], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=REPO)
    reader.stdout.close()  # the reader of the pipe went away (`| head -0`)
    error = reader.stderr.read()
    assert reader.wait() in (0, 1) and "Traceback" not in error and "Exception ignored" not in error


# 6. The reader's code ending the process is the reader's failure: exit 2 saying what happened.

@pytest.mark.parametrize("function, message", [
    ("exits", "called sys.exit(0)"),
    ("hard_exits", "called os._exit(0)"),
    ("exits_when_traced", "called sys.exit(0)"),
    ("hard_exits_when_compiled", "called os._exit(0)"),
    ("generator_exit", "GeneratorExit"),
])
@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
def test_a_target_that_exits_is_a_clear_failure_with_exit_2(sample, function, message):
    completed = run_cli(*_diagnose(sample, function, "--budget", "3"))
    assert completed.returncode == 2, completed.stderr[-2000:]
    assert message in completed.stderr and "Traceback" not in completed.stderr


def test_an_inputs_function_that_exits_is_a_clear_failure(sample):
    completed = run_cli(*_diagnose(sample, "small", inputs="inputs_exit"))
    assert completed.returncode == 2 and "--inputs" in completed.stderr and "sys.exit(0)" in completed.stderr


@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
def test_a_child_process_that_exits_without_its_report_fails_the_pooled_run(sample):
    completed = run_cli(*_diagnose(sample, "hard_exits_when_compiled", "--processes", "2", "--budget", "6"))
    assert completed.returncode == 2 and "os._exit(0)" in completed.stderr
    assert "interrupted" not in completed.stderr


# 7. What the target prints stays off standard output: --json parses.

@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
def test_a_target_that_prints_leaves_json_on_stdout_alone(sample):
    completed = run_cli(*_diagnose(sample, "chatty", "--json", "--budget", "3"))
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert json.loads(completed.stdout)["diagnosis"]["kind"] == "function"
    assert "a line the reader printed" in completed.stderr


# 8. A sitting is pooled once: never with itself, never with a tree it is already in.

def test_pooling_a_tree_with_itself_is_refused_and_changes_nothing(tmp_path):
    write_results(synthetic_results(), tmp_path / "p1")
    before = snapshot(tmp_path / "p1")
    for _ in range(2):
        assert main(["pool", str(tmp_path / "p1"), str(tmp_path / "p1"), "--into", str(tmp_path / "p1")]) == 2
    assert snapshot(tmp_path / "p1") == before


def test_a_sitting_already_pooled_in_is_refused():
    first = synthetic_results()
    second = dataclasses.replace(first, environment={**first.environment, "utc_time": "2026-01-01T01:00:00+00:00"})
    pooled = pool(first, second)
    with pytest.raises(PoolError, match="pooled once"):
        pool(pooled, second)


# 9. history checks an environment's Python for the TensorFlow it claims, and bounds its record.

def _environment(envs: Path, release: Release, record: dict) -> Path:
    folder = envs / f"cpu-{release.folder}"
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").symlink_to(sys.executable)  # runs the installed TensorFlow, not 2.15
    write_json_atomic(folder / environments.RECORD, {
        "release": release.name, "requirements": release.requirements("cpu"), "tensorflow": "2.15.1",
        "keras": "2.15.0", "tf_keras": None, "numpy": "1.26.4", "python": "3.11", "packages": [],
        "resolved_at": "2024-03-09T00:00:00+00:00", **record})
    return folder


@pytest.mark.parametrize("record", [{}, {"tensorflow": "2." + "1" * 5000}, {"keras": 7}])
def test_an_environment_whose_python_or_record_is_not_what_it_claims_is_rebuilt(tmp_path, monkeypatch, record):
    monkeypatch.setenv(environments.UV_VARIABLE, "false")  # a rebuild fails at once: what the test looks for
    monkeypatch.setenv(environments.PYPI_VARIABLE, (tmp_path / "no-pypi").as_uri())
    _environment(tmp_path / "envs", Release(2, 15), record)
    with pytest.raises(environments.EnvironmentBuildError):
        environments.ensure(Release(2, 15), "cpu", tmp_path / "envs", log=lambda line: None)


def test_results_measured_on_another_release_than_their_folder_are_refused(tmp_path):
    results = synthetic_results(example="releases")
    results = dataclasses.replace(results, environment={**results.environment, "tensorflow": "2.21.0"})
    folder = release_folder(tmp_path, "cpu", Release(2, 15))
    write_results(results, folder.parent.parent.parent / "staging")
    folder.mkdir(parents=True)
    shutil.copy(tmp_path / "staging" / "cpu" / "releases.json", folder / "releases.json")
    with pytest.raises(ResultsFileError, match="tensorflow"):
        load_history(tmp_path, "cpu")


def test_an_environment_record_with_an_overlong_or_mistyped_version_is_refused(tmp_path):
    folder = release_folder(tmp_path, "cpu", Release(2, 15))
    folder.mkdir(parents=True)
    for record, field in (({"tensorflow": "2.15." + "1" * 5000}, "tensorflow"), ({"keras": 7}, "keras")):
        write_json_atomic(folder / "environment.json", {"release": "2.15", "tensorflow": "2.15.1", **record})
        with pytest.raises(ResultsFileError, match=field):
            load_history(tmp_path, "cpu")


# 10. A release folder has one spelling.

@pytest.mark.parametrize("name", ["tf-2.015", "tf-2.\u0661\u0665", "tf-2.15 ", "tf-02.15"])
def test_release_folder_aliases_are_no_release(tmp_path, name):
    assert release_from_folder(name) is None
    (tmp_path / "cpu" / "history" / name).mkdir(parents=True)
    with pytest.raises(ResultsFileError, match="not a release folder"):
        load_history(tmp_path, "cpu")


# 11. --budget caps the whole run; a call longer than it is refused with the reason.

def test_a_call_longer_than_the_whole_budget_is_refused_with_what_to_give(sample, capsys):
    # One call sleeps 0.3 s: longer than the whole budget of 0.2 s.
    assert main(_diagnose(sample, "slow", "--budget", "0.2")) == 2
    error = capsys.readouterr().err
    assert "longer than the whole --budget 0.2 s" in error and "give --budget" in error


def test_a_budget_too_small_for_the_least_a_diagnosis_does_is_refused(sample, capsys):
    assert main(_diagnose(sample, "slow", "--budget", "2")) == 2
    assert "give --budget" in capsys.readouterr().err


def test_the_whole_run_keeps_to_the_budget(sample, tmp_path, capsys):
    saved = tmp_path / "slow.json"
    assert main(_diagnose(sample, "slow", "--budget", "8", "--save", str(saved))) == 0
    data = json.loads(saved.read_text())
    # Counted from the command's start, TensorFlow's import and the checking call included; one
    # call that had started when the budget ran out may finish after it.
    assert data["diagnosis"]["elapsed_s"] <= data["diagnosis"]["budget_s"] + 0.5
    assert "Time spent" in capsys.readouterr().out


def test_the_budget_refusal_shows_the_value_given():
    assert main(["diagnose", "x.py:f", "--budget", "3600.0000001"]) == 2


def test_the_budget_refusal_message_is_not_rounded(capsys):
    main(["diagnose", "x.py:f", "--budget", "3600.0000001"])
    assert "got 3600.0000001" in capsys.readouterr().err


# 12. compare of two files with no case in common exits 2 saying so.

def test_compare_with_no_common_case_is_an_error(tmp_path, capsys):
    write_results(synthetic_results(), tmp_path / "a")
    other = synthetic_results(example="other")
    other = dataclasses.replace(other, cases=tuple(dataclasses.replace(case, label=f"x {case.label}")
                                                   for case in other.cases), baseline="x eager")
    write_results(other, tmp_path / "b")
    with pytest.raises(CompareError, match="no case in common"):
        compare(tmp_path / "a" / "cpu" / "demo.json", tmp_path / "b" / "cpu" / "other.json")
    assert main(["compare", str(tmp_path / "a" / "cpu" / "demo.json"), str(tmp_path / "b" / "cpu" / "other.json")]) == 2
    assert "no case in common" in capsys.readouterr().err


# 13. Saved diagnoses are validated like results files: a one-line error naming file and field.

def _saved_diagnosis() -> dict:
    return json.loads((REPO / "results" / "cpu" / "diagnose" / "small_ops.json").read_text())


def _damage(data: dict, change: str) -> None:
    eager = data["cases"][0]["runs"][0]
    if change == "zero samples":
        eager["samples_s"] = [0.0] * len(eager["samples_s"])
    elif change == "negative samples":
        eager["samples_s"][0] = -1e-3
    elif change == "text samples":
        eager["samples_s"] = "123"
    elif change == "no samples":
        eager["samples_s"] = []
    elif change == "fractional op_count":
        data["diagnosis"]["op_count"] = 3.7
    elif change == "target dict":
        data["diagnosis"]["target"] = {"a": 1}
    elif change == "gpu names":
        data["environment"]["gpus"] = ["H200"]
    elif change == "zero prediction":
        data["diagnosis"]["placement"]["predicted_s"]["eager"] = 0
    elif change == "unknown placement mode":
        data["diagnosis"]["placement"]["predicted_s"]["turbo"] = 1e-3
    elif change == "zero calls per block":
        eager["calls_per_block"] = 0


DAMAGES = {"zero samples": "samples_s", "negative samples": "samples_s", "text samples": "samples_s",
           "no samples": "samples_s", "fractional op_count": "op_count", "target dict": "target",
           "gpu names": "gpus", "zero prediction": "predicted_s", "unknown placement mode": "predicted_s",
           "zero calls per block": "calls_per_block"}


@pytest.mark.parametrize("change", sorted(DAMAGES))
def test_a_damaged_saved_diagnosis_names_its_file_and_field(tmp_path, change):
    data = _saved_diagnosis()
    _damage(data, change)
    path = tmp_path / "small_ops.json"
    path.write_text(json.dumps(data))
    with pytest.raises((DiagnosisFileError, ResultsFileError)) as raised:
        load_diagnosis(path)
    assert str(path) in str(raised.value) and DAMAGES[change] in str(raised.value)


@pytest.mark.parametrize("constant", ["Infinity", "-Infinity", "NaN"])
def test_json_constants_that_are_no_numbers_are_refused_on_read(tmp_path, constant):
    path = tmp_path / "small_ops.json"
    path.write_text(json.dumps(_saved_diagnosis()).replace('"op_count": ', f'"op_count": {constant}, "was": ', 1))
    with pytest.raises(ResultsFileError, match=constant):
        read_json(path)


def test_a_damaged_diagnosis_stops_the_build_in_one_line(tmp_path):
    root = tmp_path / "results"
    shutil.copytree(REPO / "results", root)
    data = json.loads((root / "cpu" / "diagnose" / "small_ops.json").read_text())
    data["environment"]["gpus"] = ["H200"]
    (root / "cpu" / "diagnose" / "small_ops.json").write_text(json.dumps(data))
    with pytest.raises(site_data.SiteDataError, match="gpus"):
        site_data.load(root)


# 14. Deeply nested JSON is a one-line error for compare, merge and the build.

def test_deeply_nested_json_is_a_clear_error_everywhere(tmp_path, capsys):
    nested = tmp_path / "r" / "cpu" / "demo.json"
    nested.parent.mkdir(parents=True)
    nested.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ResultsFileError, match="nests too deeply"):
        read_json(nested)
    assert main(["compare", str(nested), str(nested)]) == 2
    assert main(["merge", str(tmp_path / "r"), "--into", str(tmp_path / "into")]) == 2
    assert "nests too deeply" in capsys.readouterr().err
    with pytest.raises(site_data.SiteDataError, match="nests too deeply"):
        site_data.load(tmp_path / "r")


# 15. pool validates sittings and sitting_runs.

@pytest.mark.parametrize("environment", [{"sittings": 5}, {"sittings": []}, {"sittings": ["a", "a"]},
                                         {"sitting_runs": [1, 2]}, {"sitting_runs": "3"}])
def test_malformed_sittings_are_refused(environment):
    first = synthetic_results()
    first = dataclasses.replace(first, environment={**first.environment, **environment})
    second = dataclasses.replace(synthetic_results(), environment={
        **synthetic_results().environment, "utc_time": "2026-01-02T00:00:00+00:00"})
    with pytest.raises(PoolError, match="sitting"):
        pool(first, second)


# m1 (unwritable --save reported only after measuring): test_4_..._unwritable_folder above.

# m2. A model file's suffix is a model whatever its case.

def test_an_upper_case_model_suffix_is_taken_for_a_model(tmp_path, capsys):
    assert main(["diagnose", str(tmp_path / "MODEL.KERAS")]) == 2
    error = capsys.readouterr().err
    assert "write it as path/to/file.py:function" not in error and "MODEL.KERAS" in error


# m3. A long error does not stretch the report's table.

def test_a_long_xla_error_is_wrapped_below_the_table(sample, capsys):
    assert main(_diagnose(sample, "long_xla_error", "--budget", "3")) == 0
    out = capsys.readouterr().out
    # The modes table, from its header to the blank line after it (the verdict is prose a terminal wraps).
    table = out[out.index("\nMode "):].split("\n\n")[0].splitlines()
    assert max(len(line) for line in table) <= 100
    assert any(line.startswith("XLA") and "could not run (below)" in line for line in table)
    assert any(line.startswith("XLA could not run: InvalidArgumentError") for line in table)


# The built site with every hostile input holds no injected element or attribute.

class _Elements(html.parser.HTMLParser):
    """Every element's tag with its attributes, and every on* attribute, of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.images: list[str] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag, attrs):
        named = dict(attrs)
        if tag == "script":
            self.scripts.append(named.get("src") or "inline")
        if tag == "img":
            self.images.append(named.get("src") or "")
        self.handlers += [f"<{tag} {name}>" for name, _ in attrs if name.startswith("on")]


def _elements(site: Path) -> dict[str, _Elements]:
    found = {}
    for page in sorted(site.rglob("*.html")):
        parser = _Elements()
        parser.feed(page.read_text(encoding="utf-8"))
        found[str(page.relative_to(site))] = parser
    return found


@pytest.mark.slow  # two strict builds of the whole site
def test_the_site_built_from_hostile_inputs_holds_nothing_injected(tmp_path):
    clean = tmp_path / "clean"
    assert build_site(REPO / "results", clean).returncode == 0
    root = tmp_path / "results"
    shutil.copytree(REPO / "results", root)
    path = root / "cpu" / "small_ops.json"
    data = json.loads(path.read_text())
    data["title"] = 'Title <script>alert("T16")</script> <img src=y onerror=alert(3)>'
    data["environment"]["cpu_model"] = "<img src=x onerror=alert(1)> {: onmouseover=alert(4) }"
    path.write_text(json.dumps(data))
    # Case labels are named by the pages (renaming one fails the build, as it should): the
    # attr_list attack goes through the failure record a page shows beside the figures.
    write_json_atomic(root / "cpu" / "small_ops.failed.json", {
        "schema": "tfspeedlab.failure", "example": "small_ops", "runner": "cpu",
        "error": f"Boom {ATTRIBUTE} <img src=z onerror=alert(5)>", "traceback": "",
        "utc_time": "2099-01-01T00:00:00+00:00"})
    hostile_site = tmp_path / "hostile"
    completed = build_site(root, hostile_site)
    assert completed.returncode == 0, completed.stderr[-3000:]
    before, after = _elements(clean), _elements(hostile_site)
    assert sorted(after) == sorted(before)
    for page, elements in after.items():
        assert elements.handlers == before[page].handlers == [], page
        assert elements.scripts == before[page].scripts, page
        assert elements.images == before[page].images, page
