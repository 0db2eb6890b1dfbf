"""The same workload on several pages: every timing names a page that shows its example, and each
row says which CPU and date its time comes from and whether two runs on one CPU model agree."""

from dataclasses import replace
from pathlib import Path

import pytest

from conftest import synthetic_results
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.cpu import CpuNames, cpu_name, cpu_with_sets, short_model_name
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.results.store import load_runner
from tfspeedlab.render import markdown, shared_workloads
from tfspeedlab.render.shared_workloads import FIRST_ON_CPU, SharedTime, Timing
from tfspeedlab.site import directives

REPO = Path(__file__).resolve().parents[1]


def context(files):
    return directives.Context(results={"cpu": {f.example: f for f in files}, "gpu": {}},
                              results_root=REPO / "results", repo_url=None, page_uri="runners.md")


def pages_named() -> set[str]:
    """Every page the tables link to, with the example it shows there."""
    timings = [t for shared in shared_workloads.SHARED_TIMES for t in shared.timings]
    timings += [t for shared in shared_workloads.SHARED_SPEEDUPS for pair in shared.pairs for t in pair]
    return {(t.page, t.example) for t in timings}


@pytest.mark.parametrize("page, example", sorted(pages_named()))
def test_each_timing_names_a_page_that_shows_its_example(page, example):
    source = (REPO / "docs" / page).read_text(encoding="utf-8")
    assert f" {example} " in source, f"{page} shows no figure of {example}"
    assert page in shared_workloads.PAGE_TITLES


def test_the_committed_results_render_with_their_cpu_and_date():
    committed = load_runner(REPO / "results" / "cpu", "cpu")
    rendered = directives.render("shared_workloads", [], context(committed.values()))
    for shared in shared_workloads.SHARED_TIMES:
        assert shared.workload in rendered
        for timing in shared.timings:
            found = committed[timing.example]
            # Each row's time is the page's own figure, with its machine and date beside it.
            assert directives.render("time", [timing.example, timing.case], context(committed.values())) in rendered
            assert found.environment["utc_time"][:10] in rendered
            # A short CPU name in the row, spelled out once under the tables.
            assert cpu_name(found.environment) in rendered
            legend = rendered.split("CPU models, as the tables")[1]
            assert f"| {markdown.text(cpu_name(found.environment))} | " in legend
    assert "Factor \\[95% interval\\]" in rendered


def one_case(example, seconds, family, model):
    runs = tuple(Measurement((seconds * f,) * 5, 10, 1e-2, "test") for f in (1.0, 1.01, 0.99))
    results = synthetic_results(example=example)
    return replace(results, quick=False, baseline=None, cases=(CaseResult("call", {"mode": "call"}, runs),),
                   environment={**results.environment, "cpu_family": family, "cpu_model_number": model})


def test_each_row_is_set_against_the_first_on_its_own_cpu_model(monkeypatch):
    files = [one_case("first", 1e-3, 25, 1), one_case("other_cpu", 1e-3, 26, 2), one_case("same_cpu", 1.6e-3, 25, 1),
             one_case("other_again", 0.5e-3, 26, 2)]
    pages = ("predict-loop.md", "keras-backends.md", "memory-startup.md", "cpu-settings.md")
    monkeypatch.setattr(shared_workloads, "SHARED_TIMES", (SharedTime("A call", tuple(
        Timing(page, f.example, "call") for page, f in zip(pages, files))),))
    by_name = {f.example: f for f in files}
    table = shared_workloads.times_table(by_name.__getitem__, lambda page: page, lambda timing: "t")
    rows = [line for line in table.splitlines() if line.startswith("| ") and "Workload" not in line
            and not line.startswith("| ---")]
    assert FIRST_ON_CPU in rows[0] and FIRST_ON_CPU in rows[1] and "Test CPU 26/2" in rows[1]
    # Each names the row it is set against by its page.
    assert "against “predict in a loop”: 1.60×\xa0slower \\[" in rows[2]
    # Against the first row on family 26, not against the first row of the table.
    assert "against “Keras backends”: 2.00×\xa0faster \\[" in rows[3]


def test_measured_on_lists_each_cpu_model_with_its_examples_and_links_the_side_by_side(tmp_path):
    files = [one_case("first", 1e-3, 25, 1), one_case("second", 1e-3, 25, 1), one_case("third", 1e-3, 26, 2)]
    rendered = directives.render("measured_on", [], directives.Context(
        results={"cpu": {f.example: f for f in files}, "gpu": {}}, results_root=tmp_path, repo_url=None,
        page_uri="x.md"))
    assert "measured 3 examples on " in rendered
    # Each CPU model by the name the tables give it.
    assert f"{cpu_name(files[0].environment)}, 2 logical cores | 2 examples |" in rendered
    assert f"{cpu_name(files[2].environment)}, 2 logical cores | 1 example |" in rendered
    assert cpu_name(files[2].environment).endswith(" 26/2")
    assert "(runners.md#the-same-workload-on-several-pages)" in rendered
    # One CPU model: no list, no link.
    single = directives.render("measured_on", [], directives.Context(
        results={"cpu": {f.example: f for f in files[:2]}, "gpu": {}}, results_root=tmp_path, repo_url=None,
        page_uri="x.md"))
    assert "CPU models" not in single and "several-pages" not in single
    assert "It ran on " in single and "logical cores |" not in single


