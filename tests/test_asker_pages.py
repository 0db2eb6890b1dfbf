"""What the 2019 asker's pages (TF1 vs TF2, releases, Measure on your machine, home) tell a reader
on Windows with an older GPU, and the figures and tables they need for it: the saving per step to
weigh a step against, the verdict over every CPU model, the WSL2 route, what staying on 2.10 means,
and tables whose answering column a phone shows.

The page checks read the Markdown sources (the directives they name are checked against the
committed results here); the last test reads the site as built."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

from tfspeedlab.core import wording
from tfspeedlab.core.results.history import load_history
from tfspeedlab.core.stats import intervals, summary
from tfspeedlab.core.stats.intervals import Ratio
from tfspeedlab.history import tables as history_tables, trends
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.markdown import Markdown
from tfspeedlab.site import directives, site_data
from tfspeedlab.site.interval_forms import find_intervals

DOCS = REPO / "docs"
TINY_TOB, TINY_TEN = "tiny · Keras 3 train_on_batch", "tiny · tf.function, 10 steps per call"


def page(name: str) -> str:
    return (DOCS / name).read_text()


def section(text: str, heading: str) -> str:
    """A page's text from ``heading`` to the next heading of the same level."""
    level = heading.split(" ", 1)[0]
    start = text.index(heading + "\n")
    found = re.search(rf"^{re.escape(level)} ", text[start + len(heading):], flags=re.MULTILINE)
    return text[start:start + len(heading) + found.start()] if found else text[start:]


def answer_box(text: str) -> str:
    start = text.index('!!! success "The answer"')
    lines = text[start:].splitlines()[1:]
    return "\n".join(line for line in lines[:next(i for i, line in enumerate(lines) if line and
                                                     not line.startswith("    "))])


@pytest.fixture(scope="module")
def committed():
    return site_data.load(REPO / "results")


def render(data, name, *args):
    context = directives.Context(results=data.results, results_root=REPO / "results", repo_url=None,
                                 page_uri="tf1-vs-tf2.md", remeasures=data.remeasures,
                                 remeasures_shown=data.remeasures_shown)
    return directives.render(name, list(args), context)


# ------------------------------------------------------------ a span over CPU models that all agree


def _named(*ratios: Ratio) -> list[tuple[str, Ratio]]:
    return [(f"CPU {index}", ratio) for index, ratio in enumerate(ratios)]


def test_every_model_inconclusive_reads_as_one_phrase_short_enough_for_an_answer_box():
    phrase = wording.across_cpu_span(_named(Ratio(1.0, 0.7, 1.3, processes=3), Ratio(1.1, 0.8, 1.5, processes=3),
                                            Ratio(0.95, 0.75, 1.2, processes=3)))
    assert phrase == "inconclusive on each of 3 CPU models"
    # Its models' own phrases, each with an interval, are the table's to give, not the box's.
    assert "(" not in phrase and "[" not in phrase


def test_every_model_inconclusive_can_give_its_widest_ends_as_the_inconclusive_phrase_prints_them():
    ratios = (Ratio(1.0, 0.7, 1.3, processes=3), Ratio(1.1, 0.8, 1.5, processes=3), Ratio(0.95, 0.75, 1.2, processes=3))
    phrase = wording.across_cpu_span(_named(*ratios), widest=True)
    # The farthest ends over the models: 0.7 is 1.43× slower; 1.5 is the fastest end.
    assert phrase == "inconclusive on each of 3 CPU models, at widest 1.43×\u00a0slower to 1.50×\u00a0faster"
    for ratio in ratios:  # each model's own ends lie within them
        own = wording.format_speedup(ratio)
        assert own.startswith("inconclusive here (")
    # One sentence, no parenthesis; the tooltip finds the range as an interval that holds 1×.
    assert "(" not in phrase and "[" not in phrase
    assert [found.form.name for found in find_intervals(phrase)] == ["range holding 1×"]
    # Where the models' verdicts differ, widest changes nothing.
    mixed = _named(Ratio(1.0, 0.7, 1.3, processes=3), Ratio(3.0, 2.5, 3.5, processes=3))
    assert wording.across_cpu_span(mixed, widest=True) == wording.across_cpu_span(mixed)


def test_every_model_the_same_reads_as_the_widest_reach():
    phrase = wording.across_cpu_span(_named(Ratio(1.0, 0.98, 1.02, processes=3),
                                            Ratio(1.0, 0.95, 1.06, processes=3)))
    widest = wording.same_within_percent(0.95, 1.06)
    assert phrase == f"the same within {widest}% on each of 2 CPU models"


def test_models_that_differ_are_each_named_with_their_own_verdict():
    phrase = wording.across_cpu_span(_named(Ratio(1.0, 0.7, 1.3, processes=3), Ratio(3.0, 2.5, 3.5, processes=3)))
    assert phrase == "3.00×\u00a0faster [2.50–3.50×] on CPU 1; inconclusive here on CPU 0"


