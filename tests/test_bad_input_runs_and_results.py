"""Bad input to runs and results: results files, pages, examples and signals that try to break the
build, leak files or lose data; each test is named by the behaviour it holds the code to."""

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import markdown as python_markdown
import pytest

from conftest import PASSING_EXAMPLE, REPO, SLOW_EXAMPLE, default_sigint, output_after_interrupt, build_site, run_cli, snapshot, synthetic_results
from tfspeedlab.core.results import artifacts
from tfspeedlab.core.results.merge import MergeError, merge_results
from tfspeedlab.core.results.checks import MAX_TEXT
from tfspeedlab.core.results.schema import MAX_FILE_BYTES, ResultsFileError, to_dict
from tfspeedlab.core.results.store import load_failure, load_results, load_runner, write_json_atomic, write_results
from tfspeedlab.harness import catalog
from tfspeedlab.site import directives, tables
from tfspeedlab.site.directives import DirectiveError
from tfspeedlab.site.markdown_ext import malformed_directive


def _write_raw(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _html(markdown_text: str) -> str:
    return python_markdown.markdown(markdown_text, extensions=["tables"])


# 1. A results file named for "." (or "...") must not reach a path.

@pytest.mark.parametrize("name", [".", "..", "...", "a/b", "-x", ""])
def test_example_name_that_is_not_a_file_name_is_refused_and_merge_deletes_nothing(tmp_path, name):
    data = {**to_dict(synthetic_results()), "example": name}
    file_name = f"{name}.json" if name and "/" not in name else "bad.json"  # "..json", as in the report
    source = _write_raw(tmp_path / "source" / "cpu" / file_name, data)
    with pytest.raises(ResultsFileError) as raised:
        load_results(source)
    assert raised.value.field == "example" and str(source) in str(raised.value)

    into = tmp_path / "into"
    write_results(synthetic_results(), into)
    (into / "cpu" / "traces" / "demo").mkdir(parents=True)
    (into / "cpu" / "traces" / "demo" / "run.xplane.pb").write_bytes(b"trace")
    before = snapshot(into)
    with pytest.raises(MergeError, match="'example'"):
        merge_results([tmp_path / "source"], into)
    assert snapshot(into) == before
    assert not list(into.glob(".staging-*"))
    with pytest.raises(ValueError, match="example name"):
        artifacts.published_dir(into, "cpu", name)


# 2. Strings from results files are shown as text, never obeyed as HTML.

HOSTILE = "<img src=x onerror=alert(1)>"


def test_labels_titles_cpu_model_and_errors_reach_the_html_escaped(tmp_path):
    results = synthetic_results()
    results = dataclasses.replace(
        results, title=f"]({HOSTILE}) <script>x</script>",
        environment={**results.environment, "cpu_model": HOSTILE},
        cases=tuple(dataclasses.replace(case, label=f"{case.label} {HOSTILE}") for case in results.cases),
        baseline=f"eager {HOSTILE}",
    )
    html = _html(tables.cases_table(results)) + _html(tables.environment_table([results]))
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    root = tmp_path / "results"
    write_results(results, root)
    write_json_atomic(root / "cpu" / "demo.failed.json",
                      {"schema": "tfspeedlab.failure", "example": "demo", "runner": "cpu",
                       "error": f"Boom: ``` {HOSTILE} `", "traceback": "", "utc_time": "2027-01-01T00:00:00+00:00"})
    context = directives.Context(results={"cpu": {"demo": results}, "gpu": {}}, results_root=root, page_uri="x.md")
    page = _html(directives.render("results", ["demo"], context))
    # The page's own chart is an <img>; the hostile one must only ever appear escaped.
    assert HOSTILE not in page and "<script>" not in page and "&lt;img src=x" in page


# 3. Symbolic links are never followed out of the results tree.

def test_a_symlinked_trace_is_not_published_and_merge_refuses_it(tmp_path):
    source = tmp_path / "source"
    write_results(synthetic_results(), source)
    traces = source / "cpu" / "traces" / "demo"
    traces.mkdir(parents=True)
    (traces / "real.xplane.pb").write_bytes(b"trace")
    secret = tmp_path / "secret.txt"
    secret.write_text("password")
    (traces / "leak.xplane.pb").symlink_to(secret)
    assert [p.name for p in directives.trace_files(source, "cpu", "demo")] == ["real.xplane.pb"]

    into = tmp_path / "into"
    with pytest.raises(MergeError, match="symbolic link"):
        merge_results([source], into)
    assert not into.exists() or not any(into.rglob("*.json"))

    # A linked folder is no better than a linked file.
    (traces / "leak.xplane.pb").unlink()
    linked = tmp_path / "elsewhere"
    linked.mkdir()
    (linked / "x.xplane.pb").write_bytes(b"elsewhere")
    (source / "cpu" / "traces" / "demo").rename(tmp_path / "moved")
    (source / "cpu" / "traces" / "demo").symlink_to(linked)
    assert directives.trace_files(source, "cpu", "demo") == []


def test_a_symlinked_results_file_is_refused_by_name(tmp_path):
    folder = tmp_path / "cpu"
    folder.mkdir()
    (folder / "demo.json").symlink_to(tmp_path / "nowhere.json")  # dangling, too
    with pytest.raises(ResultsFileError, match="demo.json.*symbolic link"):
        load_runner(folder)


# 4. Every way an example can end is recorded as what it was.

EXITING = '''
# # Exits
import sys
import tfspeedlab

def workload(quick=False):
    sys.exit({code})
'''
def _examples(tmp_path, **sources) -> Path:
    folder = tmp_path / "examples"
    folder.mkdir(exist_ok=True)
    for name, text in sources.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(text))
    return folder