def test_other_cpu_models_keep_the_newest_of_each_and_leave_out_unnamed_cpus():
    committed = one_case("x", 1e-3, 25, 1)
    flagged = {"cpu_flags": ["avx2", "avx512f"]}

    def sitting(family, model, when, **env):
        found = one_case("x", 2e-3, family, model)
        return replace(found, environment={**found.environment, **env, "utc_time": when})

    older, newer = sitting(26, 2, "2026-01-02T00:00", **flagged), sitting(26, 2, "2026-01-03T00:00", **flagged)
    unnamed = sitting(None, None, "2026-01-04T00:00", cpu_flags=[])
    same = sitting(25, 1, "2026-01-05T00:00")
    kept = shared_workloads.other_cpus(committed, [older, newer, unnamed, same])
    assert [found.environment["utc_time"] for found in kept] == ["2026-01-03T00:00"]


def test_a_speedup_across_cpu_models_reads_as_its_range():
    from tfspeedlab.core import wording
    from tfspeedlab.core.stats.intervals import Ratio

    def ratio(value):
        return Ratio(value, value * 0.95, value * 1.05, processes=3)

    def named(*found):
        return [(f"CPU {index}", one) for index, one in enumerate(found)]

    assert wording.across_cpu_models(named(ratio(26.4), ratio(9.85), ratio(12.6))) == \
        "9.85× to 26.4×\u00a0faster on 3 CPU models"
    assert wording.across_cpu_models(named(ratio(0.5), ratio(0.25))) == "2.00× to 4.00×\u00a0slower on 2 CPU models"
    # Where the models differ, each says its own verdict with its interval, named.
    mixed = wording.across_cpu_models(named(ratio(3.0), Ratio(1.0, 0.7, 1.4, processes=3)))
    assert mixed == ("3.00×\xa0faster [2.85–3.15×] on CPU 0; "
                     "inconclusive here (1.43×\xa0slower to 1.40×\xa0faster) on CPU 1")
    assert wording.across_cpu_models(named(Ratio(3.0, 2.0, 4.0, processes=1))) == \
        "one process: times only on the one CPU model measured"


def test_a_span_over_cpu_models_groups_them_by_verdict_in_its_own_words():
    from tfspeedlab.core import wording
    from tfspeedlab.core.stats.intervals import Ratio

    unclear = Ratio(1.1, 0.95, 1.28, processes=3)
    wins = [("AMD EPYC 25/17", Ratio(1.71, 1.44, 2.03, processes=3)), ("Intel Xeon", Ratio(2.37, 1.99, 2.81, processes=3)),
            ("AMD EPYC 26/2", Ratio(2.2, 1.81, 2.66, processes=3))]
    assert wording.across_cpu_span([("AMD EPYC 25/1", unclear), *wins]) == \
        "1.71× to 2.37×\u00a0faster on 3 CPU models; inconclusive here on AMD EPYC 25/1"
    # One model to a verdict: named, with its interval where the verdict is clear.
    same = Ratio(1.0, 0.97, 1.03, processes=3)
    assert wording.across_cpu_span([("A", wins[0][1]), ("B", same)]) == \
        "1.71×\u00a0faster [1.44–2.03×] on A; the same within 4% on B"
    loss = Ratio(0.5, 0.4, 0.6, processes=3)
    assert wording.across_cpu_span([("A", loss), ("B", wins[1][1])]) == \
        "2.37×\u00a0faster [1.99–2.81×] on B; 2.00×\u00a0slower [1.67–2.50×] on A"
    # Where they agree: across_cpu_models' range, or of every model inconclusive or the same, one phrase.
    assert wording.across_cpu_span(wins) == "1.71× to 2.37×\u00a0faster on 3 CPU models"
    assert wording.across_cpu_span([("A", unclear), ("B", unclear)]) == "inconclusive on each of 2 CPU models"
    wider = Ratio(1.0, 0.95, 1.06, processes=3)
    assert wording.across_cpu_span([("A", same), ("B", wider)]) == \
        f"the same within {wording.same_within_percent(0.95, 1.06)}% on each of 2 CPU models"


def test_a_verdict_over_cpu_models_is_its_word_alone_only_where_every_model_says_it():
    from tfspeedlab.core import wording
    from tfspeedlab.core.stats.intervals import Ratio

    losses = [(name, Ratio(0.4, 0.3, 0.5, processes=3)) for name in "ABCD"]
    assert wording.across_cpu_verdict(losses) == "slower on all 4 CPU models"
    mixed = [*losses[:2], ("E", Ratio(1.0, 0.9, 1.3, processes=3))]
    assert wording.across_cpu_verdict(mixed) == wording.across_cpu_span(mixed)
    assert "×" in wording.across_cpu_verdict(mixed)


