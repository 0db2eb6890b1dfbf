"""``tfspeedlab compare``: significant only when the interval says so; files and trees; clear errors."""

import re
import dataclasses

import pytest

from conftest import run_cli, synthetic_results
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.results.store import write_results
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.wording import Verdict
from tfspeedlab.harness.compare import CompareError, compare

# Three processes of ten blocks each, a few percent of noise, as a quiet machine gives.
NOISE = (1.00, 1.03, 0.98, 1.05, 1.01, 0.99, 1.02, 1.04, 1.00, 0.97)


def runs(scale: float, shift: float = 0.0) -> tuple[Measurement, ...]:
    return tuple(Measurement(tuple(scale * (n + shift + 0.01 * p) for n in NOISE), 100, 0.05, "test") for p in range(3))


def results(graph_scale: float = 1.0, eager_scale: float = 1.0, example: str = "demo"):
    base = synthetic_results(example=example)
    cases = (CaseResult("eager", {"mode": "eager"}, runs(10e-3 * eager_scale)),
             CaseResult("graph", {"mode": "graph"}, runs(1e-3 * graph_scale)))
    return dataclasses.replace(base, cases=cases, quick=False)


def test_the_same_run_twice_differs_in_nothing(tmp_path):
    old = write_results(results(), tmp_path / "old")
    new = write_results(dataclasses.replace(results(), cases=tuple(
        CaseResult(c.label, c.params, runs(c.measurement.median_s / 1.01, shift=0.005)) for c in results().cases)),
        tmp_path / "new")
    changes = compare(old, new)
    assert [change.case for change in changes] == ["eager", "graph"]
    assert not any(change.significant for change in changes)
    assert all(not change.verdict.clear for change in changes)


def test_a_slowed_case_is_flagged_and_the_others_are_not(tmp_path):
    old = write_results(results(), tmp_path / "old")
    new = write_results(results(graph_scale=1.3), tmp_path / "new")
    changes = {change.case: change for change in compare(tmp_path / "old", tmp_path / "new")}
    assert changes["graph"].verdict is Verdict.SLOWER and changes["graph"].change.low > 1.2
    assert not changes["eager"].verdict.clear
    faster = {change.case: change for change in compare(new, old)}
    assert faster["graph"].verdict is Verdict.FASTER


def test_trees_pair_files_by_runner_and_example(tmp_path):
    write_results(results(example="one"), tmp_path / "old")
    write_results(results(example="two"), tmp_path / "old")
    write_results(results(example="two", eager_scale=2.0), tmp_path / "new")
    changes = compare(tmp_path / "old", tmp_path / "new" / "cpu")
    assert {(change.example, change.case, change.verdict.clear) for change in changes} == {
        ("two", "eager", True), ("two", "graph", False)}
    assert next(change for change in changes if change.case == "eager").verdict is Verdict.SLOWER


def test_nothing_in_common_or_nothing_there_is_a_clear_error(tmp_path):
    write_results(results(example="one"), tmp_path / "old")
    write_results(results(example="two"), tmp_path / "new")
    with pytest.raises(CompareError, match="no runner/example in common"):
        compare(tmp_path / "old", tmp_path / "new")
    with pytest.raises(CompareError, match="no such file"):
        compare(tmp_path / "old", tmp_path / "missing")


def test_the_command_prints_a_row_per_case_and_a_summary(tmp_path):
    old = write_results(results(), tmp_path / "old")
    new = write_results(results(graph_scale=1.3), tmp_path / "new")
    completed = run_cli("compare", str(old), str(new))
    assert completed.returncode == 0, completed.stderr
    assert "cpu/demo · graph" in completed.stdout and "slower" in completed.stdout
    assert "1 of 2 cases differ significantly" in completed.stdout
    # One convention in the terminal too: every factor at least 1, with its word.
    factors = [float(found) for found in re.findall(r"([\d.]+)×", completed.stdout)]
    assert factors and all(factor >= 1 for factor in factors), completed.stdout
    faster = run_cli("compare", str(new), str(old))
    assert "faster [" in faster.stdout and "1.30× faster" in faster.stdout.replace("\u00a0", " ")
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    failed = run_cli("compare", str(old), str(broken))
    assert failed.returncode == 2 and "broken.json" in failed.stderr


def test_interval_contains_the_estimate_and_narrows_with_more_processes():
    few, many = runs(1e-3)[:1], runs(1e-3) * 3
    wide, narrow = intervals.ratio(few, few), intervals.ratio(many, many)
    for found in (wide, narrow):
        assert found.low <= found.value <= found.high
    assert narrow.high - narrow.low < wide.high - wide.low
