"""Generated figures read as a person would write them: factors, units, links at the measured version."""

from dataclasses import replace

import pytest

from conftest import synthetic_results
from test_directives import context
from tfspeedlab.core import wording
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.stats import summary
from tfspeedlab.core.stats.intervals import Ratio
from tfspeedlab.site import directives


@pytest.mark.parametrize("found, expected", [
    (Ratio(10.8, 9.78, 12.0), "10.8×\u00a0faster [9.78–12.0×]"),
    (Ratio(0.25, 0.2, 0.3), "4.00×\u00a0slower [3.33–5.00×]"),
    # Far below 1, with the whole interval below 1: the slow-down it is.
    (Ratio(1 / 32.3, 1 / 37.0, 1 / 28.6), "32.3×\u00a0slower [28.6–37.0×]"),
    # An interval that holds 1 and reaches at most 20% from it, as a factor either way: the same, within
    # what the machine resolved, rounded up (0.97 is 1.031× slower: 4%).
    (Ratio(1.0, 0.98, 1.02), "the same within 3%"),
    (Ratio(1.0, 0.97, 1.02), "the same within 4%"),
    (Ratio(1.01, 0.91, 1.0999), "the same within 10%"),
    (Ratio(1.0, 0.85, 1.18), "the same within 18%"),
    (Ratio(1.0, 0.999, 1.001), "the same within 1%"),
    # Any other interval that holds 1: inconclusive, both ways from 1 as factors ≥ 1.
    (Ratio(0.9, 0.8, 1.1), "inconclusive here (1.25×\u00a0slower to 1.10×\u00a0faster)"),
    (Ratio(0.05, 0.01, 1.2), "inconclusive here (100×\u00a0slower to 1.20×\u00a0faster)"),
    (Ratio(1.0, 0.95, 1.21), "inconclusive here (1.05×\u00a0slower to 1.21×\u00a0faster)"),
])
def test_a_comparison_reads_in_one_of_the_four_verdicts(found, expected):
    assert wording.format_speedup(found) == expected


@pytest.mark.parametrize("low, high, verdict", [
    (1.01, 1.5, wording.Verdict.FASTER), (0.5, 0.99, wording.Verdict.SLOWER),
    (0.95, 1.05, wording.Verdict.SAME), (1 / 1.2, 1.2, wording.Verdict.SAME),
    (0.79, 1.05, wording.Verdict.INCONCLUSIVE), (0.95, 1.207, wording.Verdict.INCONCLUSIVE),
    # Decided on the ends as a page prints them: 1.201× prints 1.20×, within 20%.
    (0.95, 1.201, wording.Verdict.SAME)])
def test_the_verdict_follows_the_whole_interval(low, high, verdict):
    assert wording.verdict(Ratio(1.0 if low < 1 < high else (low * high) ** 0.5, low, high)) is verdict


@pytest.mark.parametrize("low, high", [(1 / 1.1704, 1.2004), (1 / 1.2004, 1.1704), (1 / 1.2049, 1.01),
                                       (1 / 1.17, 1.2051), (0.8, 1.1), (1 / 1.1996, 1.1996)])
def test_a_verdict_agrees_with_the_figures_it_prints(low, high):
    """cpu-settings printed "inconclusive here (1.17× slower to 1.20× faster)" beside "the same within 20%":
    the verdict was decided on unrounded ends. Now "the same within X%" stands exactly where the ends,
    as the inconclusive phrase would print them, lie within 1.20× either way, and X never exceeds 20."""
    from tfspeedlab.core.units import format_factor

    phrase = wording.format_speedup(Ratio(1.0, low, high, processes=3))
    # The two ends as "inconclusive here (a× slower to b× faster)" prints them.
    printed = max(float(format_factor(1 / low)), float(format_factor(high)))
    if printed <= 1 + wording.SAME_WITHIN:
        assert phrase.startswith("the same within "), phrase
        assert int(phrase.rsplit(" ", 1)[1].rstrip("%")) <= round(wording.SAME_WITHIN * 100), phrase
    else:
        assert phrase == (f"inconclusive here ({format_factor(1 / low)}×\u00a0slower to "
                          f"{format_factor(high)}×\u00a0faster)")


