"""Is a results file older than the code that measured it? Definitions compared without the noise."""

import dataclasses
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import REPO, synthetic_results
from tfspeedlab.core.results import provenance

EXAMPLE = '''"""An example."""

import tensorflow as tf

import tfspeedlab
from tfspeedlab import Case, Sweep, Workload

STEPS = 50  # ops per call


def small_ops(x):
    """Many small ops."""
    for _ in range(STEPS):
        x = x * 0.99 + 0.01  # decays
    return x


def workload(quick=False):
    x = tf.ones([10, 10])
    return Workload(
        name="small_ops",
        title="Many small ops",
        cases=[Case(mode, small_ops, args=(x,), params={"mode": mode, "n_ops": 1}) for mode in ("eager",)],
        params={"steps": STEPS},
        baseline="eager",
        layout=Sweep("n_ops"),
        budget_s=1.0,
    )
'''


def edited(old: str, new: str, source: str = EXAMPLE) -> str:
    assert old in source, old
    return source.replace(old, new, 1)


SAME = {
    "import added": edited("import tensorflow as tf\n", "import math\nimport tensorflow as tf\n"),
    "import removed": edited("import tfspeedlab\n", ""),
    "import renamed": edited("from tfspeedlab import Case, Sweep, Workload",
                             "from tfspeedlab.core.spec.workload import Case, Workload\nfrom tfspeedlab.core.spec.layout import Sweep"),
    "docstring changed": edited('"""Many small ops."""', '"""Many, many small ops: see the guide."""'),
    "docstring removed": edited('    """Many small ops."""\n', ""),
    "module docstring changed": edited('"""An example."""', '"""Another example."""'),
    "comment changed": edited("# decays", "# shrinks towards 0.1"),
    "comment added": edited("STEPS = 50  # ops per call", "# how many\nSTEPS = 50"),
    "title changed": edited('title="Many small ops"', 'title="Small ops, many of them"'),
    "params changed": edited('params={"steps": STEPS},', 'params={"steps": STEPS, "shape": [10, 10]},'),
    "baseline changed": edited('baseline="eager"', 'baseline=None'),
    "layout changed": edited('layout=Sweep("n_ops")', 'layout=Sweep("n_ops", fits_cost_model=True)'),
    "layout removed": edited('        layout=Sweep("n_ops"),\n', ""),
}
ATTRIBUTE_CALL = edited("return Workload(", "return tfspeedlab.Workload(")

CHANGED = {
    "function body": ("small_ops", edited("x * 0.99 + 0.01", "x * 0.98 + 0.02")),
    "module constant": ("STEPS", edited("STEPS = 50", "STEPS = 60")),
    "budget": ("workload", edited("budget_s=1.0", "budget_s=2.0")),
    "a case": ("workload", edited('for mode in ("eager",)', 'for mode in ("eager", "graph")')),
    "a case's params": ("workload", edited('params={"mode": mode, "n_ops": 1}', 'params={"mode": mode, "n_ops": 2}')),
}


def test_the_example_is_parsed_into_its_top_level_definitions():
    assert set(provenance.definitions(EXAMPLE)) == {"STEPS", "small_ops", "workload"}


@pytest.mark.parametrize("change", sorted(SAME))
def test_descriptive_changes_leave_the_definitions_equal(change):
    assert provenance.definitions(SAME[change]) == provenance.definitions(EXAMPLE)


@pytest.mark.parametrize("change", sorted(CHANGED))
def test_changes_to_what_is_measured_change_the_definitions(change):
    name, source = CHANGED[change]
    before, after = provenance.definitions(EXAMPLE), provenance.definitions(source)
    assert before[name] != after[name]
    # Only the definition that changed differs.
    assert {key for key in before if before[key] != after.get(key)} == {name}


