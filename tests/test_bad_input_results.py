"""Bad input in the files a results tree holds: results files, failure records, release environment
records and saved diagnoses, each a committed file with one change. Every string and number is
checked once, where the file is loaded (``core.results.checks``): a hostile or damaged value is
refused in one line naming the file and the field, before any page, chart or statistic meets it;
the writers of text that comes from a run make it text the loaders accept."""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import REPO, build_site, run_cli, synthetic_results
from tfspeedlab.core.results import checks
from tfspeedlab.core.results.history import load_history, read_record
from tfspeedlab.core.results.schema import FAILURE_SUFFIX, ResultsFileError
from tfspeedlab.core.results.store import load_failure, load_runner, write_failure, write_json_atomic, write_results
from tfspeedlab.core.spec.workload import CaseUnavailable
from tfspeedlab.diagnosis.saved import DiagnosisFileError, load_samples
from tfspeedlab.diagnosis.targets import error_line
from tfspeedlab.harness.cases import unavailable_reason
from tfspeedlab.site import directives, site_data
from tfspeedlab.site.markdown_ext import DirectiveBuildError, expand_apart

COMMITTED = REPO / "results" / "cpu"
# What a carriage return smuggled past a code span once published as a live element.
PAYLOAD = "boom\r<img src=x onerror=alert(3)>"


def _committed(name: str) -> dict:
    return json.loads((COMMITTED / f"{name}.json").read_text(encoding="utf-8"))


def _index(data: dict, test: Callable[[dict], bool]) -> int:
    return next(index for index, case in enumerate(data["cases"]) if test(case))


def _one_line(error: Exception, path: Path) -> Exception:
    message = str(error)
    assert message.splitlines() == [message] and str(path) in message, message
    return error


def _refused(tmp_path: Path, name: str, change: Callable[[dict], None]) -> ResultsFileError:
    """The committed ``name`` with ``change`` made, loaded as a build loads a runner's folder."""
    data = _committed(name)
    change(data)
    path = tmp_path / "cpu" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ResultsFileError) as raised:
        load_runner(path.parent)
    return _one_line(raised.value, path)


def _startup_import(data: dict) -> int:
    return _index(data, lambda case: case["label"] == "import numpy")


def _startup_format(data: dict) -> int:
    return _index(data, lambda case: "format" in case["params"])


def _importtime(data: dict) -> tuple[int, str]:
    index = _index(data, lambda case: any(name.startswith("module ") for name in case["metrics"]))
    return index, next(name for name in data["cases"][index]["metrics"] if name.startswith("module "))


def _rename_metric(data: dict) -> None:
    index, name = _importtime(data)
    metrics = data["cases"][index]["metrics"]
    metrics["module x" + PAYLOAD] = metrics.pop(name)


def _set(name: str, value) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        target = data
        *parents, last = name.split(".")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return change


# 1. A carriage return (and any control character) in a string is refused where the file is read.

@pytest.mark.parametrize("name, change, field", [
    ("startup", lambda data: data["cases"][_startup_import(data)].update(label="import numpy" + PAYLOAD),
     lambda data: f"cases[{_startup_import(data)}].label"),
    ("startup", _rename_metric, lambda data: f"cases[{_importtime(data)[0]}].metrics.module xboom\\r<img"),
    ("memory", _set("cases.0.params.keras", "tf.keras" + PAYLOAD), lambda data: "cases[0].params.keras"),
    ("startup", lambda data: data["cases"][_startup_format(data)]["params"].update(format=".keras" + PAYLOAD),
     lambda data: f"cases[{_startup_format(data)}].params.format"),
    ("small_ops", _set("environment.git_commit", "c6851c7" + PAYLOAD), lambda data: "environment.git_commit"),
], ids=["startup import label", "importtime metric name", "memory keras param", "startup format param",
        "git_commit"])
def test_a_carriage_return_in_a_results_string_is_refused_naming_the_field(tmp_path, name, change, field):
    error = _refused(tmp_path, name, change)
    assert error.field.startswith(field(_committed(name))), error
    assert "carriage return" in str(error) and "\r" not in str(error)


