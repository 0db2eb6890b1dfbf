"""The runtime pages' tables: the CPU settings summary, the precision check, intervals kept whole in
table cells, the thread settings in the environment table, and the memory and start-up history."""

import dataclasses

import pytest

from conftest import synthetic_results
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.history import ReleaseResults
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.spec.layout import Grid
from tfspeedlab.core.spec.releases import Release
from tfspeedlab.core.stats.memory_growth import growth_phrase
from tfspeedlab.history import tables as history_tables, trends
from tfspeedlab.settings import tables as settings_tables
from tfspeedlab.site import directives
from tfspeedlab.site.tables import onednn_in_force, threads_in_force


def measured(seconds, processes=3, spread=0.01):
    """Runs whose blocks sit tightly around ``seconds``, one per process."""
    return tuple(Measurement(tuple(seconds * (1 + spread * k) for k in range(8)), 1, seconds, "test")
                 for _ in range(processes))


def grid_file(times, metrics=None):
    """A setting × workload grid: ``times`` maps (setting, workload) to seconds per call."""
    cases = tuple(CaseResult(f"{setting} · {workload}", {"setting": setting, "workload": workload},
                             measured(seconds), (metrics or {}).get((setting, workload), {}))
                  for (setting, workload), seconds in times.items())
    return dataclasses.replace(synthetic_results(), cases=cases, baseline=None,
                               layout=Grid(rows="setting", columns="workload", baseline="default"),
                               params={"train_steps": 100})


def test_the_settings_summary_groups_each_setting_by_what_its_interval_says():
    found = settings_tables.settings_summary(grid_file({
        ("default", "matmul"): 1e-3, ("one thread", "matmul"): 2e-3, ("pinned", "matmul"): 0.5e-3,
        ("oneDNN off", "matmul"): 1e-3}))
    row = next(line for line in found.splitlines() if line.startswith("| matmul"))
    slower, faster, unclear = (cell.strip() for cell in row.split("|")[3:6])
    assert slower.startswith("one thread: 2.00×") and "slower" in slower
    assert "pinned: 2.00×" in faster and "faster" in faster
    assert unclear == "oneDNN off"


def test_onednns_default_is_what_the_baselines_processes_recorded():
    times = {("default", "a"): 1e-3, ("default", "b"): 1e-3, ("oneDNN off", "a"): 1e-3}
    on = {("default", "a"): {"onednn_opts": 1.0}, ("default", "b"): {"onednn_opts": 1.0},
          ("oneDNN off", "a"): {"onednn_opts": 0.0}}  # another row's value is not the default
    assert settings_tables.onednn_default(grid_file(times, on)) == "on"
    off = {key: {"onednn_opts": 0.0} for key in times}
    assert settings_tables.onednn_default(grid_file(times, off)) == "off"
    assert settings_tables.onednn_default(grid_file(times)) == "not recorded"
    # Processes of the baseline that disagree: no default can be stated.
    results = grid_file(times, on)
    split = tuple(dataclasses.replace(case, run_metrics=({"onednn_opts": 1.0}, {"onednn_opts": 0.0},
                                                          {"onednn_opts": 1.0}))
                  if case.label == "default · b" else case for case in results.cases)
    with pytest.raises(ValueError, match="disagree on whether oneDNN was on"):
        settings_tables.onednn_default(dataclasses.replace(results, cases=split))


def test_many_settings_with_no_clear_difference_are_counted_not_named():
    times = {("default", "m"): 1e-3, **{(f"s{k}", "m"): 1e-3 for k in range(5)}}
    row = next(line for line in settings_tables.settings_summary(grid_file(times)).splitlines()
               if line.startswith("| m"))
    assert row.split("|")[5].strip() == "all 5"
    times[("slow", "m")] = 3e-3
    row = next(line for line in settings_tables.settings_summary(grid_file(times)).splitlines()
               if line.startswith("| m"))
    assert row.split("|")[5].strip() == "the other 5" and "slow: 3.00×" in row.split("|")[3]


def test_one_process_gives_no_verdict_in_the_summary():
    results = grid_file({("default", "m"): 1e-3, ("other", "m"): 2e-3})
    results = dataclasses.replace(results, cases=tuple(dataclasses.replace(case, runs=case.runs[:1])
                                                       for case in results.cases))
    assert "other: one process: times only" in settings_tables.settings_summary(results)