def test_descriptive_keywords_of_tfspeedlab_workload_are_dropped_too():
    retitled = edited('title="Many small ops"', 'title="Other"', ATTRIBUTE_CALL)
    assert provenance.definitions(retitled) == provenance.definitions(ATTRIBUTE_CALL)
    budget = edited("budget_s=1.0", "budget_s=2.0", ATTRIBUTE_CALL)
    assert provenance.definitions(budget) != provenance.definitions(ATTRIBUTE_CALL)


def test_title_of_another_call_is_not_descriptive():
    """Only Workload(...)'s descriptive keywords are dropped; a title given elsewhere is code."""
    source = 'def chart():\n    return plot(title="a")\n'
    assert provenance.definitions(source) != provenance.definitions(source.replace('"a"', '"b"'))


# ------------------------------------------------------------ freshness against a commit

TIMER = REPO / "tfspeedlab" / "core" / "measure" / "timer.py"


def current_definitions(example: str, replace_file: Path | None = None, source: str | None = None):
    """What the measured commit would hold: today's measuring files, one of them possibly as ``source``."""
    merged: dict[str, set[str]] = {}
    for path in provenance.measuring_files(example):
        if not path.exists():
            continue
        text = source if path == replace_file else path.read_text(encoding="utf-8")
        for name, dumps in provenance.definitions(text).items():
            merged.setdefault(name, set()).update(dumps)
    return merged


COMMIT = "0123456789abcdef"


@pytest.fixture
def measured_at_a_known_commit(monkeypatch):
    monkeypatch.delenv("TFSPEEDLAB_EXAMPLES", raising=False)
    asked = []

    def git(*args):
        asked.append(args)
        return ""  # `git cat-file -e` succeeds: the commit is in this clone

    monkeypatch.setattr(provenance, "_git", git)
    results = synthetic_results(example="small_ops")
    results = replace(results, environment={**results.environment, "git_commit": COMMIT})
    provenance.forget_commits()
    yield results, asked
    provenance.forget_commits()


def at_the_commit(definitions):
    """The definitions the commit holds, as a build that read them once keeps them."""
    provenance.DEFINITIONS_CACHE.load({COMMIT: definitions})


def test_fresh_when_every_definition_is_unchanged(measured_at_a_known_commit):
    results, asked = measured_at_a_known_commit
    at_the_commit(current_definitions("small_ops"))
    verdict = provenance.freshness(results)
    assert verdict.fresh is True and verdict.reason == "yes"
    assert asked == [("cat-file", "-e", f"{COMMIT}^{{commit}}")]


def test_stale_when_a_timer_function_changed_since(measured_at_a_known_commit):
    results, _ = measured_at_a_known_commit
    source = TIMER.read_text(encoding="utf-8")
    old = "def _calibrate(block: Callable[[int], float], target_s: float) -> int:\n"
    assert old in source
    # At the measured commit, _calibrate did something else.
    then = source.replace(old, old + "    target_s = target_s * 2\n", 1)
    at_the_commit(current_definitions("small_ops", TIMER.resolve(), then))
    verdict = provenance.freshness(results)
    assert verdict.fresh is False
    assert (verdict.changed, verdict.path) == ("_calibrate", "tfspeedlab/core/measure/timer.py")


def test_stale_when_the_example_changed_since(measured_at_a_known_commit):
    results, _ = measured_at_a_known_commit
    script = REPO / "examples" / "small_ops.py"
    then = script.read_text(encoding="utf-8").replace("def workload(", "def workload_renamed(", 1)
    at_the_commit(current_definitions("small_ops", script.resolve(), then))
    verdict = provenance.freshness(results)
    assert (verdict.fresh, verdict.changed, verdict.path) == (False, "workload", "examples/small_ops.py")


def test_unknown_without_a_recorded_commit(monkeypatch):
    monkeypatch.setattr(provenance, "_git", lambda *args: pytest.fail("git asked without a commit"))
    verdict = provenance.freshness(synthetic_results(example="small_ops"))  # git_commit is None
    assert verdict.fresh is None and "no commit recorded" in verdict.reason