def test_the_rounding_boundary_reads_as_its_printed_ends():
    assert wording.format_speedup(Ratio(1.0, 1 / 1.1704, 1.2004, processes=3)) == "the same within 20%"
    assert wording.format_change(Ratio(1.0, 1 / 1.2004, 1.1704, processes=3)) == "the same within 20%"
    assert wording.format_speedup(Ratio(1.0, 1 / 1.17, 1.2051, processes=3)) == \
        "inconclusive here (1.17×\u00a0slower to 1.21×\u00a0faster)"


def test_a_time_against_a_reference_reads_in_the_same_four_verdicts_turned():
    """time ÷ reference below 1 is faster: the same phrases, from the other side."""
    assert wording.format_change(Ratio(1 / 540, 1 / 600, 1 / 500)) == "540×\u00a0faster [500–600×]"
    assert wording.format_change(Ratio(1.5, 1.4, 1.6)) == "1.50×\u00a0slower [1.40–1.60×]"
    assert wording.format_change(Ratio(1.0, 0.98, 1.04)) == "the same within 4%"
    assert wording.format_change(Ratio(1.05, 0.8, 1.3)) == "inconclusive here (1.30×\u00a0slower to 1.25×\u00a0faster)"
    assert wording.time_ratio_word(Ratio(1.5, 1.4, 1.6)) == "1.50×\u00a0slower"


def test_no_ratio_below_one_is_ever_written():
    """One convention everywhere: every factor a comparison phrase writes is at least 1."""
    import re

    for low, high in ((0.2, 0.3), (0.8, 1.1), (1.02, 1.05), (3.0, 9.0), (0.001, 0.002), (0.97, 1.02)):
        found = Ratio((low * high) ** 0.5, low, high)
        for phrase in (wording.format_speedup(found), wording.format_change(found), wording.time_ratio_word(found),
                       wording.speedup_cell(found), wording.change_cell(found)):
            factors = [float(value.replace(",", "")) for value in re.findall(r"([\d.,]+)×", phrase)]
            assert all(factor >= 1 for factor in factors), phrase


def test_one_process_gets_no_verdict_and_a_table_says_so_once():
    from tfspeedlab.render.markdown import table

    alone = Ratio(3.0, 2.5, 3.5, processes=1)
    assert wording.page_speedup(alone) == "one process: times only"
    assert wording.page_verdict(alone) is None
    assert wording.page_speedup(Ratio(3.0, 2.5, 3.5, processes=3)).startswith("3.00×\u00a0faster")
    rendered = table(["Case", "Speed-up"], [["a", wording.speedup_cell(alone)], ["b", wording.speedup_cell(alone)]])
    assert rendered.count(wording.NO_VERDICT_CELL) == 2 and rendered.count(wording.ONE_PROCESS_NOTE) == 1
    assert wording.ONE_PROCESS_NOTE not in table(["Case"], [["—"]])  # a dash for a case not run is no such cell


def test_a_chart_label_says_the_tables_verdict_in_fewer_words():
    assert wording.time_ratio_word(Ratio(0.343, 0.33, 0.35)) == "2.92×\u00a0faster"
    assert wording.time_ratio_word(Ratio(1.0, 0.98, 1.02)) == "the same within 3%"
    assert wording.time_ratio_word(Ratio(1.0, 0.5, 1.9)) == "inconclusive here"
    assert wording.time_ratio_word(Ratio(1.0, 0.5, 1.9, processes=1)) == wording.ONE_PROCESS


def test_a_cost_whose_interval_holds_zero_is_too_small_to_measure():
    from tfspeedlab.core.stats.intervals import Estimate

    assert wording.time_with_interval(Estimate(-7.1e-7, -2e-6, 5e-7)) == "too small to measure here"
    assert wording.time_with_interval(Estimate(3.53e-4, 3.3e-4, 3.8e-4)).replace("\u00a0", " ") == "353 µs [330–380 µs]"


def test_each_median_is_in_its_own_unit():
    """One unit per column printed "156864 µs"; every time is now scaled on its own."""
    results = synthetic_results()
    slow = CaseResult("slow", {}, Measurement((0.156864, 0.157, 0.1565), 1, 0.2, "test"))
    rows = summary.rows(replace(results, cases=(*results.cases, slow)))
    medians = {row.case: row.per_call for row in rows}
    assert medians["slow"].startswith("157") and medians["slow"].endswith("ms")
    assert all(len(median.split("\u00a0")[0].split()[0].replace(".", "")) <= 4 for median in medians.values())


