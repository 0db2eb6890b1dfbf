"""``tfspeedlab compare``: significant only when the interval says so; files and trees; clear errors."""

import dataclasses
import json
import re

import pytest

from conftest import REPO, run_cli, synthetic_results
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import CaseResult, to_dict
from tfspeedlab.core.results.store import load_results, write_results
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.wording import NO_VERDICT_CELL, ONE_PROCESS, ONE_PROCESS_NOTE, Verdict
from tfspeedlab.harness.compare import CompareError, compare, ratio_of_independent
from tfspeedlab.harness.speedup_pairs import SpeedupPair, speedup_pairs

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


# ------------------------------------------------------------ across machines, from the committed files

COMMITTED = REPO / "results" / "cpu"
# Another CPU model of the same name, as the guide's runner has been given (DESIGN: family 26 model 2,
# with AVX-512): the committed files' is family 25 model 1, AVX2 only.
OTHER_CPU = {"cpu_model": "AMD EPYC", "cpu_family": 26, "cpu_model_number": 2, "cpu_stepping": 1,
             "cpu_flags": ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512_bf16"]}


def committed(example: str = "small_ops"):
    return load_results(COMMITTED / f"{example}.json")


def edited(results, every: float = 1.0, factors: dict | None = None, processes: int | None = None,
           environment: dict | None = None, quick: bool | None = None):
    """The committed file with every time × ``every`` (and a case's × ``factors[label]``), its first
    ``processes`` runs, its environment updated with ``environment``: another run, as a test needs one."""
    cases = []
    for case in results.cases:
        scale = every * (factors or {}).get(case.label, 1.0)
        runs = tuple(dataclasses.replace(run, samples_s=tuple(sample * scale for sample in run.samples_s))
                     for run in case.runs[:processes])
        cases.append(dataclasses.replace(case, runs=runs, run_metrics=case.run_metrics if len(runs) == len(case.runs) else ()))
    return dataclasses.replace(results, cases=tuple(cases), environment={**results.environment, **(environment or {})},
                               quick=results.quick if quick is None else quick)


def lines_of(table: str, start: str) -> list[str]:
    """The table's rows whose case starts with ``start``."""
    return [line for line in table.splitlines() if line.startswith(start)]


def cells(row: str) -> list[str]:
    """A row's cells (columns are two spaces or more apart; a cell's words, one)."""
    return re.split(r"\s{2,}", row.strip())


def test_one_machine_compares_times_prints_both_environments_and_sorts_by_change(tmp_path):
    old = write_results(committed(), tmp_path / "old")
    new = write_results(edited(committed(), factors={"graph": 2.0, "xla": 0.5}), tmp_path / "new")
    completed = run_cli("compare", str(old), str(new))
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert out.count("AMD EPYC (family 25, model 1, stepping 1; AVX2)") == 2
    assert out.count("TensorFlow 2.21.0, Keras 3.15.1 · full run · 6 processes a case") == 2
    assert "differ:" not in out and "Speed-ups within" not in out
    rows = lines_of(out, "cpu/small_ops")
    assert [row.split()[0:3] for row in rows] == [["cpu/small_ops", "·", "graph"], ["cpu/small_ops", "·", "eager"],
                                                   ["cpu/small_ops", "·", "xla"]]  # biggest slow-down first
    assert "2.00× slower [" in rows[0].replace("\u00a0", " ") and "2.00× faster [" in rows[2].replace("\u00a0", " ")
    assert "Summary: 2 of 3 cases differ significantly: 1 faster, 1 slower," in out
    # The geometric mean of the changes: old ÷ new is 1/2, 1 and 2, whose mean is 1.
    assert "geometric mean of the changes: 1.00×" in out


def test_two_cpu_models_lead_with_the_speedups_each_side_measured_and_times_only_when_asked(tmp_path):
    # The other machine is twice as fast at everything: every raw time halves, no speed-up moves.
    old = write_results(committed(), tmp_path / "old")
    new = write_results(edited(committed(), every=0.5, environment=OTHER_CPU), tmp_path / "new")
    out = run_cli("compare", str(old), str(new)).stdout.replace("\u00a0", " ")
    assert "AMD EPYC (family 26, model 2, stepping 1; AVX2, AVX-512, AVX512_BF16)" in out
    assert ("machines differ: AMD EPYC 25/1 with AVX2 (old) against AMD EPYC 26/2 with AVX2, AVX-512, AVX512_BF16 "
            "(new)") in out
    assert "Speed-ups within each example" in out and "Raw times" not in out
    rows = lines_of(out, "cpu/small_ops")
    assert [cells(row)[:2] for row in rows] in ([["cpu/small_ops · graph", "eager"], ["cpu/small_ops · xla", "eager"]],
                                                [["cpu/small_ops · xla", "eager"], ["cpu/small_ops · graph", "eager"]])
    # Each side's own speed-up, side by side, with its interval; no change in them is a clear one.
    graph = cells(lines_of(out, "cpu/small_ops · graph")[0])
    assert "faster [" in graph[2] and "faster [" in graph[3]
    assert "Summary: 0 of 2 speed-ups differ significantly" in out
    with_times = run_cli("compare", str(old), str(new), "--times").stdout.replace("\u00a0", " ")
    raw = with_times.split("Raw times (--times)")[1].split("Summary")[0]
    assert [cells(row)[3].split(" [")[0] for row in lines_of(raw, "cpu/small_ops")] == ["2.00× faster"] * 3
    assert "Summary: 0 of 2 speed-ups differ significantly" in with_times  # the times lead nothing


def test_a_speedup_that_shrank_on_another_machine_is_slower_and_fails_ci_past_its_threshold(tmp_path):
    old = write_results(committed(), tmp_path / "old")
    new = write_results(edited(committed(), every=0.5, factors={"graph": 3.0}, environment=OTHER_CPU), tmp_path / "new")
    completed = run_cli("compare", str(old), str(new), "--fail-on-slower")
    out = completed.stdout.replace("\u00a0", " ")
    assert completed.returncode == 1, out + completed.stderr
    graph = lines_of(out, "cpu/small_ops · graph")[0]
    assert graph.endswith("]") and "3.00× slower [" in graph
    assert "--fail-on-slower: 1 significantly slower by any amount: cpu/small_ops · graph" in out
    assert run_cli("compare", str(old), str(new), "--fail-on-slower=150").returncode == 1
    passing = run_cli("compare", str(old), str(new), "--fail-on-slower=250")
    assert passing.returncode == 0 and "none significantly slower by 250% or more" in passing.stdout
    # The same files the other way round: the speed-up grew, which fails nothing.
    assert run_cli("compare", str(new), str(old), "--fail-on-slower").returncode == 0
    refused = run_cli("compare", str(old), str(new), "--fail-on-slower=-5")
    assert refused.returncode == 2 and "at least 0" in refused.stderr


def test_a_side_timed_in_one_process_gets_figures_and_no_verdict_and_fails_nothing(tmp_path):
    # The README's comparison: the committed results against a quick run (one process) elsewhere.
    mine = tmp_path / "mine"
    write_results(edited(committed(), every=0.5, factors={"graph": 3.0}, processes=1, quick=True,
                         environment=OTHER_CPU), mine)
    completed = run_cli("compare", str(REPO / "results"), str(mine), "--times", "--fail-on-slower")
    out = completed.stdout.replace("\u00a0", " ")
    assert completed.returncode == 0, out + completed.stderr
    assert "full run · 6 processes a case" in out and "quick run · one process a case" in out
    assert "machines differ: AMD EPYC 25/1 with AVX2 (old) against" in out
    assert "also full run (old) against quick run (new); 6 processes a case (old) against one process a case (new)" in out
    assert f"new: {ONE_PROCESS}" in out and ONE_PROCESS_NOTE in out
    rows = lines_of(out, "cpu/small_ops")
    assert len(rows) == 2 + 3  # two speed-ups, then three raw times
    assert all(row.endswith(NO_VERDICT_CELL) for row in rows), rows
    assert all(cells(row)[3].endswith("¹") and "[" not in cells(row)[3] for row in rows[:2])  # a figure, marked
    assert f"2 with no verdict ({ONE_PROCESS})" in out
    assert f"--fail-on-slower: nothing to judge ({ONE_PROCESS})" in out
    # On one machine too: times, and no verdict on them.
    same = tmp_path / "same"
    write_results(edited(committed(), factors={"graph": 3.0}, processes=1, quick=True), same)
    one_machine = run_cli("compare", str(REPO / "results"), str(same)).stdout
    assert "differ:" in one_machine and "machines differ" not in one_machine
    assert all(row.endswith(NO_VERDICT_CELL) for row in lines_of(one_machine, "cpu/small_ops"))


def test_json_holds_the_environments_the_comparisons_sorted_the_summary_and_the_failures(tmp_path):
    old = write_results(committed(), tmp_path / "old")
    new = write_results(edited(committed(), every=0.5, factors={"graph": 3.0}, environment=OTHER_CPU),
                        tmp_path / "new")
    completed = run_cli("compare", str(old), str(new), "--json", "--fail-on-slower=10")
    assert completed.returncode == 1
    report = json.loads(completed.stdout)
    assert report["differences"]["machines_differ"] is True and report["leads_with"] == "speedups"
    assert report["old"]["environment"]["processes"] == {"fewest": 6, "most": 6}
    assert report["new"]["environment"]["instruction_sets"] == ["AVX2, AVX-512, AVX512_BF16"]
    assert "times" not in report
    speedups = report["speedups"]
    assert [found["case"] for found in speedups] == ["graph", "xla"]
    gains = [found["gain"]["value"] for found in speedups]
    assert gains == sorted(gains) and gains[0] == pytest.approx(1 / 3) and gains[1] == pytest.approx(1)
    graph = speedups[0]
    assert graph["baseline"] == "eager" and graph["verdict"] == "slower"
    assert graph["gain"]["low"] <= graph["gain"]["value"] <= graph["gain"]["high"] < 1
    assert graph["new"]["value"] == pytest.approx(graph["old"]["value"] / 3)
    assert report["summary"]["compared"] == 2 and report["summary"]["verdicts"]["slower"] == 1
    assert report["summary"]["geometric_mean_gain"] == pytest.approx((1 / 3) ** 0.5)
    assert [found["case"] for found in report["fail_on_slower"]["failed"]] == ["graph"]
    with_times = json.loads(run_cli("compare", str(old), str(new), "--json", "--times").stdout)
    assert [found["case"] for found in with_times["times"]] == ["graph", "eager", "xla"]
    assert all(found["verdict"] == "faster" for found in with_times["times"][1:])


def test_speedups_pair_each_case_with_the_baseline_its_layout_declares():
    assert speedup_pairs(committed("small_ops")) == [SpeedupPair("graph", "eager"), SpeedupPair("xla", "eager")]
    op_chain = committed("op_chain")  # a sweep: each mode against eager at the same op count
    layout = op_chain.layout
    pairs = speedup_pairs(op_chain)
    assert pairs and len(pairs) == sum(1 for case in op_chain.cases if case.params["mode"] != "eager")
    for pair in pairs:
        case, baseline = op_chain.case(pair.case), op_chain.case(pair.baseline)
        assert baseline.params[layout.series] == layout.baseline != case.params[layout.series]
        assert baseline.params[layout.parameter] == case.params[layout.parameter]
    ladder = committed("predict_ladder")  # a split grid: against the baseline row of its column and model
    layout = ladder.layout
    pairs = speedup_pairs(ladder)
    assert pairs
    for pair in pairs:
        case, baseline = ladder.case(pair.case), ladder.case(pair.baseline)
        assert baseline.params[layout.rows] == layout.baseline != case.params[layout.rows]
        assert [baseline.params[name] for name in (layout.columns, layout.split)] == [
            case.params[name] for name in (layout.columns, layout.split)]
    assert speedup_pairs(committed("op_layers")) == [] and speedup_pairs(committed("holdout")) == []


def test_a_ratio_of_two_independent_ratios_joins_their_intervals():
    old, new = intervals.Ratio(10.0, 8.0, 12.5, 6), intervals.Ratio(5.0, 4.0, 6.25, 6)
    found = ratio_of_independent(new, old)
    assert found.value == pytest.approx(0.5) and found.processes == 6
    # Each end reaches √2 as far as each interval on the log scale (both reach 1.25× either way).
    assert found.low == pytest.approx(0.5 / 1.25 ** 2 ** 0.5) and found.high == pytest.approx(0.5 * 1.25 ** 2 ** 0.5)
    assert ratio_of_independent(new, intervals.Ratio(10.0, 9.0, 11.0, 1)).one_process


def test_control_characters_a_file_carries_never_reach_the_terminal(tmp_path):
    old = write_results(results(), tmp_path / "old")
    # Written by hand: the harness refuses to write such a file, as the loader refuses to read it.
    hostile = to_dict(dataclasses.replace(results(), environment={**results().environment, "cpu_model": "Evil\x1b[2J CPU"}))
    new = tmp_path / "new" / "cpu" / "demo.json"
    new.parent.mkdir(parents=True)
    new.write_text(json.dumps(hostile))
    completed = run_cli("compare", str(old), str(tmp_path / "new"))
    printed = completed.stdout + completed.stderr
    assert completed.returncode != 0 and "\x1b" not in printed
    assert "environment.cpu_model" in printed and "control character U+001B" in printed
    assert "Traceback" not in printed