def test_unknown_when_the_commit_is_not_in_this_clone(monkeypatch, measured_at_a_known_commit):
    results, _ = measured_at_a_known_commit
    monkeypatch.setattr(provenance, "_git", lambda *args: None)
    verdict = provenance.freshness(results)
    assert COMMIT not in provenance.DEFINITIONS_CACHE.asked  # a missing commit is not read
    assert verdict.fresh is None and "not in this clone" in verdict.reason


def relative(paths):
    return {path.resolve().relative_to(REPO.resolve()).as_posix() for path in paths}


def test_measuring_files_of_an_example_include_its_script_and_the_timer(monkeypatch):
    monkeypatch.delenv("TFSPEEDLAB_EXAMPLES", raising=False)
    files = relative(provenance.measuring_files("small_ops"))
    assert {"examples/small_ops.py", "tfspeedlab/core/measure/timer.py", "tfspeedlab/core/measure/measurement.py"} <= files
    # Pages, results and unrelated subpackages do not decide a measurement.
    assert not any(path.startswith(("tfspeedlab/site/", "tfspeedlab/core/results/", "tfspeedlab/core/profiling/",
                                    "tfspeedlab/core/wording.py"))
                   for path in files)


def test_measuring_files_follow_a_subpackage_the_example_imports(monkeypatch):
    monkeypatch.delenv("TFSPEEDLAB_EXAMPLES", raising=False)
    assert "from tfspeedlab.core import profiling" in (REPO / "examples" / "time_breakdown.py").read_text()
    files = relative(provenance.measuring_files("time_breakdown"))
    assert {"examples/time_breakdown.py", "tfspeedlab/core/profiling/trace.py", "tfspeedlab/core/profiling/capture.py",
            "tfspeedlab/core/measure/timer.py"} <= files


# ------------------------------------------------------------ a verdict kept between builds

def test_a_kept_verdict_is_reused_until_a_measuring_file_changes(measured_at_a_known_commit, tmp_path, monkeypatch):
    results, _ = measured_at_a_known_commit
    at_the_commit(current_definitions("small_ops"))
    first = provenance.freshness(results)
    kept = provenance.FRESHNESS_CACHE.saved()
    provenance.forget_commits()  # a new build: only what the cache kept
    provenance.FRESHNESS_CACHE.load(kept)
    assert provenance.freshness(results) == first
    assert COMMIT not in provenance.DEFINITIONS_CACHE.asked  # nothing of the commit was read again

    # The example script changed since: its verdict is not the kept one.
    examples = tmp_path / "examples"
    examples.mkdir()
    script = REPO / "examples" / "small_ops.py"
    (examples / "small_ops.py").write_text(
        script.read_text(encoding="utf-8").replace("def workload(", "def workload_renamed(", 1), encoding="utf-8")
    at_the_commit(current_definitions("small_ops"))  # the commit held the script as it is in the repository
    monkeypatch.setenv("TFSPEEDLAB_EXAMPLES", str(examples))
    provenance.FRESHNESS_CACHE.load(kept)
    verdict = provenance.freshness(results)
    assert (verdict.fresh, verdict.changed) == (False, "workload_renamed")
    assert verdict.new


@pytest.mark.parametrize("kept", [
    [True, "yes", None, None, False],
    [False, "code changed", "workload", "examples/small_ops.py", True],
    [None, "unknown (commit not in this clone)", None, None, False],
])
def test_a_kept_verdict_reads_back_as_written(kept):
    verdict = provenance.kept_freshness(kept)
    assert verdict is not None and list(dataclasses.astuple(verdict)) == kept


@pytest.mark.parametrize("kept", [
    None, "yes", [True, "yes"], [True, "<script>alert(1)</script>", None, None, False],
    [False, "yes", None, None, False], [True, "code changed", "x", "y", False], [False, "code changed", None, None, False],
    [True, "yes", 3, None, False], [True, "yes", None, None, "no"], ["yes", "yes", None, None, False],
])
def test_a_kept_verdict_freshness_could_not_have_given_is_refused(kept):
    assert provenance.kept_freshness(kept) is None