def test_a_carriage_return_in_a_failure_error_is_refused_naming_the_field(tmp_path):
    write_json_atomic(tmp_path / "small_ops.failed.json", {
        "schema": "tfspeedlab.failure", "example": "small_ops", "runner": "cpu", "error": PAYLOAD,
        "traceback": "", "utc_time": "2099-01-01T00:00:00+00:00"})
    with pytest.raises(ResultsFileError) as raised:
        load_failure(tmp_path, "small_ops")
    assert raised.value.field == "error"
    _one_line(raised.value, tmp_path / "small_ops.failed.json")


def test_a_hand_edited_failure_record_stops_the_page_in_one_line_naming_file_and_field(tmp_path):
    results = synthetic_results()
    write_results(results, tmp_path)
    write_json_atomic(tmp_path / "cpu" / "demo.failed.json", {
        "schema": "tfspeedlab.failure", "example": "demo", "runner": "cpu", "error": PAYLOAD,
        "traceback": "", "utc_time": "2099-01-01T00:00:00+00:00"})
    context = directives.Context(results={"cpu": {"demo": results}, "gpu": {}}, results_root=tmp_path,
                                 page_uri="x.md")
    with pytest.raises(DirectiveBuildError) as raised:
        expand_apart("{{ results demo }}", context)
    message = str(raised.value)
    assert message.splitlines() == [message] and "demo.failed.json" in message and "'error'" in message


@pytest.mark.parametrize("character", ["\x00", "\x1b", "\x7f", "\x85", "\u2028", "\t", "\n"])
def test_any_control_character_or_line_break_in_a_label_is_refused(tmp_path, character):
    error = _refused(tmp_path, "small_ops", _set("cases.0.label", f"eager{character}x"))
    assert error.field == "cases[0].label" and f"U+{ord(character):04X}" in str(error)


# 1 (the write side). Text a run writes from the world outside is made text its loader accepts.

def test_a_failure_written_from_a_progress_bar_and_colours_loads_with_its_text_kept(tmp_path):
    message = "RuntimeError: step 1/10\r<img src=x onerror=alert(3)> \x1b[31mred\x1b[0m \u202e {{ x }}"
    write_failure(tmp_path, "cpu", "demo", message, "Traceback\r\n  line\x00\n" * 5000, "2099-01-01T00:00:00+00:00")
    record = load_failure(tmp_path / "cpu", "demo")
    assert "\r" not in record["error"] and "\x1b" not in record["error"]
    assert record["error"].splitlines() == ["RuntimeError: step 1/10", "<img src=x onerror=alert(3)> red \\u202e { { x } }"]
    assert len(record["traceback"]) <= checks.MAX_TRACEBACK_TEXT and record["traceback"].endswith("line\\x00\n")


@pytest.mark.parametrize("rule", [checks.NAME, checks.PROSE, checks.FAILURE_TEXT], ids=["name", "prose", "failure"])
@pytest.mark.parametrize("value", [PAYLOAD, "a\r\nb\x0bc\x1cd\u2029e", "\x1b]0;title\x07\x1b[1mx\x1b[m", "\u200b\ufeff\u2066x",
                                   "{{{ x }}}", "\x00\x9f\t", "é" * 10_000, ""])
def test_printable_makes_any_text_a_field_its_rule_accepts(rule, value):
    assert checks.text_problem(checks.printable(value, rule), rule) is None


def test_a_case_s_reason_and_a_diagnosis_error_line_are_printable_one_line_text():
    hostile = "no\x1b[31m op \u202eon\rthis backend {{ x }}"
    assert checks.text_problem(unavailable_reason(CaseUnavailable(hostile))) is None
    assert checks.text_problem(error_line(RuntimeError(hostile))) is None
    assert unavailable_reason(CaseUnavailable(hostile)) == "no op \\u202eon"


@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
def test_a_real_run_that_raises_with_a_carriage_return_records_a_failure_its_loader_reads(tmp_path):
    examples = tmp_path / "examples"
    examples.mkdir()
    (examples / "raising.py").write_text(textwrap.dedent('''
        # # Raises
        def workload(quick=False):
            raise RuntimeError("step 1/10\\r<img src=x onerror=alert(3)>")
    '''))
    out = tmp_path / "results"
    completed = run_cli("--examples", str(examples), "run", "raising", "--runner", "cpu", "--out", str(out))
    assert completed.returncode == 1, completed.stderr[-2000:]
    record = load_failure(out / "cpu", "raising")
    assert record["error"] == "RuntimeError: step 1/10\n<img src=x onerror=alert(3)>"


# 7. A saved diagnosis is checked like a results file: against its folder, and in size.

