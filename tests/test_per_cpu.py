"""Figures that move between CPU models: the home and question pages lead with their range or one row
per CPU model, never with the one model the guide's tables come from. Here: each row is one CPU model,
the break-even and the fixed cost of a call are given for every model an example measured them on, and
the home page's first sentence says no figure comes from a GPU."""

from dataclasses import replace
from pathlib import Path

import pytest

from tfspeedlab.core.stats import sweeps
from tfspeedlab.costmodel import per_cpu
from tfspeedlab.render import shared_workloads
from tfspeedlab.render.markdown import text
from tfspeedlab.site import directives, site_data
from tfspeedlab.site.quantities import derived

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def committed():
    return site_data.load(REPO / "results")


def context(data, **changes):
    return directives.Context(results=changes.get("results", data.results), results_root=REPO / "results",
                              repo_url=None, page_uri="worth-it.md", remeasures=changes.get("remeasures", data.remeasures),
                              history=changes.get("history", data.history), cpu_name=data.cpu_names)


def test_the_op_count_sweep_row_is_the_op_count_pages_own_fit(committed):
    op_chain = committed.results["cpu"]["op_chain"]
    found = per_cpu.call_costs(per_cpu.SOURCES[0], op_chain)
    assert found.break_even == sweeps.op_costs(op_chain).break_even
    rendered = directives.render("call_costs_by_cpu", [], context(committed))
    assert text(derived(op_chain, "break_even_ops")) in rendered
    assert text(derived(op_chain, "graph_call_cost")) in rendered


def test_a_two_point_line_crosses_where_the_two_modes_cost_the_same(committed):
    releases = committed.results["cpu"]["releases"]
    source = next(source for source in per_cpu.SOURCES if source.example == "releases")
    found = per_cpu.call_costs(source, releases)

    def time(case):
        return releases.case(case).measurement.per_call_s

    # Two points per mode fit exactly: the crossing is where the two straight lines meet.
    (n0, e0), (n1, e1) = [(n, time(case)) for n, case in source.eager]
    (_, g0), (_, g1) = [(n, time(case)) for n, case in source.graph]
    eager_slope, graph_slope = (e1 - e0) / (n1 - n0), (g1 - g0) / (n1 - n0)
    crossing = ((g0 - graph_slope * n0) - (e0 - eager_slope * n0)) / (eager_slope - graph_slope)
    assert found.break_even.value == pytest.approx(crossing, rel=1e-6)
    assert found.break_even.low <= found.break_even.value <= found.break_even.high
    assert found.graph_call.value == pytest.approx(g0 - graph_slope * n0, rel=1e-6)


def test_one_eager_point_draws_eager_s_line_through_zero(committed):
    settings = committed.results["cpu"]["cpu_settings"]
    source = next(source for source in per_cpu.SOURCES if source.example == "cpu_settings")
    found = per_cpu.call_costs(source, settings)
    (ops, case), = source.eager
    assert found.eager_per_op.value == pytest.approx(settings.case(case).measurement.per_call_s / ops)


def test_the_break_even_and_call_cost_are_given_per_cpu_model(committed):
    costs = per_cpu.all_call_costs(committed.results["cpu"])
    models = per_cpu.cpu_models([found.results for found in costs])
    assert models == len(costs) >= 2  # each source on a CPU model of its own, as committed
    rendered = directives.render("break_even_across_cpus", [], context(committed))
    assert rendered.endswith(f"ops per call on {models} CPU models") and " to " in rendered
    assert directives.render("call_cost_across_cpus", [], context(committed)).endswith(f"on {models} CPU models")


def test_a_run_that_left_a_case_out_skips_that_source(committed):
    results = dict(committed.results["cpu"])
    settings = results["cpu_settings"]
    results["cpu_settings"] = replace(settings, cases=tuple(case for case in settings.cases
                                                             if case.label != "default · one-op tf.function"))
    assert "cpu_settings" not in [found.source.example for found in per_cpu.all_call_costs(results)]


def test_by_cpu_has_one_row_per_cpu_model_sorted_by_the_speed_up(committed):
    small_ops = committed.results["cpu"]["small_ops"]
    files = shared_workloads.files_by_cpu(small_ops, [found["small_ops"] for found in
                                            committed.remeasures["cpu"].values() if "small_ops" in found])
    rendered = directives.render("by_cpu", ["small_ops", "eager", "tf.function=graph"], context(committed))
    rows = [line for line in rendered.splitlines() if line.startswith("| ") and not line.startswith("| ---")][1:]
    assert len(rows) == len(files) >= 2
    assert sum("the guide's run" in row for row in rows) == 1
    assert "tf.function vs eager \\[95%\\]" in rendered
    assert text(directives.render("factor", ["small_ops", "eager", "graph"], context(committed))) in rendered
    # The factor, the answer's figure, right after the CPU model (at 390 px the first screen of the
    # table showed only the model, its instruction sets, the date and the run); those come last.
    header = [cell.strip() for cell in rendered.splitlines()[0].strip("|").split("|")]
    assert header[:2] == ["CPU model", "tf.function vs eager \\[95%\\]"]
    assert header[-2:] == ["Instruction sets", "Run, measured (UTC)"]
    values = [float(row.split("|")[2].strip().split("×")[0]) for row in rows]
    assert values == sorted(values)