def test_the_precision_check_shows_the_loss_after_the_same_steps_and_the_products_difference():
    found = settings_tables.precision_check(grid_file(
        {("default", "MLP · train_on_batch"): 1e-3, ("default", "matmul"): 1e-3, ("bf16", "matmul"): 1e-3},
        {("default", "MLP · train_on_batch"): {"loss_start": 0.5, "loss_after_100_steps": 0.01},
         ("default", "matmul"): {"relative_error_vs_float32": 0.0},
         ("bf16", "matmul"): {"relative_error_vs_float32": 0.0044}}))
    assert "loss 0.5 → 0.01" in found and "the reference product" in found
    assert "largest difference 0.0044 of the largest value" in found


def test_the_environment_table_names_the_thread_settings_in_force():
    assert threads_in_force({"inter_op_threads": 0, "intra_op_threads": 2, "usable_cores": 1}) == \
        "inter-op default, intra-op 2; 1 usable core"
    assert threads_in_force({"inter_op_threads": 1, "intra_op_threads": 0}) == "inter-op 1, intra-op default"


def test_the_environment_table_says_whether_onednn_was_on_or_that_it_was_not_recorded():
    assert onednn_in_force({"onednn": True}) == "oneDNN on"
    assert onednn_in_force({"onednn": False}) == "oneDNN off"
    assert onednn_in_force({}) == "oneDNN not recorded"  # files from before the field existed
    # A grid whose default row's processes recorded it (the CPU settings) says what they recorded.
    times = {("default", "a"): 1e-3, ("oneDNN off", "a"): 1e-3}
    recorded = {("default", "a"): {"onednn_opts": 1.0}, ("oneDNN off", "a"): {"onednn_opts": 0.0}}
    assert onednn_in_force({}, grid_file(times, recorded)) == "oneDNN on (as its default row recorded)"
    assert onednn_in_force({}, grid_file(times)) == "oneDNN not recorded"



def followed(parts):
    return {"follow_calls": 100.0, "follow_parts": float(len(parts)), "rss_start_bytes": 1e8, "rss_end_bytes": 1e8,
            "peak_rss_bytes": 1e8, "heap_calls": 25.0, "heap_per_call": 0.0,
            **{f"rss_part_{i}_per_call": value for i, value in enumerate(parts)}}


def test_the_memory_history_gives_each_release_its_growth_and_a_dash_where_a_loop_was_not_run(tmp_path):
    def release(minor, growth):
        case = CaseResult("loop", {"call": "predict"}, measured(1e-3, processes=1), followed([growth] * 5))
        results = dataclasses.replace(synthetic_results(example="memory"), cases=(case,), baseline=None)
        return ReleaseResults(Release(2, minor), {"memory": results}, {"keras": f"3.{minor}"})

    history = [release(15, 0.0), release(16, 50e3)]
    found = history_tables.growth_table(history, "memory", {"predict": "loop", "fit": "absent"})
    rows = [line for line in found.splitlines() if line.startswith("| 2.")]
    assert "steady" in rows[0] and "+48.8" in rows[1] and rows[1].rstrip(" |").endswith("—")
    # The same loop on one release, in the words the page's prose reads it with.
    by_release = dict(trends.measured(history, "memory", "loop"))
    assert growth_phrase(by_release[Release(2, 16)]).startswith("grows 48.8")
    assert "steady" in growth_phrase(by_release[Release(2, 15)])
    context = directives.Context(results={"cpu": {}, "gpu": {}}, results_root=tmp_path, page_uri="memory-startup.md",
                                 history={"cpu": history})
    with pytest.raises(directives.DirectiveError, match="not measured on 2.14"):
        directives.render("history_time", ["memory", "loop", "2.14"], context)