def _samples_with(tmp_path: Path, change: Callable[[dict], None]) -> Path:
    shutil.copytree(COMMITTED / "diagnose", tmp_path / "cpu" / "diagnose")
    path = tmp_path / "cpu" / "diagnose" / "small_ops.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("change, field", [
    (_set("environment.gpus", [{"name": "NVIDIA H100 80GB HBM3"}]), "environment.gpus"),
    (_set("runner", "gpu"), "runner"),
    (_set("environment.cpu_model", "x" * 10_000_000), "environment.cpu_model"),
    (_set("diagnosis.verdict", "Use tf.function. " * 600_000), "diagnosis.verdict"),
    (_set("diagnosis.target", "small_ops" + PAYLOAD), "diagnosis.target"),
    (_set("diagnosis.memory.heap_per_call_bytes", -4096), "memory.heap_per_call_bytes"),
], ids=["an H100 under cpu", "a gpu runner under cpu", "a 10 MB cpu_model", "a 10 MB verdict",
        "a carriage return in the target", "a negative heap"])
def test_a_saved_diagnosis_that_does_not_fit_its_folder_or_its_limits_is_refused(tmp_path, change, field):
    path = _samples_with(tmp_path, change)
    with pytest.raises(DiagnosisFileError) as raised:
        load_samples(tmp_path, "cpu")
    _one_line(raised.value, path)
    assert f"field '{field}'" in str(raised.value)
    with pytest.raises(site_data.SiteDataError, match=field.replace(".", r"\.")):
        site_data.load(tmp_path)


# 10. Counts and bytes in their ranges.

@pytest.mark.parametrize("change, field", [
    (_set("cases.0.metrics.follow_calls", 0), "cases[0].metrics.follow_calls"),
    (_set("cases.0.metrics.peak_rss_bytes", -635830272), "cases[0].metrics.peak_rss_bytes"),
    (_set("cases.0.metrics.heap_per_call", -19291.48), "cases[0].metrics.heap_per_call"),
    (_set("cases.0.run_metrics.0.rss_end_bytes", -1), "cases[0].run_metrics[0].rss_end_bytes"),
    (_set("cases.0.metrics.follow_parts", 2.5), "cases[0].metrics.follow_parts"),
], ids=["follow_calls 0", "negative peak", "negative heap", "negative rss in one process", "half a part"])
def test_memory_counts_and_bytes_out_of_their_range_are_refused(tmp_path, change, field):
    assert _refused(tmp_path, "memory", change).field == field


# The crash list: each a one-line refusal at load, never a traceback from the page that reads it.

def test_an_empty_failure_error_is_refused_where_the_history_reads_it(tmp_path):
    folder = tmp_path / "cpu" / "history" / "tf-2.12"
    shutil.copytree(COMMITTED / "history" / "tf-2.12", folder)
    write_json_atomic(folder / f"releases{FAILURE_SUFFIX}", {
        "schema": "tfspeedlab.failure", "example": "releases", "runner": "cpu", "error": "", "traceback": "",
        "utc_time": "2099-01-01T00:00:00+00:00"})
    with pytest.raises(ResultsFileError) as raised:
        load_history(tmp_path, "cpu")
    assert raised.value.field == "error"
    _one_line(raised.value, folder / f"releases{FAILURE_SUFFIX}")


def _drop_metric(name: str, index: int = 0) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        del data["cases"][index]["metrics"][name]
    return change


def _matmul_case(data: dict) -> int:
    return _index(data, lambda case: case["params"]["policy"] == "mixed_bfloat16"
                  and "relative_error_vs_float32" in case["metrics"])


def _drop_relative_error(data: dict) -> None:
    case = data["cases"][_matmul_case(data)]
    for metrics in [case["metrics"], *case.get("run_metrics", [])]:
        del metrics["relative_error_vs_float32"]


def _samples(value: float) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["cases"][0]["runs"][0]["samples_s"][0] = value
    return change


