"""Memory over repeated calls: the follow loop's readings, each process's metrics kept through the
results file and pooling, the growth and its interval, and the words a page uses for it."""

import dataclasses
import json
import mmap
import re

import pytest

from conftest import synthetic_results
from tfspeedlab.core.resident_memory import follow_memory
from tfspeedlab.core.results.pool import pool
from tfspeedlab.core.results.schema import NotInResults, ResultsFileError, to_dict
from tfspeedlab.core.results.store import load_results, write_results
from tfspeedlab.core.stats.intervals import Estimate
from tfspeedlab.core.stats.memory_growth import (curve, followed_memory, growth, growth_phrase, late_growth_phrase,
                                                 mean_interval)
from tfspeedlab.core.wording import NO_GROWTH_BYTES_PER_CALL, Growth, format_growth, format_levelling, growth_verdict
from tfspeedlab.harness.isolation import gather
from tfspeedlab.memory import charts
from tfspeedlab.memory.tables import growth_table
from tfspeedlab.site import views


def followed(parts, heap=0.0, calls=100):
    """The metrics follow_memory records, for parts that grew by these bytes per call."""
    return {"follow_calls": float(calls), "follow_parts": float(len(parts)), "rss_start_bytes": 1e8,
            "rss_end_bytes": 1e8 + sum(parts) * calls / len(parts), "peak_rss_bytes": 2e8, "heap_calls": 25.0,
            "heap_per_call": heap, **{f"rss_part_{i}_per_call": value for i, value in enumerate(parts)}}


def case_with(*processes, call="predict"):
    base = synthetic_results().cases[0]
    runs = base.runs * len(processes)
    return dataclasses.replace(base, label=f"tf.keras · {call} · none", runs=runs, metrics=processes[-1],
                               params={"keras": "tf.keras", "call": call, "cleanup": "none", "calls": 100},
                               run_metrics=processes if len(processes) > 1 else ())


def held_outside_python(size):
    """Memory as TensorFlow's buffers take it: from the system, not from Python's allocator, and
    fresh pages each time (a freed heap's pages, already resident, would not show as growth)."""
    block = mmap.mmap(-1, size)
    block.write(b"x" * size)  # touched: resident
    return block


def test_memory_kept_outside_python_shows_as_resident_growth_and_not_in_the_heap():
    kept = []
    found = follow_memory(lambda: kept.append(held_outside_python(64 * 1024)), 50)
    per_part = [found[f"rss_part_{i}_per_call"] for i in range(5)]
    assert all(60 * 1024 <= value < 80 * 1024 for value in per_part), per_part
    assert found["follow_calls"] == 50 and found["heap_calls"] == 12
    assert found["heap_per_call"] < 4 * 1024  # the mmap objects themselves, not their pages
    assert found["rss_end_bytes"] > found["rss_start_bytes"]


def test_objects_kept_on_the_python_heap_show_in_the_heap_reading():
    kept = []
    found = follow_memory(lambda: kept.append(bytearray(64 * 1024)), 50)
    assert found["heap_per_call"] > 60 * 1024


def test_a_loop_that_allocates_nothing_lasting_reads_no_growth():
    found = follow_memory(lambda: bytearray(64 * 1024), 50)
    assert growth_verdict(mean_interval([found[f"rss_part_{i}_per_call"] for i in range(5)])) in (
        Growth.STEADY, Growth.INCONCLUSIVE)
    assert abs(found["heap_per_call"]) < 1024


def test_too_few_calls_for_the_parts_is_a_clear_error():
    with pytest.raises(ValueError, match="5 parts"):
        follow_memory(lambda: None, 3)


def test_the_interval_is_over_every_part_of_every_process():
    found = growth(case_with(followed([10e3, 12e3, 11e3, 9e3, 10e3]), followed([11e3, 10e3, 12e3, 10e3, 9e3])))
    assert found.processes == 2 and found.calls == 100
    assert found.per_call.value == pytest.approx(10.4e3)
    assert 0 < found.per_call.low < 10.4e3 < found.per_call.high < 12e3
    assert found.late_per_call.value == pytest.approx((11e3 + 9e3 + 10e3 + 12e3 + 10e3 + 9e3) / 6)