# A full run starts each example's process fresh; a quick one forks it (harness/launch.py): both paths.
STARTS = pytest.mark.parametrize("start", [(), ("--quick",)], ids=["fresh", "forked"])


@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
@STARTS
@pytest.mark.parametrize("code", [0, 3])
def test_an_example_that_calls_sys_exit_is_a_recorded_failure_and_the_suite_goes_on(tmp_path, code, start):
    examples = _examples(tmp_path, exiting=EXITING.format(code=code), passing=PASSING_EXAMPLE)
    out = tmp_path / "results"
    completed = run_cli("--examples", str(examples), "run", "exiting", "passing", "--runner", "cpu", "--out", str(out),
                        *start)
    assert completed.returncode == 1, completed.stderr[-2000:]
    assert "exiting: FAILED" in completed.stderr and "passing: ok" in completed.stderr
    failure = json.loads((out / "cpu" / "exiting.failed.json").read_text())
    assert failure["error"] == f"SystemExit: the example called sys.exit({code}) before its results were written"


# 5. Nothing is written that the loader would refuse.

def test_a_nan_metric_is_not_written_over_a_good_file(tmp_path):
    good = synthetic_results()
    path = write_results(good, tmp_path)
    before = path.read_bytes()
    diverged = dataclasses.replace(good, cases=(dataclasses.replace(good.cases[0], metrics={"loss_end": float("nan")}),
                                                good.cases[1]))
    with pytest.raises(ResultsFileError, match=r"cases\[0\].metrics.loss_end"):
        write_results(diverged, tmp_path)
    assert path.read_bytes() == before
    with pytest.raises(ValueError):
        write_json_atomic(tmp_path / "x.json", {"value": float("inf")})
    assert not (tmp_path / "x.json").exists()


# 6. A hanging example is stopped, recorded, and the rest still run.

HANGING = '''
# # Hangs
import time

def workload(quick=False):
    time.sleep(600)
'''