@pytest.mark.parametrize("name, change, field, says", [
    ("memory", _set("cases.0.metrics.follow_parts", 6), "cases[0].metrics.rss_part_5_per_call", "6 parts"),
    ("memory", _drop_metric("heap_per_call"), "cases[0].metrics.heap_per_call", "is missing"),
    ("mixed_precision", _drop_relative_error, None, "relative_error_vs_float32"),
    ("memory", _set("cases.0.metrics.rss_part_0_per_call", 1.7e308), "cases[0].metrics.rss_part_0_per_call",
     "out of the range"),
    ("memory", _set("cases.0.run_metrics.1.rss_part_2_per_call", -1.7e308),
     "cases[0].run_metrics[1].rss_part_2_per_call", "out of the range"),
    ("small_ops", _samples(5e-324), "cases[0].runs[0].samples_s[0]", "out of the range"),
    ("small_ops", _samples(1e-20), "cases[0].runs[0].samples_s[0]", "above 1e-12"),
    ("small_ops", _samples(1.7e308), "cases[0].runs[0].samples_s[0]", "out of the range"),
    ("small_ops", _samples(3e6), "cases[0].runs[0].samples_s[0]", "at most 1e+06 s"),
    ("small_ops", _samples(10 ** 400), "cases[0].runs[0].samples_s[0]", "401 digits"),
    ("mixed_precision", _set("cases.1.params.policy", ["mixed_bfloat16"]), "cases[1].params.policy", "one value"),
    ("cpu_settings", _set("cases.0.params.workload", {"a": 1}), "cases[0].params.workload", "one value"),
], ids=["follow_parts beyond the parts", "no heap_per_call", "no relative_error_vs_float32", "rss_part of 1.7e308",
        "rss_part of -1.7e308 in one process", "samples of 5e-324", "samples of 1e-20 s", "samples of 1.7e308",
        "samples of 3e6 s", "a sample of 400 digits", "a list as a grid row", "an object as a grid column"])
def test_what_crashed_a_page_is_refused_at_load_in_one_line(tmp_path, name, change, field, says):
    error = _refused(tmp_path, name, change)
    expected = field or f"cases[{_matmul_case(_committed(name))}].metrics"
    assert error.field == expected and says in str(error), error
    assert "iqr_s" not in str(error)


# Unclear items: a directive's delimiters, bidirectional and zero-width characters.

@pytest.mark.parametrize("title", ["{{ median small_ops eager }}", "Title }} and more", "{{"])
def test_a_title_holding_a_directive_delimiter_is_refused_naming_the_field(tmp_path, title):
    error = _refused(tmp_path, "small_ops", _set("title", title))
    assert error.field == "title" and "directive" in str(error)