def test_growth_words_follow_the_interval():
    assert format_growth(Estimate(10240, 9216, 11264)) == "grows 10.0\u00a0KiB per\u00a0call [9.00\u00a0KiB–11.0\u00a0KiB]"
    # Steady: the whole interval within 1 KiB a call of none, said as how close it came.
    assert format_growth(Estimate(10, -200, 300), per="model") == "stays steady within 300\u00a0B per\u00a0model"
    assert format_growth(Estimate(100, -3000, 5000)) == (
        "grows or shrinks: inconclusive here (−2.93\u00a0KiB to 4.88\u00a0KiB per\u00a0call)")
    # Memory that never moved is said as such, not as "within 0 B".
    assert format_growth(Estimate(0, 0, 0)) == "stays steady: it did not move in any reading"
    assert growth_verdict(Estimate(-5000, -6000, -4000)) is Growth.SHRINKS
    # A clear growth smaller than the threshold is still a growth: the interval says so.
    assert growth_verdict(Estimate(300, 100, 500)) is Growth.GROWS
    assert NO_GROWTH_BYTES_PER_CALL == 1024


@pytest.mark.parametrize("whole, late, expected", [
    (Estimate(5e3, 4e3, 6e3), Estimate(5e3, 4e3, 6e3), "keeps growing"),
    (Estimate(5e3, 1e3, 9e3), Estimate(100, -500, 700), "levels off"),
    (Estimate(5e3, 4e3, 6e3), Estimate(1e3, -1e3, 3e3), "levels off"),  # the second half clearly slower
    (Estimate(5e3, 1e3, 9e3), Estimate(2e3, -1e3, 8e3), "whether it levels off is inconclusive here"),
    (Estimate(100, -500, 700), Estimate(100, -500, 700), ""),
    # Memory given back early hides a steady growth from the whole loop's line: its second half says it.
    (Estimate(-4e4, -1.5e5, 5e4), Estimate(1.8e4, 1.4e4, 2.2e4),
     "but its second half grows 17.6\u00a0KiB per\u00a0call [13.7\u00a0KiB–21.5\u00a0KiB]"),
])
def test_levelling_off_is_said_only_of_a_loop_that_grew_or_grows_later(whole, late, expected):
    assert format_levelling(whole, late) == expected


def test_a_case_that_followed_no_memory_is_not_in_the_results():
    with pytest.raises(NotInResults, match="followed no memory"):
        growth(synthetic_results().cases[0])


def test_each_process_metrics_survive_the_file_and_pooling(tmp_path):
    first = case_with(followed([1e3] * 5), followed([2e3] * 5))
    results = dataclasses.replace(synthetic_results(), cases=(first, dataclasses.replace(
        synthetic_results().cases[1], run_metrics=())), baseline=None)
    loaded = load_results(write_results(results, tmp_path))
    assert loaded.case(first.label).run_metrics == first.run_metrics
    assert "run_metrics" not in to_dict(loaded)["cases"][1]  # one process: written as before
    second = dataclasses.replace(loaded, environment={**loaded.environment, "utc_time": "2026-01-02T00:00:00+00:00"})
    pooled = pool(loaded, second)
    assert len(pooled.case(first.label).run_metrics) == 4
    assert growth(pooled.case(first.label)).processes == 4


def test_gather_keeps_each_process_metrics_in_order():
    one, two = case_with(followed([1e3] * 5)), case_with(followed([2e3] * 5))
    gathered = gather([one, two])
    assert [m["rss_part_0_per_call"] for m in gathered.run_metrics] == [1e3, 2e3]
    assert gathered.metrics == two.metrics


@pytest.mark.parametrize("damage", [
    lambda case: case.update(run_metrics="many"),
    lambda case: case.update(run_metrics=[{"a": 1.0}]),  # two runs, one set of metrics
    lambda case: case.update(run_metrics=[{"a": 1.0}, {"a": "lots"}]),
])
def test_malformed_process_metrics_are_a_clear_error(tmp_path, damage):
    data = to_dict(dataclasses.replace(synthetic_results(), cases=(
        case_with(followed([1e3] * 5), followed([2e3] * 5)), synthetic_results().cases[1]), baseline=None))
    damage(data["cases"][0])
    path = tmp_path / "cpu" / "demo.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsFileError, match="run_metrics"):
        load_results(path)


def test_the_table_and_the_phrase_say_the_same_growth():
    case = case_with(followed([10e3] * 5), followed([12e3] * 5), followed([11e3] * 5), call="new model")
    results = dataclasses.replace(synthetic_results(), cases=(case,), baseline=None)
    phrase = growth_phrase(case)
    # One subject, two verbs: "memory grows … and keeps growing", no clause without a subject.
    assert phrase.startswith("grows 10.7\u00a0KiB per\u00a0model") and phrase.endswith("] and keeps growing")
    assert "grows 10.7\u00a0KiB per\u00a0model" in growth_table(results)
    assert late_growth_phrase(case).startswith("grows 10.7\u00a0KiB per\u00a0model [")


def test_a_loop_that_levels_off_says_so_as_a_second_verb():
    case = case_with(*(followed([20e3 + spread, 21e3 - spread, 0.0, 0.0, 0.0]) for spread in (0.0, 500.0, 900.0)))
    assert growth_phrase(case).endswith("], then levels off")
    assert late_growth_phrase(case) == "stays steady: it did not move in any reading"