@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
@STARTS
def test_a_hanging_example_times_out_is_recorded_and_the_rest_run(tmp_path, start):
    examples = _examples(tmp_path, hanging=HANGING, passing=PASSING_EXAMPLE)
    out = tmp_path / "results"
    began = time.monotonic()
    completed = run_cli("--examples", str(examples), "run", "hanging", "passing", "--runner", "cpu",
                        "--out", str(out), "--timeout", "15", *start)
    # 15 s: a fresh process imports TensorFlow before its example runs, which a loaded 2-core
    # machine has taken more than 3 s to do (the passing example then timed out too).
    assert time.monotonic() - began < 120
    assert completed.returncode == 1, completed.stderr[-2000:]
    assert "hanging: FAILED (timed out after 15 s" in completed.stderr and "passing: ok" in completed.stderr
    failure = json.loads((out / "cpu" / "hanging.failed.json").read_text())
    assert failure["error"].startswith("TimeoutError: no result after 15 s")
    assert not list(out.glob(".staging-*"))


# 7. Sizes are capped with a clear message.

def test_overlong_fields_and_huge_files_are_refused_quickly(tmp_path):
    long_title = {**to_dict(synthetic_results()), "title": "x" * (MAX_TEXT + 1)}
    with pytest.raises(ResultsFileError, match=f"'title' is {MAX_TEXT + 1:,} characters long"):
        load_results(_write_raw(tmp_path / "cpu" / "demo.json", long_title))
    huge = tmp_path / "big" / "demo.json"
    huge.parent.mkdir()
    with open(huge, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    start = time.monotonic()
    with pytest.raises(ResultsFileError, match="bytes; at most"):
        load_results(huge)
    assert time.monotonic() - start < 5
    many = to_dict(synthetic_results())
    many["cases"][0]["runs"] = many["cases"][0]["runs"] * 101
    with pytest.raises(ResultsFileError, match=r"cases\[0\].runs' holds 101 runs"):
        load_results(_write_raw(tmp_path / "many" / "demo.json", many))


# 8. The build applies merge's checks, and knows which examples exist.

@pytest.mark.parametrize("folder, runner, gpus, field", [
    ("cpu", "gpu", [{"name": "x"}], "runner"),
    ("gpu", "gpu", [], "environment.gpus"),
    ("cpu", "cpu", [{"name": "x"}], "environment.gpus"),
])
def test_the_site_refuses_a_file_that_does_not_fit_its_folder(tmp_path, folder, runner, gpus, field):
    results = synthetic_results(runner=runner)
    results = dataclasses.replace(results, environment={**results.environment, "gpus": gpus})
    path = _write_raw(tmp_path / folder / "demo.json", to_dict(results))
    with pytest.raises(ResultsFileError) as raised:
        load_runner(path.parent)
    assert raised.value.field == field


def test_results_for_an_example_that_does_not_exist_stop_the_build(tmp_path):
    results_root = tmp_path / "results"
    shutil.copytree(REPO / "results", results_root)
    write_results(synthetic_results(example="no_such_example", runner="cpu"), results_root)
    completed = build_site(results_root, tmp_path / "site")
    assert completed.returncode != 0
    assert "no example 'no_such_example'" in completed.stderr


# 9. Every malformed or unknown directive fails the build.

def test_directives_naming_no_example_or_a_misspelt_option_are_errors(tmp_path):
    context = directives.Context(results={"cpu": {}, "gpu": {}}, results_root=tmp_path, page_uri="x.md",
                                 known_examples=frozenset({"small_ops"}))
    for name, args in (("results", ["no_such"]), ("traces", ["nosuch"]), ("time", ["no_such", "eager"])):
        with pytest.raises(DirectiveError, match="no example 'no_?such'"):
            directives.render(name, args, context)
    assert "Not yet measured" in directives.render("results", ["small_ops"], context)  # real, unmeasured: fine
    with pytest.raises(DirectiveError, match="unknown option.*runer"):
        directives.render("results", ["small_ops", "runer=gpu"], context)


@pytest.mark.parametrize("text", ["{{ median small_ops eager }", "{{ Median small_ops eager }}",
                                  "a }} b", "{{median small_ops eager}"])
def test_text_the_directive_pattern_does_not_take_is_an_error_with_its_line(text):
    problem = malformed_directive(f"# Page\n\nfine {{{{ median small_ops eager }}}}\n{text}\n")
    assert problem is not None and problem.startswith("line 4:")
    assert malformed_directive("{{ median small_ops eager }} and `{m:.1%}`") is None


# 10. Clear messages, not tracebacks; merge all or nothing.

def test_out_that_is_a_file_is_one_clear_error(tmp_path):
    examples = _examples(tmp_path, passing=PASSING_EXAMPLE)
    out = tmp_path / "file"
    out.write_text("not a folder")
    completed = run_cli("--examples", str(examples), "run", "passing", "--runner", "cpu", "--out", str(out))
    assert completed.returncode == 2
    assert "cannot write results under" in completed.stderr and "Traceback" not in completed.stderr
    assert out.read_text() == "not a folder"


def test_merge_stages_everything_before_it_replaces_anything(tmp_path, monkeypatch):
    later = "2026-06-01T00:00:00+00:00"
    source = tmp_path / "source"
    for runner, gpus in (("cpu", []), ("gpu", [{"name": "x"}])):
        results = synthetic_results(runner=runner)
        write_results(dataclasses.replace(results, environment={**results.environment, "gpus": gpus,
                                                                 "utc_time": later}), source)
    into = tmp_path / "into"
    for runner, gpus in (("cpu", []), ("gpu", [{"name": "x"}])):
        results = synthetic_results(runner=runner)
        write_results(dataclasses.replace(results, environment={**results.environment, "gpus": gpus}), into)
    before = snapshot(into)
    calls = []
    original = artifacts.copy_for_publishing

    def failing_second(*args):
        calls.append(args)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return original(*args)

    monkeypatch.setattr(artifacts, "copy_for_publishing", failing_second)
    with pytest.raises(MergeError, match="No space left on device.*as it was"):
        merge_results([source], into)
    assert snapshot(into) == before


@pytest.mark.parametrize("content, field", [
    (b"[1, 2]", "<top level>"),
    (b'{"error": "x", "utc_time": 5}', "utc_time"),
    (b"\xff\xfe not utf-8", "<file>"),
])
def test_a_bad_failure_record_names_its_file_and_field(tmp_path, content, field):
    (tmp_path / "demo.failed.json").write_bytes(content)
    with pytest.raises(ResultsFileError) as raised:
        load_failure(tmp_path, "demo")
    assert raised.value.field == field and "demo.failed.json" in str(raised.value)


def test_non_dict_gpu_entry_and_non_utf8_results_name_the_file(tmp_path):
    data = to_dict(synthetic_results())
    data["environment"]["gpus"] = ["GPU:0"]
    with pytest.raises(ResultsFileError, match="environment.gpus"):
        load_results(_write_raw(tmp_path / "a" / "demo.json", data))
    binary = tmp_path / "b" / "demo.json"
    binary.parent.mkdir()
    binary.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ResultsFileError, match="demo.json"):
        load_results(binary)


