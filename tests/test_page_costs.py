"""The figures the worth-it, XLA, where-the-time-goes and fair-timing pages state beyond the tables:
XLA's added first call and the calls that repay it, a speed-up's span over CPU models short enough
for an answer box, a CPU model's short name, and how the guide's intervals held up for a few
examples and for times. Each is checked against the committed results, computed another way."""

import math
from pathlib import Path

import pytest

from tfspeedlab.core import wording
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.intervals import Estimate, Ratio
from tfspeedlab.core.units import format_time
from tfspeedlab.costmodel import per_cpu
from tfspeedlab.fairness import coverage, drift
from tfspeedlab.render import shared_workloads
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.site import directives, site_data
from tfspeedlab.xla import pairs

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def committed():
    return site_data.load(REPO / "results")


def render(data, name, *args):
    context = directives.Context(results=data.results, results_root=REPO / "results", repo_url=None,
                                 page_uri="pairs.md", remeasures=data.remeasures,
                                 remeasures_shown=data.remeasures_shown)
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


def _pair(speedup: Ratio, graph_s=300e-6, xla_s=100e-6, graph_first=0.1, xla_first=0.4) -> pairs.XlaPair:
    return pairs.XlaPair("—", graph_s, xla_s, graph_first, xla_first, speedup)


def test_a_clear_win_repays_the_compile_after_the_added_time_over_the_saving():
    found = _pair(Ratio(3.0, 2.5, 3.5, processes=3))
    assert pairs.compile_added_s(found) == pytest.approx(0.3)
    assert pairs.payback_calls(found) == pytest.approx(0.3 / 200e-6)


def test_no_saving_never_repays_and_a_first_call_no_slower_repays_at_once():
    assert math.isinf(pairs.payback_calls(_pair(Ratio(1.0, 0.9, 1.1, processes=3), xla_s=300e-6)))
    assert pairs.payback_calls(_pair(Ratio(3.0, 2.5, 3.5, processes=3), xla_first=0.05)) == 0.0


@pytest.mark.parametrize("pair, opening", [
    ("elements 1000000", "repays itself after about "),
    ("elements 100", "may never repay itself: per call, XLA was "),
])
def test_the_payback_reads_as_its_verdict_says(committed, pair, opening):
    found = pairs.pair_named(committed.results["cpu"]["elementwise_size"], pair)
    phrase = render(committed, "xla_payback", "elementwise_size", pair)
    assert phrase.startswith(opening)
    if wording.verdict(found.speedup) is wording.Verdict.FASTER:
        calls = int(phrase.removeprefix(opening).split()[0].replace(",", ""))
        assert calls == pytest.approx(pairs.payback_calls(found), rel=0.01)
    else:
        assert phrase.endswith(wording.page_speedup(found.speedup))


def test_a_clear_loss_never_repays(committed):
    phrase = render(committed, "xla_payback", "tf1_vs_tf2", "small: tf.function step + XLA vs tf.function step")
    assert phrase.startswith("never repays itself: per call, XLA was ") and "slower" in phrase


def test_the_first_call_range_is_the_fastest_and_slowest_process(committed):
    calls = sorted(run.first_call_s for run in committed.results["cpu"]["small_ops"].case("xla").runs)
    assert render(committed, "first_call_range", "small_ops", "xla") == \
        f"{format_time(calls[0])} to {format_time(calls[-1])} over {len(calls)} processes"


def test_the_xla_caption_names_every_cpu_model_behind_the_table(committed):
    caption = render(committed, "xla_cpus")
    names = {per_cpu.cpu_name(found.environment) for found in committed.results["cpu"].values()
             if pairs.xla_pairs(found)}
    assert all(name in caption for name in names)


# ------------------------------------------------------------ a span over CPU models


def test_the_span_keeps_across_cpus_phrase_where_the_models_agree(committed):
    args = ("tf1_vs_tf2", "small · tf.function step", "small · tf.function step + XLA")
    assert render(committed, "across_cpus_span", *args) == render(committed, "across_cpus", *args)


def test_the_span_gives_both_ends_where_the_models_differ(committed):
    small_ops = committed.results["cpu"]["small_ops"]
    sittings = [sitting["small_ops"] for sitting in committed.remeasures_shown["cpu"].values() if "small_ops" in sitting]
    found = shared_workloads.across_cpus(small_ops, sittings, "graph", "xla")
    verdicts = {wording.verdict(ratio) for _, ratio in found}
    phrase = render(committed, "across_cpus_span", "small_ops", "graph", "xla")
    if len(verdicts) == 1:
        pytest.skip("the committed CPU models agree on XLA's small-ops verdict")
    best = max(ratio.value for _, ratio in found)
    assert phrase.endswith(f"on {len(found)} CPU models")
    assert wording.speedup_by_value(best) in phrase
    # No interval-shaped text that a tooltip would read as a 95% interval of one comparison.
    assert "[" not in phrase and "(" not in phrase


def test_the_cpu_name_is_the_per_cpu_tables(committed):
    assert render(committed, "cpu_name", "op_chain") == per_cpu.cpu_name(committed.results["cpu"]["op_chain"].environment)


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


def test_the_drift_floor_is_the_narrowest_same_within_the_drift_allows(committed):
    floor = int(render(committed, "drift_floor").rstrip("%"))
    drifts = drift.for_runner(committed.results["cpu"], committed.remeasures["cpu"])
    smallest = min(drifts.values(), key=lambda found: found.quantile * found.log_sd)
    # An interval of no width of its own, widened by that drift, reads "the same within" the floor.
    low, high = intervals.widened(1.0, 1.0, 1.0, smallest.log_sd, smallest.quantile)
    assert wording.same_within_percent(low, high) == floor


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