def test_a_cpu_recorded_without_its_family_is_told_apart_by_its_instruction_sets():
    """Only where another CPU model of its name would read the same, and by the sets only it has:
    its table gives all of them in the next column."""
    older = {"cpu_model": "AMD EPYC", "cpu_flags": ["avx2", "avx512f"]}
    newer = {"cpu_model": "AMD EPYC", "cpu_flags": ["avx2", "avx_vnni"]}
    assert cpu_name(older, [older, newer]) == "AMD EPYC (AVX-512)"
    assert cpu_name(newer, [older, newer]) == "AMD EPYC (AVX-VNNI)"
    assert cpu_name(older) == cpu_name(older, [older]) == "AMD EPYC"  # no other model of its name
    assert cpu_name({"cpu_model": "AMD EPYC", "cpu_family": 25, "cpu_model_number": 1}) == "AMD EPYC 25/1"
    assert cpu_name({"cpu_model": "AMD EPYC"}) == "AMD EPYC"


INTEL_FLAGS = ["avx2", "avx512f", "avx512_bf16", "avx512_vnni", "avx512_fp16", "avx_vnni", "amx_tile", "amx_bf16"]


def test_a_cpu_name_never_repeats_the_instruction_sets_its_table_gives_beside_it():
    """The Intel row read "Intel(R) Xeon(R) Processor (AVX2, AVX-512, …, AMX)" beside an "Instruction
    sets" column holding the same list: 7–10 lines tall on a phone."""
    intel = {"cpu_model": "Intel(R) Xeon(R) Processor", "cpu_flags": INTEL_FLAGS}
    assert CpuNames.of([intel, ZEN4, ZEN5])(intel) == "Intel Xeon"
    assert CpuNames.of([intel]).with_sets(intel) == \
        "Intel Xeon with AVX2, AVX-512, AVX512_BF16, AVX512_VNNI, AVX512_FP16, AVX-VNNI, AMX"
    # Two Intel models that would both read "Intel Xeon": each by what only it has.
    older = {"cpu_model": "Intel(R) Xeon(R) Processor", "cpu_flags": ["avx2", "avx512f", "avx512_vnni"]}
    names = CpuNames.of([intel, older])
    assert names(intel) == "Intel Xeon (AVX512_BF16, AVX512_FP16, AVX-VNNI, AMX)"
    assert names(older) == "Intel Xeon (AVX2, AVX-512, AVX512_VNNI)"  # nothing of its own: all of its sets
    assert short_model_name({"cpu_model": "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz"}) == "Intel Core i7-8700 CPU"
    assert short_model_name({"cpu_model": "AMD EPYC 7B13 64-Core Processor"}) == "AMD EPYC 7B13"


# Three files of two CPU models, as the committed tree holds them: a re-measure of 26/2 that recorded
# its instruction sets but no family, and the committed 26/2 and 25/17 files that recorded both.
ZEN5_FLAGS = ["avx2", "avx512f", "avx512_bf16", "avx512_vnni", "avx_vnni"]
ZEN4_FLAGS = ["avx2", "avx512f", "avx512_bf16", "avx512_vnni"]
ZEN5 = {"cpu_model": "AMD EPYC", "cpu_family": 26, "cpu_model_number": 2, "cpu_stepping": 1, "cpu_flags": ZEN5_FLAGS}
ZEN4 = {"cpu_model": "AMD EPYC", "cpu_family": 25, "cpu_model_number": 17, "cpu_flags": ZEN4_FLAGS}
ZEN5_REMEASURE = {"cpu_model": "AMD EPYC", "cpu_flags": ZEN5_FLAGS}


def test_a_file_without_its_family_is_named_as_a_file_of_its_cpu_model_that_records_one():
    """One name per CPU model: a per-CPU table's re-measure row and the shared-workloads table's row of
    the same model read alike, so a reader can match them."""
    names = CpuNames.of([ZEN4, ZEN5, ZEN5_REMEASURE])
    assert names(ZEN5_REMEASURE) == names(ZEN5) == "AMD EPYC 26/2"
    assert names(ZEN4) == "AMD EPYC 25/17"
    assert names.with_sets(ZEN5_REMEASURE) == "AMD EPYC 26/2 with AVX2, AVX-512, AVX512_BF16, AVX512_VNNI, AVX-VNNI"
    # No file of its model records a family: the instruction set only it has tells it from 25/17.
    alone = CpuNames.of([ZEN4])
    assert alone(ZEN5_REMEASURE) == "AMD EPYC (AVX-VNNI)"
    assert alone.with_sets(ZEN5_REMEASURE) == \
        "AMD EPYC (AVX-VNNI) with AVX2, AVX-512, AVX512_BF16, AVX512_VNNI, AVX-VNNI"
    # Two families with the same name and instruction sets: no one family to borrow, and no set of
    # its own: all of its sets.
    twin = {**ZEN5, "cpu_family": 27, "cpu_model_number": 1}
    assert CpuNames.of([ZEN5, twin])(ZEN5_REMEASURE) == "AMD EPYC (AVX2, AVX-512, AVX512_BF16, AVX512_VNNI, AVX-VNNI)"
    assert cpu_with_sets({"cpu_model": "AMD EPYC"}) == "AMD EPYC"