def test_examples_folder_missing_or_a_non_utf8_example_are_clear(tmp_path):
    completed = run_cli("--examples", str(tmp_path / "nonexistent"), "list")
    assert completed.returncode == 2 and "no such folder of examples" in completed.stderr
    examples = _examples(tmp_path, passing=PASSING_EXAMPLE)
    (examples / "latin.py").write_bytes(b"# # Caf\xe9\nx = 1\n")
    listed = run_cli("--examples", str(examples), "list")
    assert listed.returncode == 0 and "latin" in listed.stdout, listed.stderr[-2000:]
    assert catalog.discover(examples)["latin"].title == "Caf\ufffd"


# 11. Interrupts are forwarded and reported truthfully; staging does not pile up.

@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
@STARTS
def test_sigint_to_the_parent_alone_reaches_the_child_and_keeps_the_old_results(tmp_path, start):
    examples = _examples(tmp_path, slow=SLOW_EXAMPLE)
    out = tmp_path / "results"
    previous = out / "cpu" / "slow.json"
    previous.parent.mkdir(parents=True)
    previous.write_text('{"kept": true}')
    process = subprocess.Popen(
        [sys.executable, "-m", "tfspeedlab", "--examples", str(examples), "run", "slow", "--runner", "cpu",
         "--out", str(out), *start], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=default_sigint)
    deadline = time.monotonic() + 120
    for line in process.stdout:
        if "slow · sleep  (1/1)" in line or time.monotonic() > deadline:
            break
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)  # the parent only, as `kill -INT` would
    remaining = output_after_interrupt(process, timeout=90)
    assert process.returncode == 130, remaining
    assert "interrupted (its previous results, if any, are untouched)" in remaining
    assert previous.read_text() == '{"kept": true}'
    assert not list(out.glob(".staging-*"))