@pytest.mark.parametrize("character", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c",
                                       "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
def test_bidirectional_and_zero_width_characters_in_a_label_are_refused(tmp_path, character):
    error = _refused(tmp_path, "small_ops", _set("cases.1.label", f"graph{character}lpmeh"))
    assert error.field == "cases[1].label" and f"U+{ord(character):04X}" in str(error)


def test_an_environment_record_holding_a_control_or_invisible_character_is_refused(tmp_path):
    record = json.loads((COMMITTED / "history" / "tf-2.12" / "environment.json").read_text(encoding="utf-8"))
    record["packages"][3] = "certifi==2023.5.7\u202e"
    path = tmp_path / "environment.json"
    write_json_atomic(path, record)
    with pytest.raises(ResultsFileError) as raised:
        read_record(path)
    assert raised.value.field == "packages[3]"
    _one_line(raised.value, path)
    write_json_atomic(path, {**record, "packages": record["packages"][:3], "resolved_at": "2023\r<b>"})
    with pytest.raises(ResultsFileError, match="'resolved_at' holds a carriage return"):
        read_record(path)


# Every committed file still passes every loader.

def test_every_committed_file_passes_the_loaders():
    data = site_data.load(REPO / "results")  # results, re-measure sittings, release history, saved diagnoses
    assert data.results["cpu"] and data.history["cpu"] and data.diagnoses["cpu"].reports and data.remeasures["cpu"]
    for path in (REPO / "results").rglob(f"*{FAILURE_SUFFIX}"):
        if path.name != f"environment{FAILURE_SUFFIX}":
            load_failure(path.parent, path.name.removesuffix(FAILURE_SUFFIX))


# The whole build, from a failure a run recorded with a carriage return in its message.

@pytest.mark.slow  # a strict build of the whole site: minutes
def test_a_failure_recorded_with_a_carriage_return_is_shown_as_text_on_every_page(tmp_path):
    root = tmp_path / "results"
    shutil.copytree(REPO / "results", root)
    write_failure(root, "cpu", "small_ops", "RuntimeError: step 1/10\r<img src=x onerror=alert(3)>",
                  "Traceback (most recent call last):\r\n", "2099-01-01T00:00:00+00:00")
    site = tmp_path / "site"
    completed = build_site(root, site)
    assert completed.returncode == 0, completed.stderr[-3000:]
    shown = 0
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "onerror=alert(3)>" not in text.replace("&lt;img src=x onerror=alert(3)&gt;", ""), page
        shown += "&lt;img src=x onerror=alert(3)&gt;" in text
    assert shown >= 2  # the home and small-ops pages show the latest run's failure, as text


# Every character a rule may refuse (controls, line breaks, invisible ones) and each directive mark.
REFUSED_TEXT = ([chr(code) for code in range(0x20)] + [chr(code) for code in range(0x7f, 0xa0)]
                + ["\u2028", "\u2029", "\u00ad", "\u061c", "\u180e", "\u200b", "\u200f", "\u202a", "\u202e",
                   "\u2060", "\u2064", "\u2066", "\u2069", "\ufeff", "{{", "}}"])
OUT_OF_RANGE = [float("nan"), float("inf"), float("-inf"), 1.5e100, -1.5e100, 1e-101, 10 ** 101, -(10 ** 101)]
PROSE_RULES = {("prose", "*"): checks.PROSE, ("lines",): checks.FAILURE_TEXT}


def _every_problem_found_by_the_full_walk(document, monkeypatch) -> None:
    quick = list(checks.document_problems(document, PROSE_RULES))
    with monkeypatch.context() as patched:
        patched.setattr(checks, "plainly_fine", lambda *_: False)  # the full walk alone
        assert quick == list(checks.document_problems(document, PROSE_RULES))
    assert quick  # each document below holds a problem


@pytest.mark.parametrize("text", REFUSED_TEXT)
@pytest.mark.parametrize("place", ["value", "key", "deep in a list", "prose"])
def test_the_quick_pass_over_a_document_never_hides_a_refused_string(monkeypatch, text, place):
    bad = f"a{text}b"
    document = {"value": {"title": bad}, "key": {bad: 1}, "deep in a list": {"cases": [[{"label": bad}]]},
                "prose": {"prose": [bad]}}[place]
    if place == "prose" and text in "\n\t":
        document["lines"] = "a\rb"  # a field of lines takes these: its carriage return is the problem
    _every_problem_found_by_the_full_walk({"n": 1.0, **document}, monkeypatch)


@pytest.mark.parametrize("number", OUT_OF_RANGE)
def test_the_quick_pass_over_a_document_never_hides_a_number_out_of_range(monkeypatch, number):
    _every_problem_found_by_the_full_walk({"title": "fine", "runs": [{"samples_s": [1e-3, number]}]}, monkeypatch)


@pytest.mark.parametrize("document", [
    {"title": "x" * (checks.MAX_TEXT + 1)}, {"x" * (checks.MAX_TEXT + 1): 1},
    {"prose": ["x" * (checks.MAX_PROSE + 1)]}, {"lines": "line\n" * 1000}])
def test_the_quick_pass_over_a_document_never_hides_a_long_string(monkeypatch, document):
    _every_problem_found_by_the_full_walk(document, monkeypatch)


def test_the_quick_pass_passes_what_every_rule_allows():
    fine = {"title": "x" * checks.MAX_TEXT, "prose": ["y" * checks.MAX_TEXT],
            "n": [0, -0.0, 1e100, -1e-100, True, None]}
    assert checks.plainly_fine(fine, checks.MAX_TEXT)
    assert list(checks.document_problems({**fine, "lines": "a\nb\tc"}, PROSE_RULES)) == []  # the full walk says so


@pytest.mark.parametrize("allowed", [checks.SECONDS, checks.CALLS, checks.BYTES, checks.COUNT,
                                     checks.Range(0, float("inf"))])
@pytest.mark.parametrize("value", [1e-12, 1.0000001e-12, 0, -1, 1, 2.5, 1e6, 1e6 + 1, 2.0 ** 60,
                                   2.0 ** 60 + 2 ** 10, float("nan"), float("inf"), True, "1", None, 10 ** 400])
def test_a_quick_pass_over_samples_holds_them_all_exactly_when_each_is_in_range(allowed, value):
    assert allowed.holds_all([1.0, value, 2.0]) == (allowed.problem(value) is None)
