"""The figures the worth-it, XLA, where-the-time-goes and fair-timing pages state beyond the tables:
XLA's added first call and the calls that repay it, a speed-up's span over CPU models short enough
for an answer box, a CPU model's short name, and how the guide's intervals held up for a few
examples and for times. Each is checked against the committed results, computed another way."""

import math
from pathlib import Path

import pytest

from tfspeedlab.core import wording
from tfspeedlab.core.results.cpu import cpu_name
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.intervals import Estimate, Ratio
from tfspeedlab.core.units import format_time
from tfspeedlab.costmodel import per_cpu
from tfspeedlab.fairness import coverage, drift
from tfspeedlab.render import shared_workloads
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.site import directives, site_data
from tfspeedlab.xla import pairs as xla

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def committed():
    return site_data.load(REPO / "results")


def render(data, name, *args):
    context = directives.Context(results=data.results, results_root=REPO / "results", repo_url=None,
                                 page_uri="xla.md", remeasures=data.remeasures,
                                 remeasures_shown=data.remeasures_shown, cpu_name=data.cpu_names,
                                 models=data.models)
    return directives.render(name, list(args), context)


# ------------------------------------------------------------ XLA's compile and its payback


def test_the_compile_is_xla_s_first_call_less_the_graph_s_as_the_table_shows_them(committed):
    small_ops = committed.results["cpu"]["small_ops"]
    graph, compiled = small_ops.case("graph").measurement, small_ops.case("xla").measurement
    added = compiled.first_call_s - graph.first_call_s
    assert render(committed, "xla_compile", "small_ops") == format_time(added)


def test_a_file_of_several_pairs_needs_the_pair_named(committed):
    with pytest.raises(DirectiveError, match="elements 1000000"):
        render(committed, "xla_compile", "elementwise_size")
    assert render(committed, "xla_compile", "elementwise_size", "elements 1000000")


def _pair(speedup: Ratio, graph_s=300e-6, xla_s=100e-6, graph_first=0.1, xla_first=0.4) -> xla.XlaPair:
    return xla.XlaPair("—", graph_s, xla_s, graph_first, xla_first, speedup)


def test_a_clear_win_repays_the_compile_after_the_added_time_over_the_saving():
    found = _pair(Ratio(3.0, 2.5, 3.5, processes=3))
    assert xla.compile_added_s(found) == pytest.approx(0.3)
    assert xla.payback_calls(found) == pytest.approx(0.3 / 200e-6)


def test_no_saving_never_repays_and_a_first_call_no_slower_repays_at_once():
    assert math.isinf(xla.payback_calls(_pair(Ratio(1.0, 0.9, 1.1, processes=3), xla_s=300e-6)))
    assert xla.payback_calls(_pair(Ratio(3.0, 2.5, 3.5, processes=3), xla_first=0.05)) == 0.0


@pytest.mark.parametrize("pair, opening", [
    ("elements 1000000", "repays itself after about "),
    ("elements 100", "may never repay itself: per call, XLA was "),
])
def test_the_payback_reads_as_its_verdict_says(committed, pair, opening):
    found = xla.pair_named(committed.results["cpu"]["elementwise_size"], pair)
    phrase = render(committed, "xla_payback", "elementwise_size", pair)
    assert phrase.startswith(opening)
    if wording.verdict(found.speedup) is wording.Verdict.FASTER:
        calls = int(phrase.removeprefix(opening).split()[0].replace(",", ""))
        assert calls == pytest.approx(xla.payback_calls(found), rel=0.01)
    else:
        assert phrase.endswith(wording.page_speedup(found.speedup))


