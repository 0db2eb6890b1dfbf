import dataclasses
import html
import json
import re

import pytest

from conftest import REPO, build_site, site_results
from tfspeedlab.core import wording
from tfspeedlab.core.results.schema import SCHEMA_VERSION
from tfspeedlab.core.results.store import load_results
from tfspeedlab.core.stats import intervals, op_layers
from tfspeedlab.core.units import format_ratio, format_time
from tfspeedlab.core.wording import time_with_interval
from tfspeedlab.site import quantities


def test_page_shows_the_figures_of_the_results_file_it_was_built_from(quick_site, quick_results):
    results = load_results(quick_results / "cpu" / "small_ops.json")
    page = (quick_site / "small-ops" / "index.html").read_text()
    for label in ("eager", "graph", "xla"):
        m = results.case(label).measurement
        assert format_time(m.median_s) in page  # the prose figures
        assert format_time(m.first_call_s) in page
    # A quick run times each case in one process: its speed-ups are shown as such, never as a verdict.
    speedup = intervals.speedup(results, "eager", "graph")
    if (speedup.processes or 2) >= 2:
        expected = (format_ratio(speedup.value),)
    else:  # a sentence says so in words; a table cell carries the mark its note explains
        expected = (wording.ONE_PROCESS, wording.NO_VERDICT_CELL)
    assert any(phrase in page for phrase in expected)
    home = (quick_site / "index.html").read_text()
    assert any(phrase in home for phrase in expected)


def test_missing_gpu_results_say_not_yet_measured(quick_site):
    page = (quick_site / "small-ops" / "index.html").read_text()
    assert "Not yet measured on GPU" in page


def test_charts_are_generated_for_both_colour_schemes(quick_site):
    for theme in ("light", "dark"):
        chart = quick_site / "assets" / "results" / "cpu" / f"small_ops-{theme}.svg"
        assert "runner: cpu" in chart.read_text()
    page = (quick_site / "small-ops" / "index.html").read_text()
    assert "small_ops-light.svg#only-light" in page and "small_ops-dark.svg#only-dark" in page


# What a generated sentence or cell must never read like: a template's seams.
LEFTOVERS = {
    # (Not a code listing's ``def f(s):``: notebook pages keep their code out of <pre>.)
    "a plural in brackets": r"(?<!def )\b[A-Za-z_]+\(s\)(?!:)",
    "none for an empty list": r":\s*none\b",
    "a factor under 0.1 printed as such": r"(?<![\d.])0\.0\d*\s?×",
    "a time in an unscaled unit": r"\b\d{1,3}(?:,\d{3})+\s?(?:ns|µs|ms)\b|\b\d{4,}\s?(?:ns|µs|ms)\b",
    "one with a plural noun": r"(?<![\d.,])1 (?:times|calls|ops|processes|blocks|traces|steps)\b",
}