def test_the_curve_adds_up_each_parts_growth_averaged_over_processes():
    case = case_with(followed([1000.0, 2000.0, 0.0, 0.0], calls=100), followed([3000.0, 2000.0, 0.0, 0.0], calls=100))
    found = curve(case)
    assert found.calls == [0, 25, 50, 75, 100]
    # Part one: (1000 + 3000) / 2 bytes per call over 25 calls; part two 2000 per call; then flat.
    assert found.bytes_since_start == [0, 50_000, 100_000, 100_000, 100_000]


def test_a_followed_memory_file_is_charted_as_memory_over_calls():
    cases = tuple(dataclasses.replace(case_with(followed([parts] * 5), followed([parts] * 5), call=call),
                                      label=f"tf.keras · {call} · none")
                  for call, parts in (("predict", 20e3), ("new model", 9e6)))
    results = dataclasses.replace(synthetic_results(), cases=cases, baseline=None)
    assert followed_memory(results) and not followed_memory(synthetic_results())
    assert views.view_for(results).shows == "resident memory over calls"
    svg = charts.memory_over_calls_svg(results, "light")
    # A panel per kind of loop, each in the unit its growth needs (20 KiB × 100 calls ≈ 2 MiB; 9 MB × 100 ≈ 858 MiB).
    assert "predict — memory since the loop began (MiB) over calls" in svg
    assert "new model — memory since the loop began (MiB) over models" in svg
    # A panel per Keras, titled by it, and a line per remedy, named in the legend.
    assert re.search(r">\s*tf\.keras\s*</text>", svg) and re.search(r">\s*none\s*</text>", svg)


def test_a_case_without_followed_memory_has_no_curve():
    with pytest.raises(NotInResults, match="followed no memory"):
        curve(synthetic_results().cases[0])


def test_a_change_in_bytes_is_signed_by_one_formatter_with_a_minus_sign_and_no_signed_zero():
    from tfspeedlab.core.wording import signed_bytes

    assert signed_bytes(-33.5 * 1024, plus=True) == "−33.5\u00a0KiB"  # U+2212, as the memory page prints it
    assert signed_bytes(5661.3 * 1024, plus=True) == "+5.53\u00a0MiB"
    assert signed_bytes(-0.4, plus=True) == signed_bytes(0.4, plus=True) == "0\u00a0B"
    assert signed_bytes(2048) == "2.00\u00a0KiB" and signed_bytes(-2048) == "−2.00\u00a0KiB"


def test_the_keras_backends_memory_table_signs_its_slopes_as_the_memory_page_and_says_there_is_no_interval():
    from pathlib import Path

    from tfspeedlab.core.results.store import load_runner
    from tfspeedlab.backends.tables import memory_table

    results = load_runner(Path(__file__).resolve().parents[1] / "results" / "cpu", "cpu")["keras_backends"]
    rendered = memory_table(results)
    header, _, *rows = rendered.splitlines()
    assert "Growth per call: one process's slope, no interval" in header
    slopes = [row.split(" | ")[4] for row in rows]
    assert slopes and not any(slope.startswith("-") or "-0" in slope or "−0" in slope for slope in slopes)
    assert all(re.fullmatch(r"(?:[+−]\d[\d.]*|0)\u00a0(?:B|KiB|MiB|GiB)", slope) for slope in slopes), slopes


def malloc_case(call, malloc, *processes, allocator="glibc"):
    """A followed loop of the allocators example: its call under one malloc setting."""
    found = case_with(*processes, call=call)
    return dataclasses.replace(found, label=f"{call} · {malloc}",
                               params={**found.params, "malloc": malloc, "allocator": allocator})


def allocator_results():
    levels_off = [8e6, 9e6, 7e6, 8e6, 8e6, 0.0, 0.0, 0.0, 0.0, 0.0]
    cases = (malloc_case("new model", "glibc", {**followed([8e6] * 10, calls=200), "glibc_arenas": 9.0}),
             malloc_case("new model", "jemalloc", followed(levels_off, calls=200), allocator="jemalloc"),
             malloc_case("predict", "glibc", *({**followed([20e3] * 5), "glibc_arenas": 3.0} for _ in range(2))),
             malloc_case("predict", "MALLOC_ARENA_MAX=2",
                         *({**followed([1e3, -1e3, 0.0, 0.0, 0.0]), "glibc_arenas": arenas} for arenas in (2.0, 1.0))))
    unavailable = {"new model · tcmalloc": "libtcmalloc_minimal.so.4 is not installed here "
                                           "(apt-get install -y libtcmalloc-minimal4)"}
    return dataclasses.replace(synthetic_results(), cases=cases, baseline=None, unavailable=unavailable)