def test_the_payback_across_cpu_models_comes_from_the_per_cpu_tables_files(committed):
    """xla gave 26/2's payback from time_breakdown's file, under a per-CPU table whose 26/2 row came
    from a small-ops re-measure: the two disagreed. The range now comes from the table's own files."""
    small_ops = committed.results["cpu"]["small_ops"]
    sittings = [sitting["small_ops"] for sitting in committed.remeasures_shown["cpu"].values() if "small_ops" in sitting]
    pairs = [xla.pair_named(found) for found in shared_workloads.files_by_cpu(small_ops, sittings)]
    calls = sorted(math.ceil(xla.payback_calls(pair)) for pair in pairs
                   if wording.verdict(pair.speedup) is wording.Verdict.FASTER)
    phrase = render(committed, "xla_payback_across_cpus", "small_ops")
    assert len(calls) >= 2
    low, high = (int(value.replace(",", "")) for value in phrase.removeprefix("after about ").split(" calls")[0]
                 .split(" to "))
    assert low == pytest.approx(calls[0], rel=0.01) and high == pytest.approx(calls[-1], rel=0.01)
    assert f"on the {len(calls)} CPU models" in phrase


def test_the_break_even_agreement_follows_the_line_fit_s_interval(committed):
    from tfspeedlab.core.stats import sweeps

    fitted = sweeps.op_costs(committed.results["cpu"]["op_chain"]).break_even
    modelled = committed.models["cpu"].break_even_ops(100)
    phrase = render(committed, "break_even_agreement")
    inside = fitted.low <= modelled <= fitted.high
    assert ("so the two agree" in phrase) is inside
    assert ("span between" in phrase) is not inside


def test_a_clear_loss_never_repays(committed):
    phrase = render(committed, "xla_payback", "tf1_vs_tf2", "small: tf.function step + XLA vs tf.function step")
    assert phrase.startswith("never repays itself: per call, XLA was ") and "slower" in phrase


def test_the_first_call_range_is_the_fastest_and_slowest_process(committed):
    calls = sorted(run.first_call_s for run in committed.results["cpu"]["small_ops"].case("xla").runs)
    assert render(committed, "first_call_range", "small_ops", "xla") == \
        f"{format_time(calls[0])} to {format_time(calls[-1])} over {len(calls)} processes"


def test_the_xla_caption_names_every_cpu_model_behind_the_table(committed):
    caption = render(committed, "xla_cpus")
    names = {cpu_name(found.environment) for found in committed.results["cpu"].values()
             if xla.xla_pairs(found)}
    assert all(name in caption for name in names)


# ------------------------------------------------------------ a span over CPU models


def test_the_span_keeps_across_cpus_phrase_where_the_models_agree(committed):
    args = ("tf1_vs_tf2", "small · tf.function step", "small · tf.function step + XLA")
    assert render(committed, "across_cpus_span", *args) == render(committed, "across_cpus", *args)


def test_the_span_words_each_group_of_models_in_its_own_verdict(committed):
    """xla's answer box printed "inconclusive here to 2.37× faster on 4 CPU models", no one of the four
    wordings. Now each part of the phrase is one verdict's words over the models that share it."""
    import re

    small_ops = committed.results["cpu"]["small_ops"]
    sittings = [sitting["small_ops"] for sitting in committed.remeasures_shown["cpu"].values() if "small_ops" in sitting]
    found = shared_workloads.across_cpus(small_ops, sittings, "graph", "xla")
    verdicts = {wording.verdict(ratio) for _, ratio in found}
    phrase = render(committed, "across_cpus_span", "small_ops", "graph", "xla")
    if len(verdicts) == 1:
        pytest.skip("the committed CPU models agree on XLA's small-ops verdict")
    parts = phrase.split("; ")
    assert len(parts) == len(verdicts)
    counted = 0
    for part in parts:
        assert re.match(r"(\d[\d.,]*× to \d[\d.,]*×\u00a0(faster|slower) on \d+ CPU models"
                        r"|\d[\d.,]*×\u00a0(faster|slower) \[.*\] on \S"
                        r"|the same within \d+% on \S|inconclusive here on \S)", part), part
        many = re.search(r" on (\d+) CPU models$", part)
        counted += int(many[1]) if many else 1
    assert counted == len(found)
    assert " here to " not in phrase
    best = max(ratio.value for _, ratio in found)
    assert wording.format_ratio(best) in phrase


def test_the_cpu_name_is_the_per_cpu_tables(committed):
    assert render(committed, "cpu_name", "op_chain") == cpu_name(committed.results["cpu"]["op_chain"].environment)