# ------------------------------------------------------------ the saving per step, and a case's cell


def test_the_saving_per_step_is_one_time_less_the_other_with_an_interval_around_it(committed):
    results = committed.results["cpu"]["tf1_vs_tf2"]
    found = intervals.difference(results.case(TINY_TOB), results.case(TINY_TEN))
    assert found.value == pytest.approx(results.case(TINY_TOB).measurement.per_call_s
                                        - results.case(TINY_TEN).measurement.per_call_s)
    assert found.low <= found.value <= found.high
    assert render(committed, "time_saved", "tf1_vs_tf2", TINY_TOB, TINY_TEN) == wording.time_with_interval(found)


def test_a_rule_of_thumb_stated_as_a_multiple_of_the_saving_scales_the_saving_and_its_interval(committed):
    results = committed.results["cpu"]["tf1_vs_tf2"]
    found = intervals.difference(results.case(TINY_TOB), results.case(TINY_TEN))
    four = intervals.Estimate(4 * found.value, 4 * found.low, 4 * found.high)
    assert render(committed, "time_saved", "tf1_vs_tf2", TINY_TOB, TINY_TEN, "times=4") == wording.time_with_interval(four)
    with pytest.raises(DirectiveError, match="times must be from 1 to 100"):
        render(committed, "time_saved", "tf1_vs_tf2", TINY_TOB, TINY_TEN, "times=0")


def test_a_case_against_itself_saves_too_little_to_measure(committed):
    results = committed.results["cpu"]["tf1_vs_tf2"]
    assert intervals.difference(results.case(TINY_TOB), results.case(TINY_TOB)).holds_zero
    assert render(committed, "time_saved", "tf1_vs_tf2", TINY_TOB, TINY_TOB) == wording.TOO_SMALL


def test_a_case_s_cell_is_its_row_of_the_results_table(committed):
    results = committed.results["cpu"]["eager_off"]
    for row in summary.rows(results):
        assert render(committed, "case_speedup", "eager_off", row.case) == row.speedup
    # Keras 3 with eager execution disabled trains nothing: no speed-up is claimed for it.
    assert render(committed, "case_speedup", "eager_off", "Keras 3, eager disabled") == wording.DID_NOT_TRAIN


# ------------------------------------------------------------ the pages say it


def test_the_answer_names_the_cpu_models_behind_its_verdict_and_the_windows_route():
    box = answer_box(page("tf1-vs-tf2.md"))
    assert ('{{ across_cpus_span tf1_vs_tf2 "small · TF1-style graph" "small · Keras 3 train_on_batch" '
            'widest=true }}') in box
    assert "{{ factor" not in box  # one CPU model's bracket, unnamed, is what the reader could not place
    assert "Windows" in box and "WSL2" in box


def test_does_this_apply_gives_the_saving_per_step_with_its_machine_and_date_and_a_rule():
    applies = section(page("tf1-vs-tf2.md"), "## Does this apply to you?")
    assert f'{{{{ time_saved tf1_vs_tf2 "{TINY_TOB}" "{TINY_TEN}" }}}}' in applies
    assert "{{ environment_when tf1_vs_tf2 }}" in applies
    applies = " ".join(applies.split())
    # The cut-off is a plain rule, said to be one, and a GPU's cost per call is said to be unmeasured.
    assert "no longer than about four times that saving" in applies and "rule of thumb" in applies
    assert f'time_saved tf1_vs_tf2 "{TINY_TOB}" "{TINY_TEN}" times=4 }}}}' in applies  # the cut-off, as a time
    assert "did not measure a GPU's cost per call" in applies
    assert "within a few times" not in applies


def test_does_this_apply_gives_the_documented_gpu_architectures_beside_the_question_s_card_untried():
    applies = " ".join(section(page("tf1-vs-tf2.md"), "## Does this apply to you?").split())
    # The documented list and the card's compute capability, each from its source, and no claim it was tried.
    assert "(https://www.tensorflow.org/install/pip#hardware_requirements) list the CUDA architectures" in applies
    assert "3.5, 5.0, 6.0, 7.0, 7.5, 8.0 and higher" in applies
    assert "GTX 1070 compute capability 6.1" in applies
    assert "ran no GPU, so it did not try one" in applies


def test_why_says_the_run_eagerly_slow_downs_in_the_question_s_percentages():
    why = " ".join(section(page("tf1-vs-tf2.md"), "## Why").split())
    for keras in ("tf_keras", "Keras 3"):
        assert (f'{{{{ percent_faster tf1_vs_tf2 "small · {keras} run_eagerly" "small · TF1-style graph" }}}}'
                in why)
    assert "inside the question's range" in why