def test_metric_time_formats_a_metric_in_seconds(tmp_path):
    results = synthetic_results()
    timed = replace(results, cases=(replace(results.cases[0], metrics={"function_run_s": 4.12e-4}),
                                    *results.cases[1:]))
    rendered = directives.render("metric_time", ["demo", results.cases[0].label, "function_run_s"],
                                 context(tmp_path, timed))
    assert rendered.replace("\u00a0", " ") == "412 µs"


def test_source_links_point_at_the_measured_versions(tmp_path):
    older = synthetic_results(example="old")
    older = replace(older, environment={**older.environment, "tensorflow": "2.9.1", "keras": "3.9.0"})
    newer = synthetic_results(example="new")
    newer = replace(newer, environment={**newer.environment, "tensorflow": "2.21.0", "keras": "3.15.1"})
    found = context(tmp_path, older, newer)
    # Versions compare as numbers: 3.15.1 is newer than 3.9.0, 2.21.0 than 2.9.1.
    assert directives.render("keras_source", ["keras/src/trainers/trainer.py"], found) == \
        "https://github.com/keras-team/keras/blob/v3.15.1/keras/src/trainers/trainer.py"
    assert directives.render("tf_source", ["tensorflow/core/BUILD"], found) == \
        "https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/BUILD"


def test_a_comparison_asked_either_way_round_gives_one_answer():
    """A verdict (speed-up one way) and an interval (the other way) must never disagree."""
    from tfspeedlab.core.stats import intervals

    results = synthetic_results()
    forward = intervals.ratio(results.case("eager"), results.case("graph"))
    backward = intervals.ratio(results.case("graph"), results.case("eager"))
    assert backward.value == pytest.approx(1 / forward.value)
    assert (backward.low, backward.high) == pytest.approx((1 / forward.high, 1 / forward.low))


def test_factor_reads_a_speedup_or_a_slowdown_with_its_interval(tmp_path):
    from test_directives import runs_results

    results = replace(runs_results(eager=10e-3, graph=1e-3), example="demo")
    found = context(tmp_path, results)
    faster = directives.render("factor", ["demo", "eager", "graph"], found)
    slower = directives.render("factor", ["demo", "graph", "eager"], found)
    assert faster.startswith(tuple("0123456789")) and "\u00a0faster [" in faster and faster.endswith("×]")
    assert "\u00a0slower [" in slower


def test_a_training_case_that_moved_no_weight_gets_no_speed_up_while_its_baseline_trained():
    results = synthetic_results()
    trained, untrained = results.cases
    results = replace(results, cases=(replace(trained, metrics={"weight_change": 0.01}),
                                      replace(untrained, metrics={"weight_change": 0.0})))
    assert summary.rows(results)[1].speedup == wording.DID_NOT_TRAIN
    # Where no case reports its weights, the table says what it says of any case.
    assert summary.rows(synthetic_results())[1].speedup != wording.DID_NOT_TRAIN


def test_a_speed_up_reads_as_the_percentage_faster_of_the_factor_a_page_prints():
    # 2.0849× prints 2.08×, so 108%, not 108.49 rounded from the unprinted value in another way.
    assert wording.percent_faster(2.0849) == "108%"
    assert wording.percent_faster(2.47) == "147%"
    assert wording.percent_faster(1.0) == "0%"
    # Past 10× a page prints three figures: 12.34× prints 12.3×, so 1,130%.
    assert wording.percent_faster(12.34) == "1,130%"
    with pytest.raises(ValueError):
        wording.percent_faster(0.9)


def test_percent_faster_says_faster_only_where_the_interval_does(tmp_path):
    from test_directives import runs_results

    results = replace(runs_results(eager=10e-3, graph=1e-3), example="demo")
    found = context(tmp_path, results)
    from tfspeedlab.core.stats import intervals
    from tfspeedlab.core.units import format_ratio

    speedup = format_ratio(intervals.speedup(results, "eager", "graph").value)  # as `factor` prints it
    percent = directives.render("percent_faster", ["demo", "eager", "graph"], found)
    assert percent == f"{round((float(speedup.rstrip('×').replace(',', '')) - 1) * 100):,}%"
    with pytest.raises(directives.DirectiveError):
        directives.render("percent_faster", ["demo", "graph", "eager"], found)