def test_the_fixed_call_cost_is_its_row_of_the_call_costs_table(committed):
    phrase = render(committed, "fixed_call_cost", "cpu_settings")
    assert phrase in render(committed, "call_costs_by_cpu").replace("\\[", "[").replace("\\]", "]")


# ------------------------------------------------------------ how the intervals held up


def test_a_subset_s_coverage_sums_its_rows_of_the_coverage_table(committed):
    landings = drift.held_out_landings(committed.results["cpu"], committed.remeasures["cpu"])
    rows = coverage.summarise({example: landings[example] for example in ("small_ops", "train_step")},
                              {"small_ops": 0, "train_step": 0})
    landed, total = sum(row.landed for row in rows), sum(row.total for row in rows)
    phrase = render(committed, "coverage_of", "small_ops", "train_step")
    assert phrase.startswith(f"{landed} of {total} inside their intervals, {landed / total:.0%}, ")
    short = landed / total < coverage.REQUIRED_INSIDE
    assert phrase.endswith(("short of" if short else "meeting") + f" the {coverage.REQUIRED_INSIDE:.0%} the guide aims for")


def test_coverage_of_takes_headline_examples_only(committed):
    with pytest.raises(DirectiveError, match="headline"):
        render(committed, "coverage_of", "op_chain")


def test_times_are_checked_against_their_one_sitting_bootstrap_interval(committed):
    results, sittings = committed.results["cpu"], committed.remeasures["cpu"]
    landed = total = 0
    for example, narrowed in coverage.HEADLINE.items():
        again = list(drift.remeasures_of(example, results[example], sittings).values())
        labels = {label for comparison in coverage.comparisons(results[example], narrowed)
                  for label in (comparison.slower, comparison.faster)}
        for label in labels:
            case = results[example].case(label)
            found = intervals.estimate_of(case.measurement.per_call_s, intervals.resampled_estimates(case))
            for other in again:
                if label in {one.label for one in other.cases}:
                    total += 1
                    landed += found.low <= other.case(label).measurement.per_call_s <= found.high
    assert render(committed, "time_coverage") == f"{landed} of {total}, {landed / total:.0%}"


def test_the_drift_floor_runs_from_the_example_that_drifts_least_to_the_one_that_drifts_most(committed):
    """fair-timing said "keeps X at 16% or more", true of small_ops alone: most pages take the pooled
    drift, whose floor is higher. The figure is now the range over every example's drift."""
    floors = render(committed, "drift_floor").split(" to ")
    drifts = drift.for_runner(committed.results["cpu"], committed.remeasures["cpu"])
    for floor, pick in zip(floors, (min, max)):
        chosen = pick(drifts.values(), key=lambda found: found.quantile * found.log_sd)
        # An interval of no width of its own, widened by that drift, reads "the same within" the floor.
        low, high = intervals.widened(1.0, 1.0, 1.0, chosen.log_sd, chosen.quantile)
        assert wording.same_within_percent(low, high) == int(floor.rstrip("%"))
    assert len(floors) == 2  # the committed examples' drifts differ


# ------------------------------------------------------------ a derived count's figures


@pytest.mark.parametrize("found, shown", [
    (Estimate(11.695, 11.48, 11.83), "11.7 [11.5–11.8]"),  # never 12 [11–12]
    (Estimate(9.4, 8.1, 11.0), "9.4 [8.1–11]"),
    (Estimate(4.99, 4.56, 5.48), "5.0 [4.6–5.5]"),
    (Estimate(10.15, 9.96, 10.3), "10.2 [9.96–10.3]"),
])
def test_a_count_gets_a_digit_more_where_two_of_its_figures_print_alike(found, shown):
    assert wording.number_with_interval(found) == shown


def test_the_break_even_range_prints_each_end_as_its_table_cell(committed):
    costs = per_cpu.all_call_costs(committed.results["cpu"])
    cells = [wording.number_with_interval(found.break_even).split(" [")[0] for found in costs]
    phrase = per_cpu.break_even_range(costs)
    ends = sorted(costs, key=lambda found: found.break_even.value)
    assert phrase.startswith(wording.number_with_interval(ends[0].break_even).split(" [")[0])
    assert all(cell in cells for cell in phrase.partition(" ops per call")[0].split(" to "))