def page_prose(page) -> str:
    """A built page's visible text without its code: listings may say ``f(s)``."""
    markup = re.sub(r"<(script|style|pre|code)\b[^>]*>.*?</\1>", " ", page.read_text(), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", markup)))


def table_rows(page) -> list[list[str]]:
    """The visible text of every table row's cells on a built page."""
    def visible(cell: str) -> str:
        return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", cell))).strip()

    return [[visible(cell) for cell in re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", row, flags=re.S)]
            for row in re.findall(r"<tr\b[^>]*>(.*?)</tr>", page.read_text(), flags=re.S)]


def leftovers(site) -> list[str]:
    found = []
    for page in sorted(site.rglob("index.html")):
        if "search" in page.parts:
            continue
        prose = page_prose(page)
        for name, pattern in LEFTOVERS.items():
            found += [f"{page.parent.relative_to(site)}: {name}: …{prose[max(0, m.start() - 50):m.end() + 20]}…"
                      for m in re.finditer(pattern, prose)]
    return found


def test_committed_results_build_too_and_read_as_sentences(committed_site):
    """Every directive over every committed results file: no template seams on any page.

    (``committed_site`` asserts the strict build succeeded.)
    """
    assert leftovers(committed_site) == []


def test_quick_results_read_as_sentences_too(quick_site):
    assert leftovers(quick_site) == []


@pytest.mark.parametrize("prose, seam", [("advanced 1 time(s)", "a plural in brackets"),
                                         ("gained 10%: none.", "none for an empty list"),
                                         ("0.002× its time", "a factor under 0.1 printed as such"),
                                         ("eager 5593 µs", "a time in an unscaled unit"),
                                         ("traced 1 times", "one with a plural noun")])
def test_each_seam_is_caught(tmp_path, prose, seam):
    page = tmp_path / "site" / "page" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text(f"<p>{prose}</p><pre>def f(s): return 0.01×</pre>")
    assert [line.split(": ")[1] for line in leftovers(tmp_path / "site")] == [seam]


def test_malformed_results_file_stops_the_build_naming_it(quick_results, tmp_path):
    results = site_results(quick_results, tmp_path / "results")
    broken = results / "gpu" / "small_ops.json"
    broken.parent.mkdir(exist_ok=True)
    broken.write_text(json.dumps({"schema": "tfspeedlab.results", "schema_version": SCHEMA_VERSION}))
    completed = build_site(results, tmp_path / "site")
    assert completed.returncode != 0
    assert str(broken) in completed.stderr and "'runner'" in completed.stderr


def test_derived_figures_reach_their_pages(quick_site, quick_results):
    op_chain = load_results(quick_results / "cpu" / "op_chain.json")
    # An interval in prose sits in its tooltip's <abbr> (site/tooltips.py): compare the text without tags.
    page = re.sub(r"<[^>]+>", "", (quick_site / "op-count" / "index.html").read_text())
    for name in ("break_even_ops", "graph_call_cost", "eager_per_op", "graph_per_op"):
        assert quantities.derived(op_chain, name) in page
    tracing = load_results(quick_results / "cpu" / "tracing.json")
    rules = (quick_site / "golden-rules" / "index.html").read_text()
    retraced = quantities.count(quantities.metric_value(tracing, "python scalars", "traces"), "time")
    assert f"traced\n   {retraced} in 10 calls" in rules or f"traced {retraced} in 10 calls" in rules


def test_no_directive_survives_the_build(quick_site):
    for page in quick_site.rglob("*.html"):
        assert "{{" not in page.read_text() or page.parent.name == "search", page


def test_notebook_pages_offer_download_and_colab(quick_site):
    page = (quick_site / "notebooks" / "small_ops" / "index.html").read_text()
    assert "Download notebook" in page and "small_ops.ipynb" in page
    assert "colab.research.google.com/github/tfspeedlab/tfspeedlab/blob/main/notebooks/small_ops.ipynb" in page
    assert (quick_site / "notebooks" / "small_ops" / "small_ops.ipynb").exists()


def test_gpu_results_fill_the_gpu_tabs_and_ci_fallback_is_stated(quick_results, tmp_path):
    import json

    results = site_results(quick_results, tmp_path / "results")
    # A GPU runner's file, made from a real quick run for this rendering test only.
    data = json.loads((results / "cpu" / "small_ops.json").read_text())
    data["runner"] = "gpu"
    data["environment"]["gpus"] = [{"device": "/physical_device:GPU:0", "name": "Test GPU H999",
                                    "compute_capability": "9.0"}]
    (results / "gpu").mkdir()
    (results / "gpu" / "small_ops.json").write_text(json.dumps(data))
    (results / "cpu" / "SOURCE").write_text("committed\n")
    completed = build_site(results, tmp_path / "site")
    assert completed.returncode == 0, completed.stderr[-4000:]
    page = (tmp_path / "site" / "small-ops" / "index.html").read_text()
    assert "Test GPU H999" in (tmp_path / "site" / "runners" / "index.html").read_text()
    assert "assets/results/gpu/small_ops-light.svg" in page
    assert "Not yet measured on GPU" not in page.split("Measured")[1].split("What the numbers say")[0]
    assert "Not re-measured in this build" in page


def test_op_layers_page_shows_each_layer_from_the_results(quick_site, quick_results):
    results = load_results(quick_results / "cpu" / "op_layers.json")
    page = (quick_site / "op-layers" / "index.html").read_text()
    costs = op_layers.layer_costs(results, 1)
    # Intervals in table cells sit in their tooltip's abbr (tooltips.py): compare the text without tags.
    text = re.sub(r"<[^>]+>", "", page).replace("−", "&minus;")
    for layer in ("kernel", "C++ eager runtime", "generated wrapper", "tf.add"):
        assert html.escape(time_with_interval(costs[layer])).replace("−", "&minus;") in text, layer
    assert "op_layers-light.svg#only-light" in page
    assert "cwise_op_add_1.cc" in page and "/blob/v" in page


def test_profiling_page_shows_layers_memory_and_offers_the_traces(quick_site, quick_results):
    results = load_results(quick_results / "cpu" / "step_profile.json")
    page = (quick_site / "profiling" / "index.html").read_text()
    assert "Peak host memory" in page and "op dispatch" in page and "graph executor" in page
    for mode in ("eager", "graph", "xla"):
        trace = quick_site / "assets" / "traces" / "cpu" / "step_profile" / f"{mode}.xplane.pb"
        assert trace.read_bytes() == (quick_results / "cpu" / "traces" / "step_profile" / trace.name).read_bytes()
        assert f"assets/traces/cpu/step_profile/{mode}.xplane.pb" in page
    assert format_time(results.case("eager").measurement.median_s) in page


def test_frameworks_page_shows_per_op_dispatch(quick_site):
    page = (quick_site / "frameworks" / "index.html").read_text()
    for mode in ("TensorFlow eager", "PyTorch eager", "JAX op by op", "NumPy"):
        assert f"<td>{mode}</td>" in page
    assert "pip install -e &quot;.[compare]&quot;" in page or 'pip install -e ".[compare]"' in page


@pytest.mark.slow
def test_a_re_measure_that_favours_another_estimator_still_builds(tmp_path):
    """The estimator is a method, not a gate: a reader's re-measure of small_ops whose processes make
    the fastest block the steadiest candidate builds, and the page says which candidate it favours."""
    import shutil

    from tfspeedlab.core.measure.measurement import Measurement
    from tfspeedlab.core.results.schema import to_dict
    from tfspeedlab.core.results.store import write_json_atomic

    results_root = tmp_path / "results"
    shutil.copytree(REPO / "results", results_root, ignore=shutil.ignore_patterns("history", "diagnose", "coverage"))
    committed = load_results(REPO / "results" / "cpu" / "small_ops.json")

    def runs(scale: float) -> tuple:
        # Each process: one fast block, the same in every process; the rest spread, and slower in later
        # processes, so the 10th percentile moves between halves of the processes while the fastest block does not.
        return tuple(Measurement(tuple(scale * value for value in (1.0, *(1.3 + 0.1 * process + 0.01 * i
                                                                          for i in range(19)))), 10, 0.1, "test")
                     for process in range(6))

    scales = {"eager": 4e-3, "graph": 4e-4, "xla": 2e-4}
    favours_fastest = dataclasses.replace(committed, cases=tuple(
        dataclasses.replace(case, runs=runs(scales[case.label])) for case in committed.cases))
    write_json_atomic(results_root / "cpu" / "small_ops.json", to_dict(favours_fastest))
    worst = {}
    for label in ("graph", "xla"):
        for row in intervals.estimator_stability(favours_fastest, "eager", label):
            worst[row.estimator] = max(worst.get(row.estimator, 0.0), row.worst_split_difference)
    assert min(worst, key=worst.get) != intervals.CHOSEN  # this re-measure favours another estimator
    completed = build_site(results_root, tmp_path / "site")
    assert completed.returncode == 0, completed.stderr[-3000:]
    page = (tmp_path / "site" / "fair-timing" / "index.html").read_text()
    assert "These results favour" in page


def test_no_leftover_of_the_tutorial_numbering_on_any_page(committed_site):
    """The workloads are named, never "Test 2" or "(bonus)" after a tutorial no page names."""
    found = [f"{page.relative_to(committed_site)}: {match.group(0)}" for page in sorted(committed_site.rglob("*.html"))
             if "search" not in page.parts
             for match in re.finditer(r"\bTest [1-4]\b|\(bonus\)", page_prose(page))]
    assert not found, found[:10]


def test_one_convention_on_every_page_no_ratio_below_one_and_no_verdict_without_its_reach(committed_site):
    """A factor is never below 1×, and "no clear difference" in a table row always says how far its
    interval reaches: that is the page's only noise mark (a separate mark repeated the range beside
    it and, on a large grid, stood on most cells, which tells nothing)."""
    below_one, bare_unclear, marks = [], [], 0
    for page in sorted(committed_site.rglob("index.html")):
        if "search" in page.parts:
            continue
        prose = page_prose(page)
        below_one += [f"{page.relative_to(committed_site)}: {match.group(0)}"
                      for match in re.finditer(r"(?<![\d.,])0\.\d+\s?×", prose)]
        # The notebook pages repeat the guide pages' tables: their marks are counted once, on the pages.
        marks += prose.count("(!")
        # A verdict column may say it bare when the row's speed-up beside it gives the range.
        bare_unclear += [f"{page.relative_to(committed_site)}: {row}" for row in table_rows(page)
                         if any(cell.endswith("no clear difference") for cell in row)
                         and not any(" slower to " in cell for cell in row)]
    assert not below_one, below_one[:10]
    assert not bare_unclear, bare_unclear[:10]
    assert marks == 0, f"{marks} separate noise marks"