def test_the_question_s_percentages_lie_inside_its_quoted_range(committed):
    quoted = re.search(r"anywhere from (\d+)% to (\d+)% faster", " ".join(page("tf1-vs-tf2.md").split()))
    low, high = map(int, quoted.groups())
    for keras in ("tf_keras", "Keras 3"):
        percent = render(committed, "percent_faster", "tf1_vs_tf2", f"small · {keras} run_eagerly",
                         "small · TF1-style graph")
        assert low <= int(percent.rstrip("%").replace(",", "")) <= high


def test_the_medium_model_s_levers_and_what_was_not_timed():
    applies = " ".join(section(page("tf1-vs-tf2.md"), "## Does this apply to you?").split())
    assert "`jit_compile=True`" in applies and "`tanh`" in applies
    assert "ten steps per call does not reach" in applies
    assert "timed neither on a GPU" in applies


def test_the_windows_reader_is_sent_to_an_install_under_wsl2():
    applies = section(page("tf1-vs-tf2.md"), "## Does this apply to you?")
    assert "(reproduce.md#on-windows)" in applies
    install = section(page("reproduce.md"), "## 1. Install")
    assert "{ #on-windows }" in install and "WSL2" in install
    # Native Windows: said plainly to be untested, not hinted at as working.
    assert "never on native Windows" in " ".join(install.split())


def test_releases_says_what_staying_on_2_10_means():
    applies = section(page("releases.md"), "## Does this apply to you?")
    assert "If you stay on 2.10" in applies and "(tf1-vs-tf2.md#the-evidence)" in applies
    assert "did not time 2.10" in applies


def test_the_releases_evidence_names_its_cases_as_the_answer_does():
    evidence = " ".join(section(page("releases.md"), "## The evidence").split())
    key = evidence[:evidence.index("{{ history_changes releases }}")]
    assert '"training step" is a small Dense network' in key
    assert "small Dense network" in answer_box(page("releases.md"))
    assert '"small model"' in key and "question's models" in key


def test_the_evidence_says_no_dash_where_the_table_has_none():
    evidence = section(page("tf1-vs-tf2.md"), "## The evidence")
    assert "dash" not in evidence


def test_the_home_teasers_name_the_model_each_figure_is_of():
    home = page("index.md")
    tf1 = home[home.index("[Why is TF2 slower than TF1?]"):home.index("[Why is `model.predict` slow")]
    releases = home[home.index("[Did TensorFlow get faster?]"):home.index("[When is `tf.function` worth it?]")]
    assert "question's small model" in tf1 and "{{ across_cpus_span tf1_vs_tf2" in tf1
    assert "small Dense network" in " ".join(releases.split())


# ------------------------------------------------------------ tables a phone shows


def test_the_routes_table_puts_the_question_s_model_first():
    assert "| Route | small | tiny |" in page("tf1-vs-tf2.md")


def test_the_release_changes_give_the_change_right_after_the_case():
    history = load_history(REPO / "results", "cpu")
    header = history_tables.changes_table(history, "releases").splitlines()[0]
    assert header == r"| Case | Change \[95% interval\] | Releases | Time per call |"
    assert "| Case | Change | Releases |" in page("releases.md")


def test_a_trend_of_many_modes_splits_into_tables_of_three_with_keras_beside_the_release():
    history = load_history(REPO / "results", "cpu")
    modes = trends.workload_groups(history, "releases")["training step"]
    assert len(modes) > history_tables.TREND_COLUMNS
    tables = history_tables.trend_table(history, "releases", "training step").split("\n\n")
    assert len(tables) == -(-len(modes) // history_tables.TREND_COLUMNS)
    for table in tables:
        header = table.splitlines()[0]
        assert header.startswith("| Release<br>Keras |") and header.count("|") - 2 <= history_tables.TREND_COLUMNS
    # Another page's table of times keeps its Keras column.
    labels = dict(list(modes.items())[:1])
    assert history_tables.times_table(history, "releases", labels).startswith("| Release | Keras |")


def test_the_environments_come_as_two_narrow_tables():
    history = load_history(REPO / "results", "cpu")
    installed, ran = history_tables.environments_table(history, "releases").split("\n\n")
    assert installed.startswith("| TensorFlow | Keras | tf-keras | NumPy |")
    assert ran.startswith("| Release | Packages as of | Measured | Outcome |")
    assert isinstance(history_tables.environments_table(history, "releases"), Markdown)


def test_the_built_pages_read_as_the_sources_say(committed_site):
    tf1 = (committed_site / "tf1-vs-tf2" / "index.html").read_text()
    article = tf1[tf1.index("<article"):tf1.index("</article>")]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", article)).replace("\u00a0", " ")
    assert "WSL2" in text[text.index("The answer"):text.index("Does this apply to you?")]
    assert "These times come from AMD EPYC" in text or "These times come from Intel" in text
    assert 'id="on-windows"' in (committed_site / "reproduce" / "index.html").read_text()