def test_the_memory_history_second_half_shows_a_growth_the_whole_loop_hides(tmp_path):
    # Memory given back in the first part, then kept: the whole loop is unclear, its second half grows.
    parts = [-300e3, -310e3, 20e3, 21e3, 19e3]
    case = CaseResult("loop", {"call": "predict"}, measured(1e-3, processes=1), followed(parts))
    results = dataclasses.replace(synthetic_results(example="memory"), cases=(case,), baseline=None)
    history = [ReleaseResults(Release(2, 21), {"memory": results}, {"keras": "3.13"})]
    whole = history_tables.growth_table(history, "memory", {"predict": "loop"})
    late = history_tables.growth_table(history, "memory", {"predict": "loop"}, second_half=True)
    assert "inconclusive here" in whole and "+19.5\u00a0KiB" in late
    assert "but its second half grows 19.5\u00a0KiB" in growth_phrase(case)


def _committed(example):
    from conftest import REPO
    from tfspeedlab.core.results.store import load_results

    return load_results(REPO / "results" / "cpu" / f"{example}.json")


def _header(markdown_table):
    return [cell.strip() for cell in markdown_table.splitlines()[0].strip("|").split("|")]


def test_the_first_prediction_table_puts_the_columns_that_answer_right_after_a_one_column_row_label():
    from tfspeedlab.memory import tables as memory_tables

    found = memory_tables.first_prediction_table(_committed("startup"))
    # A phone shows the first two or three columns: the label, the whole cold start (which statistic it is,
    # as the imports table says) and whether the format changed it; its parts follow.
    assert _header(found) == ["Model, saved as", "Start to first prediction (fastest 10%)", "Compared with .keras",
                              "Import", "Load", "First call"]
    row = next(line for line in found.splitlines() if line.startswith("| small CNN, `.h5`"))
    assert "inconclusive here" in row.split("|")[3] or "×" in row.split("|")[3]


def test_the_memory_table_and_chart_name_each_keras_by_its_version_not_by_its_module():
    from tfspeedlab.memory import charts as memory_charts, tables as memory_tables

    results = _committed("memory")
    assert {memory_tables.keras_name(str(case.params["keras"]), results) for case in results.cases} == \
        {"Keras 3", "Keras 2 (tf_keras)"}
    table = memory_tables.growth_table(results)
    rows = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
    assert set(rows) == {"Keras 3", "Keras 2 (tf\\_keras)"} and "tf.keras" not in table
    svg = memory_charts.memory_over_calls_svg(results, "light")
    assert "Keras 3" in svg and "Keras 2 (tf_keras)" in svg
    # Without a recorded Keras version, tf.keras is named as it is: its major version is unknown.
    unknown = dataclasses.replace(results, environment={**results.environment, "keras": None})
    assert memory_tables.keras_name("tf.keras", unknown) == "tf.keras"


def test_a_short_run_table_has_no_column_that_repeats_another():
    from tfspeedlab.backends import tables as backend_tables

    found = backend_tables.short_runs_table(_committed("keras_backends"), "LSTM")
    # A run of one step is its first call: one column, named as both.
    assert _header(found) == ["Backend", "1 step: the first call", "10 steps", "100 steps"]


def test_the_start_up_history_gives_each_pass_its_time_and_the_true_reason_for_no_verdict(tmp_path):
    from conftest import REPO
    from tfspeedlab.core import wording
    from tfspeedlab.core.results.history import load_history

    history = load_history(REPO / "results", "cpu")
    gap = trends.pass_gap(history, "startup")
    assert gap.cold_starts and gap.passes == 2 and gap.blocks_per_pass == 4 and gap.apart > gap.pairs // 2
    labels = {"import tensorflow": "import tensorflow"}
    table = history_tables.times_table(history, "startup", labels)
    note = table.splitlines()[-1]
    assert note == history_tables.passes_note(gap) and "8 cold starts, each a fresh process" in note
    assert wording.ONE_PROCESS_NOTE not in table
    # Each pass's time, as the chart's lines draw them: times only, no factor and no column of no verdicts.
    passes = history_tables.sittings_table(history, "startup")
    assert "×" not in passes and wording.NO_VERDICT_CELL not in passes
    assert _header(passes)[1] == "import tensorflow, pass 1 → pass 2"
    named = history_tables.pass_times_table(history, "startup", labels)
    assert len(_header(named)) == 2 and len(named.splitlines()) == 2 + len(history)
    with pytest.raises(directives.DirectiveError, match="no case"):
        history_tables.pass_times_table(history, "startup", {"x": "no such case"})
    # The releases' history, three processes a pass, keeps its verdicts and needs no such note.
    assert trends.pass_gap(history, "releases") is None
