import shutil
import subprocess
import sys

import pytest

from conftest import REPO
from tfspeedlab.results import load_results
from tfspeedlab.units import format_ratio, format_time


def build(results_dir, site_dir):
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
        env={**__import__("os").environ, "TFSPEEDLAB_RESULTS": str(results_dir), "NO_MKDOCS_2_WARNING": "1"},
    )


@pytest.fixture(scope="module")
def built_site(quick_results, tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    completed = build(quick_results, site)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return site


def test_page_shows_the_figures_of_the_results_file_it_was_built_from(built_site, quick_results):
    results = load_results(quick_results / "cpu" / "small_ops.json")
    page = (built_site / "small-ops" / "index.html").read_text()
    for label in ("eager", "graph", "xla"):
        m = results.case(label).measurement
        assert format_time(m.median_s) in page  # the prose figures
        assert format_time(m.first_call_s) in page
    assert format_ratio(results.speedup("eager", "graph")) in page
    home = (built_site / "index.html").read_text()
    assert format_ratio(results.speedup("eager", "graph")) in home


def test_missing_gpu_results_say_not_yet_measured(built_site):
    page = (built_site / "small-ops" / "index.html").read_text()
    assert "Not yet measured on GPU" in page


def test_charts_are_generated_for_both_colour_schemes(built_site):
    for theme in ("light", "dark"):
        chart = built_site / "assets" / "results" / "cpu" / f"small_ops-{theme}.svg"
        assert "runner: cpu" in chart.read_text()
    page = (built_site / "small-ops" / "index.html").read_text()
    assert "small_ops-light.svg#only-light" in page and "small_ops-dark.svg#only-dark" in page


def test_committed_results_build_too(tmp_path):
    completed = build(REPO / "results", tmp_path / "site")
    assert completed.returncode == 0, completed.stderr[-4000:]


def test_malformed_results_file_stops_the_build_naming_it(quick_results, tmp_path):
    results = tmp_path / "results"
    shutil.copytree(quick_results, results)
    broken = results / "gpu" / "small_ops.json"
    broken.parent.mkdir(exist_ok=True)
    broken.write_text('{"schema": "tfspeedlab.results", "schema_version": 1}')
    completed = build(results, tmp_path / "site")
    assert completed.returncode != 0
    assert str(broken) in completed.stderr and "'runner'" in completed.stderr


def test_derived_figures_reach_their_pages(built_site, quick_results):
    from tfspeedlab import figures

    op_chain = load_results(quick_results / "cpu" / "op_chain.json")
    page = (built_site / "op-count" / "index.html").read_text()
    for name in ("break_even_ops", "graph_call_cost", "eager_per_op", "graph_per_op"):
        assert figures.derived(op_chain, name) in page
    tracing = load_results(quick_results / "cpu" / "tracing.json")
    rules = (built_site / "golden-rules" / "index.html").read_text()
    assert f"retraced\n   {figures.metric(tracing, 'python scalars', 'traces')} times" in rules or \
        f"retraced {figures.metric(tracing, 'python scalars', 'traces')} times" in rules


def test_no_directive_survives_the_build(built_site):
    for page in built_site.rglob("*.html"):
        assert "{{" not in page.read_text() or page.parent.name == "search", page


def test_notebook_pages_offer_download_and_colab(built_site):
    page = (built_site / "notebooks" / "small_ops" / "index.html").read_text()
    assert "Download notebook" in page and "small_ops.ipynb" in page
    assert "colab.research.google.com/github/tfspeedlab/tfspeedlab/blob/main/notebooks/small_ops.ipynb" in page
    assert (built_site / "notebooks" / "small_ops" / "small_ops.ipynb").exists()


def test_gpu_results_fill_the_gpu_tabs_and_ci_fallback_is_stated(quick_results, tmp_path):
    import json

    results = tmp_path / "results"
    shutil.copytree(quick_results, results)
    # A GPU runner's file, made from a real quick run for this rendering test only.
    data = json.loads((results / "cpu" / "small_ops.json").read_text())
    data["runner"] = "gpu"
    data["environment"]["gpus"] = [{"device": "/physical_device:GPU:0", "name": "Test GPU H999",
                                    "compute_capability": "9.0"}]
    (results / "gpu").mkdir()
    (results / "gpu" / "small_ops.json").write_text(json.dumps(data))
    (results / "cpu" / "SOURCE").write_text("committed\n")
    completed = build(results, tmp_path / "site")
    assert completed.returncode == 0, completed.stderr[-4000:]
    page = (tmp_path / "site" / "small-ops" / "index.html").read_text()
    assert "Test GPU H999" in (tmp_path / "site" / "runners" / "index.html").read_text()
    assert "assets/results/gpu/small_ops-light.svg" in page
    assert "Not yet measured on GPU" not in page.split("Measured")[1].split("What the numbers say")[0]
    assert "Not re-measured in this build" in page