def test_the_allocator_table_gives_each_malloc_settings_growth_arenas_and_time_on_its_loop():
    from tfspeedlab.memory.tables import allocator_table

    rendered = allocator_table(allocator_results())
    rows = {tuple(cell.strip() for cell in line.strip("|").split(" | ")[:2]): line
            for line in rendered.splitlines()[2:] if line.startswith("| ")}
    assert list(rows) == [("new model × 200", "glibc"), ("new model × 200", "jemalloc"), ("predict × 100", "glibc"),
                          ("predict × 100", "MALLOC\\_ARENA\\_MAX=2")]
    glibc, jemalloc = rows["new model × 200", "glibc"], rows["new model × 200", "jemalloc"]
    assert "grows 7.63\u00a0MiB per\u00a0model" in glibc
    # Growth that stopped: the whole loop grew, its second half did not.
    assert "grows 3.81\u00a0MiB per\u00a0model" in jemalloc
    assert "stays steady: it did not move in any reading" in jemalloc
    # glibc's arenas where glibc's malloc ran (the most of any process), none under another allocator.
    assert "| 9 |" in glibc and "| not glibc's |" in jemalloc
    assert "| 2 |" in rows["predict × 100", "MALLOC\\_ARENA\\_MAX=2"]
    # The time per call, and no comparison of times: the question is memory, a loop's processes too few.
    assert rendered.splitlines()[0].rstrip(" |").endswith("Time per call")
    assert all(line.count(" | ") == 5 for line in rows.values())
    # A setting that could not run is named with its reason, escaped, after the table.
    assert rendered.endswith("Not measured here:\n\n* new model · tcmalloc: libtcmalloc\\_minimal.so.4 is not "
                             "installed here (apt-get install -y libtcmalloc-minimal4)")


def test_the_memory_chart_draws_a_line_per_malloc_setting_where_a_file_compares_them():
    svg = charts.memory_over_calls_svg(allocator_results(), "light")
    assert "line: malloc setting" in svg
    assert all(re.search(rf">\s*{re.escape(name)}\s*</text>", svg)
               for name in ("glibc", "jemalloc", "MALLOC_ARENA_MAX=2"))
    cleanups = dataclasses.replace(allocator_results(), cases=tuple(
        dataclasses.replace(case, params={key: value for key, value in case.params.items() if key != "malloc"})
        for case in allocator_results().cases[:1]))
    assert "line: what runs after each call" in charts.memory_over_calls_svg(cleanups, "light")


def test_the_remedies_sentence_names_a_setting_that_stopped_the_growth_and_those_that_did_not():
    from tfspeedlab.memory.tables import remedies_sentence

    found = allocator_results()
    # jemalloc's second half did not grow: it stopped the new-model loop's growth.
    assert remedies_sentence(found, "new model") == ("`jemalloc` stopped the `new model` loop's growth over 200 calls: "
                                                     "its second half no longer grew.")
    assert remedies_sentence(found, "new model", brief=True) == "`jemalloc` stopped it."
    still = [8e6] * 10
    grows = dataclasses.replace(found, cases=(
        malloc_case("new model", "glibc", followed(still, calls=200)),
        malloc_case("new model", "jemalloc", followed(still, calls=200), allocator="jemalloc"),
        malloc_case("new model", "malloc_trim(0)", followed(still, calls=200))))
    assert remedies_sentence(grows, "new model") == (
        "No malloc setting stopped the `new model` loop's growth over 200 calls: under `jemalloc` and "
        "`malloc_trim(0)` alike, its second half still grew.")
    assert remedies_sentence(grows, "new model", brief=True) == "Neither `jemalloc` nor `malloc_trim(0)` stopped it."
    unclear = dataclasses.replace(grows, cases=grows.cases[:2] + (
        malloc_case("new model", "tcmalloc", followed([8e6] * 5 + [9e6, -9e6, 8e6, -8e6, 0.0], calls=200)),))
    assert remedies_sentence(unclear, "new model") == (
        "No malloc setting clearly stopped the `new model` loop's growth over 200 calls. Under `jemalloc`, it still "
        "grew. Under `tcmalloc`, whether it grew is inconclusive here.")
    assert remedies_sentence(unclear, "new model", brief=True) == "No malloc setting clearly stopped it."
    with pytest.raises(NotInResults):  # a full run's page must not lose its claim
        remedies_sentence(dataclasses.replace(found, quick=False), "fit")
    # A quick run follows the predict loop alone: its page says so instead of failing the build.
    assert remedies_sentence(dataclasses.replace(found, quick=True), "fit") == (
        "This quick run did not follow the `fit` loop under another malloc setting.")