def test_the_call_costs_table_puts_the_break_even_first_and_says_how_each_line_was_fitted(committed):
    rendered = directives.render("call_costs_by_cpu", [], context(committed))
    header = [cell.strip() for cell in rendered.splitlines()[0].strip("|").split("|")]
    assert header[:2] == ["CPU model", "Break-even, ops per call \\[95%\\]"]
    assert header[-2:] == ["Instruction sets", "Measured (UTC)"]
    # A line fitted to many points and one through two never read alike (they did: "fitted to chains
    # of 1 to 1,000 ops" beside "chains of 1 and 1,000 ops").
    lengths = len({case.params["n_ops"] for case in committed.results["cpu"]["op_chain"].cases})
    assert f"a line fitted to {lengths} chain lengths, 1 to 1,000" in rendered
    assert "a line through 2 chain lengths, 1 and 1,000" in rendered
    assert "a line through a one-op call and the 150-op loop" in rendered


def test_a_cpu_model_has_one_name_in_the_per_cpu_and_the_shared_workloads_tables(committed):
    """A re-measure that recorded no family reads as the committed file of its CPU model does (the
    reviewers met "AMD EPYC" in one table and "AMD EPYC 26/2" for the same model in the next)."""
    names = {}
    for table in ([directives.render("by_cpu", ["small_ops", "eager", "tf.function=graph"], context(committed)),
                   directives.render("by_cpu", ["predict_ladder", "CNN · predict · 1", "CNN · tf.function · 1"],
                                     context(committed)),
                   directives.render("shared_workloads", [], context(committed))]):
        rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ") and "---" not in line]
        names[table] = {cell.strip("| ").replace("\\_", "_").rsplit(", 20", 1)[0] for row in rows for cell in row
                        if "AMD EPYC" in cell
                        or "Xeon" in cell}
    found = set().union(*names.values())
    family_less = [sitting["small_ops"].environment for sitting in committed.remeasures["cpu"].values()
                   if "small_ops" in sitting and sitting["small_ops"].environment.get("cpu_flags")
                   and sitting["small_ops"].environment.get("cpu_family") is None]
    assert family_less, "the committed tree holds a re-measure without its family"
    assert "AMD EPYC" not in found  # never the bare model name where the model is known
    assert {"AMD EPYC 26/2", "AMD EPYC 25/17"} <= found
    assert all(name in found for name in map(committed.cpu_names, family_less))


def test_the_first_sentence_says_no_figure_comes_from_a_gpu(committed):
    rendered = directives.render("measured_summary", [], context(committed))
    assert rendered.startswith("**Every figure was measured on a CPU, none on a GPU.**")
    assert "CPU models" in rendered and "TensorFlow 2." in rendered
    gpu = {**committed.results, "gpu": {"small_ops": committed.results["cpu"]["small_ops"]}}
    assert "none on a GPU" not in directives.render("measured_summary", [], context(committed, results=gpu))


def test_the_home_page_states_it_above_the_question_list():
    home = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    assert home.index("{{ measured_summary }}") < home.index("tf1-vs-tf2.md")


def test_the_xla_table_says_each_verdict_once_and_names_the_cpu_where_its_rows_mix_models(committed):
    """The "XLA vs graph" cell holds the verdict in the four wordings; no column repeats it in a fifth
    ("XLA faster"). Its examples ran on two CPU models: a column names each row's, clear rows first."""
    from tfspeedlab.core.wording import Verdict, verdict
    from tfspeedlab.xla.pairs import xla_pairs
    from tfspeedlab.site import tables

    rendered = directives.render("xla_summary", [], context(committed))
    header = rendered.splitlines()[0]
    assert "Verdict" not in header and "XLA faster" not in rendered and "XLA slower" not in rendered
    assert header.startswith("| Example | Case | CPU model | XLA vs graph \\[95%\\] |")
    rows = [line for line in rendered.splitlines() if line.startswith("| ") and "---" not in line][1:]
    names = {row.split(" | ")[2] for row in rows}
    assert len(names) >= 2 and all(name.startswith("AMD EPYC ") and "/" in name for name in names)
    with_xla = [(found, pairs) for found in committed.results["cpu"].values() if (pairs := xla_pairs(found))]
    order = [verdict(pair.speedup) for _, pairs in with_xla for pair in pairs]
    assert len(rows) == len(order)
    clear = sum(found.clear for found in order)
    assert clear and all(Verdict.INCONCLUSIVE.value not in row and "the same within" not in row for row in rows[:clear])
    assert all(Verdict.FASTER.value not in row.split(" | ")[3] or "inconclusive" in row for row in rows[clear:])
    # One CPU model: no column, a line under the table names it.
    one_model = [(found, pairs) for found, pairs in with_xla
                 if found.environment.get("cpu_family") == with_xla[0][0].environment.get("cpu_family")
                 and found.environment.get("cpu_model_number") == with_xla[0][0].environment.get("cpu_model_number")]
    single = tables.xla_summary_table(one_model, committed.cpu_names)
    assert "CPU model" not in single.splitlines()[0]
    assert single.rstrip().endswith(f"Every row was measured on {committed.cpu_names(one_model[0][0].environment)}.")
