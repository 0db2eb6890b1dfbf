"""Generated figures read as a person would write them: factors, units, links at the measured version."""

from dataclasses import replace

import pytest

from conftest import synthetic_results
from test_directives import context
from tfspeedlab.analysis import summary, wording
from tfspeedlab.analysis.intervals import Ratio
from tfspeedlab.measure.measurement import Measurement
from tfspeedlab.results.schema import CaseResult
from tfspeedlab.site import directives


@pytest.mark.parametrize("found, expected", [
    (Ratio(10.8, 9.78, 12.0), "10.8×\u00a0faster [9.78–12.0×]"),
    # An interval that holds 1: no word but "no clear difference", and both ways from 1 as factors ≥ 1.
    (Ratio(0.9, 0.8, 1.1), "no clear difference (1.25× slower to 1.10× faster)"),
    (Ratio(0.25, 0.2, 0.3), "4.00×\u00a0slower [3.33–5.00×]"),
    # Far below 1, with the whole interval below 1: the slow-down it is.
    (Ratio(1 / 32.3, 1 / 37.0, 1 / 28.6), "32.3×\u00a0slower [28.6–37.0×]"),
    # An interval that holds 1 and spans more than 4× end to end says nothing usable: not measurable.
    (Ratio(0.05, 0.01, 1.2), "not measurable here (100× slower to 1.20× faster)"),
    (Ratio(1.0, 0.5, 1.9), "no clear difference (2.00× slower to 1.90× faster)"),
])
def test_a_comparison_reads_n_times_faster_or_slower_or_no_clear_difference(found, expected):
    assert wording.format_speedup(found) == expected


def test_no_ratio_below_one_is_ever_written():
    """One convention everywhere: every factor a comparison phrase writes is at least 1."""
    import re

    for low, high in ((0.2, 0.3), (0.8, 1.1), (1.02, 1.05), (3.0, 9.0), (0.001, 0.002)):
        found = Ratio((low * high) ** 0.5, low, high)
        for phrase in (wording.format_speedup(found), wording.format_change(found), wording.agreement(found),
                       wording.format_time_ratio(found), wording.bare(found), wording.format_case_difference(found)):
            factors = [float(value.replace(",", "")) for value in re.findall(r"([\d.,]+)×", phrase)]
            assert all(factor >= 1 for factor in factors), phrase


def test_one_process_gets_no_verdict_on_a_page():
    assert wording.page_speedup(Ratio(3.0, 2.5, 3.5, processes=1)) == "one process: no verdict"
    assert wording.page_speedup(Ratio(3.0, 2.5, 3.5, processes=3)).startswith("3.00×\u00a0faster")


def test_an_unclear_grid_cell_says_how_far_a_re_measure_may_move_it():
    """No separate noise mark: where the interval holds 1, the cell's own words carry its reach."""
    # The time lies between 0.9 and 1.2 times the reference's: up to 1.20× slower, up to 1.11× faster.
    assert wording.format_time_ratio(Ratio(1.05, 0.9, 1.2)) == "no clear difference (1.20× slower to 1.11× faster)"
    assert wording.format_time_ratio(Ratio(2.0, 1.5, 2.5)) == "2.00×\u00a0slower [1.50–2.50×]"  # and its interval


def test_a_time_ratio_far_below_one_reads_as_times_faster():
    assert wording.format_time_ratio(Ratio(1 / 540, 1 / 600, 1 / 500)) == "540×\u00a0faster [500–600×]"
    assert wording.format_time_ratio(Ratio(1.08, 0.99, 1.2)).startswith("no clear difference (")  # the interval holds 1
    assert wording.format_time_ratio(Ratio(0.343, 0.33, 0.35)) == "2.92×\u00a0faster [2.86–3.03×]"
    assert wording.format_time_ratio(Ratio(1.5, 1.4, 1.6)) == "1.50×\u00a0slower [1.40–1.60×]"


def test_every_phrase_of_a_too_wide_interval_reads_not_measurable():
    """One rule for every table, label and sentence: past 4× end to end, no "no clear difference"."""
    wide = Ratio(0.2, 0.0444, 1.30)  # 22.5× slower to 1.30× faster
    assert wording.compared_with(wide) == "not measurably different from"
    assert wording.speedup_figures(wide) == "22.5× slower to 1.30× faster"  # the verdict is the sentence's
    for phrase in (wording.format_speedup(wide), wording.bare(wide)):
        assert phrase.startswith("not measurable here"), phrase
        assert "22.5× slower to 1.30× faster" in phrase, phrase
    for phrase in (wording.format_change(wide), wording.agreement(wide), wording.format_time_ratio(wide),
                   wording.format_case_difference(wide), wording.time_ratio_word(wide)):
        assert phrase.startswith("not measurable here"), phrase
    assert not wording.is_clear(wording.time_ratio_word(wide))
    narrow = Ratio(1.0, 0.6, 1.5)
    assert wording.format_change(narrow).startswith("no clear change (")
    assert wording.format_case_difference(narrow).startswith("not clearly different (")


def test_a_difference_whose_interval_holds_zero_is_not_measurable():
    from tfspeedlab.analysis.intervals import Estimate

    assert wording.time_with_interval(Estimate(-7.1e-7, -2e-6, 5e-7)) == "not measurable here"
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
    from tfspeedlab.analysis import intervals

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


def test_a_release_change_whose_near_end_is_close_to_one_is_marked_provisional():
    """Between releases, a verdict whose interval's near end (as printed) is below 1.10× reads provisionally."""
    assert wording.format_release_change(Ratio(1.27, 1.06, 1.52)) == "provisionally 1.27×\u00a0slower [1.06–1.52×]"
    faster = wording.format_release_change(Ratio(1 / 1.3, 1 / 1.6, 1 / 1.09))
    assert faster.startswith("provisionally ") and faster.endswith("faster [1.09–1.60×]")
    # 1.096 prints as 1.10: what the reader sees decides, so it is not marked.
    assert not wording.format_release_change(Ratio(1.4, 1.096, 1.7)).startswith("provisionally")
    assert wording.format_release_change(Ratio(2.23, 1.85, 2.66)) == wording.format_change(Ratio(2.23, 1.85, 2.66))
    unclear = Ratio(1.0, 0.95, 1.05)
    assert wording.format_release_change(unclear) == wording.format_change(unclear)