@pytest.mark.slow  # a fresh process imports TensorFlow: seconds (the fast tier leaves it out)
def test_sigint_during_a_quick_run_of_two_examples_at_once_stops_both_and_reports_each(tmp_path):
    examples = _examples(tmp_path, slow=SLOW_EXAMPLE, slow2=SLOW_EXAMPLE.replace('name="slow"', 'name="slow2"'))
    out = tmp_path / "results"
    process = subprocess.Popen(
        [sys.executable, "-m", "tfspeedlab", "--examples", str(examples), "run", "slow", "slow2", "--runner", "cpu",
         "--out", str(out), "--quick", "--jobs", "2"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=default_sigint)
    deadline, warming = time.monotonic() + 120, set()
    for line in process.stdout:
        warming |= {name for name in ("slow ·", "slow2 ·") if name in line and "warming up" in line}
        if len(warming) == 2 or time.monotonic() > deadline:
            break
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    remaining = output_after_interrupt(process, timeout=120)
    assert process.returncode == 130, remaining
    for name in ("slow", "slow2"):
        assert f"  {name}: interrupted (its previous results, if any, are untouched)" in remaining, remaining
    assert not list(out.glob(".staging-*"))


def test_staging_left_by_a_killed_run_is_removed_by_the_next(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    abandoned = tmp_path / f".staging-{dead.pid}-abc"
    abandoned.mkdir(parents=True)
    live = tmp_path / f".staging-{os.getpid()}-def"
    live.mkdir()
    assert artifacts.remove_abandoned_staging(tmp_path) == [abandoned]
    assert live.exists() and not abandoned.exists()


# 12. Two runs publishing the same example's traces do not collide.

def test_concurrent_publishing_never_fails(tmp_path):
    code = textwrap.dedent(f'''
        import sys
        from pathlib import Path
        from tfspeedlab.core.results import artifacts
        out = Path({str(tmp_path)!r})
        for i in range(40):
            staging = artifacts.start_staging(out)
            (staging / "run.xplane.pb").write_text(sys.argv[1] + str(i))
            artifacts.publish(staging, out, "cpu", "demo")
    ''')
    workers = [subprocess.Popen([sys.executable, "-c", code, name], stderr=subprocess.PIPE, text=True)
               for name in ("a", "b", "c")]
    errors = [worker.communicate(timeout=120)[1] for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0, 0], errors
    assert [p.name for p in (tmp_path / "cpu" / "traces" / "demo").iterdir()] == ["run.xplane.pb"]


# 13. Minor: permissions, duplicate names, clocks from the future.

def test_results_files_are_readable_by_others_like_any_published_file(tmp_path):
    path = write_results(synthetic_results(), tmp_path)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_example_named_twice_runs_once():
    assert [s.name for s in catalog.select(["small_ops", "small_ops", "matmul"])] == ["small_ops", "matmul"]


def test_a_run_dated_in_the_future_is_refused_by_merge(tmp_path):
    results = synthetic_results()
    future = dataclasses.replace(results, environment={**results.environment, "utc_time": "2999-01-01T00:00:00+00:00"})
    write_results(future, tmp_path / "source")
    with pytest.raises(MergeError, match="utc_time.*in the future"):
        merge_results([tmp_path / "source"], tmp_path / "into")
