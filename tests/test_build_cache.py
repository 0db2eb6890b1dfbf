"""The build cache: an interval or a chart is computed once, kept for the next build, and a changed
results file never meets a stale entry."""

import json
from dataclasses import replace

import pytest

from conftest import synthetic_results
from tfspeedlab.core import wording
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results import provenance
from tfspeedlab.core.stats import intervals
from tfspeedlab.render import charts
from tfspeedlab.site import bar_charts, build_cache, chart_check, notebook_pages, search_entries, unrendered


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty cache folder, and the in-process caches emptied before and after."""
    monkeypatch.setenv(build_cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    for cache in IN_PROCESS:
        cache.clear()
    yield tmp_path / "cache"
    build_cache.save()  # what ends a build: the cache closes (a no-op when the test saved already)
    for cache in IN_PROCESS:
        cache.clear()


# What a build keeps in the process, and a new process starts without.
IN_PROCESS = (intervals.INTERVAL_CACHE, intervals.RESAMPLED_CACHE, provenance.DEFINITIONS_CACHE,
              search_entries.SEARCH_ENTRIES, notebook_pages.NOTEBOOK_HEADINGS, unrendered.CLEAN_PAGES)


def a_build(root, results):
    """What a build does with the cache: open it, ask for the speed-up, save."""
    build_cache.open_cache(root)
    found = intervals.speedup(results, "eager", "graph")
    build_cache.save()
    return found


def test_an_interval_is_kept_for_the_next_build_and_gives_the_same_figure(fresh_cache, tmp_path):
    results = synthetic_results()
    first = a_build(tmp_path, results)
    stored = json.loads((fresh_cache / build_cache.INDEX_FILE).read_text())
    assert len(stored["intervals"]) == 1 and stored["code"] == build_cache.code_version()
    intervals.INTERVAL_CACHE.clear()  # a new process: only the file remains
    build_cache.open_cache(tmp_path)
    assert len(intervals.INTERVAL_CACHE.saved()) == 1
    assert intervals.speedup(results, "eager", "graph") == first


def test_a_changed_results_file_gets_its_own_interval_equal_to_a_cold_build(fresh_cache, tmp_path):
    results = synthetic_results()
    a_build(tmp_path, results)
    slower = Measurement(tuple(s * 1.5 for s in results.case("graph").runs[0].samples_s), 10, 0.05, "test")
    changed = replace(results, cases=(results.case("eager"), replace(results.case("graph"), runs=(slower,))))
    warm = a_build(tmp_path, changed)
    intervals.INTERVAL_CACHE.clear()
    cold = intervals.speedup(changed, "eager", "graph")  # no cache at all
    assert warm == cold and warm != intervals.speedup(results, "eager", "graph")
    assert wording.format_speedup(warm) == wording.format_speedup(cold)


def test_an_entry_unused_for_many_builds_is_dropped(fresh_cache, tmp_path):
    results = synthetic_results()
    a_build(tmp_path, results)
    for _ in range(build_cache.KEEP_BUILDS):
        build_cache.open_cache(tmp_path)
        build_cache.save()
    stored = json.loads((fresh_cache / build_cache.INDEX_FILE).read_text())
    assert stored["intervals"] == {}


def test_resampled_estimates_are_kept_for_the_next_build_and_are_the_same_array(fresh_cache, tmp_path, monkeypatch):
    results = synthetic_results()
    build_cache.open_cache(tmp_path)
    first = intervals.resampled_estimates(results.case("eager"))
    build_cache.save()
    intervals.RESAMPLED_CACHE.clear()  # a new process: only the file remains
    build_cache.open_cache(tmp_path)
    monkeypatch.setattr(intervals, "_resampled_estimates", lambda *_: pytest.fail("resampled again"))
    kept = intervals.resampled_estimates(results.case("eager"))
    assert kept.tobytes() == first.tobytes() and not kept.flags.writeable
    build_cache.save()


def test_a_changed_case_is_resampled_again_equal_to_a_cold_build(fresh_cache, tmp_path):
    results = synthetic_results()
    build_cache.open_cache(tmp_path)
    intervals.resampled_estimates(results.case("graph"))
    build_cache.save()
    intervals.RESAMPLED_CACHE.clear()
    slower = Measurement(tuple(s * 1.5 for s in results.case("graph").runs[0].samples_s), 10, 0.05, "test")
    changed = replace(results.case("graph"), runs=(slower,))
    build_cache.open_cache(tmp_path)
    warm = intervals.resampled_estimates(changed)
    build_cache.save()
    intervals.RESAMPLED_CACHE.clear()
    cold = intervals.resampled_estimates(changed)  # no cache at all
    assert warm.tobytes() == cold.tobytes() != intervals.resampled_estimates(results.case("graph")).tobytes()


@pytest.mark.parametrize("name, planted", [
    ("intervals", [[0.5], 1]), ("intervals", [["low", "high"], 1]), ("intervals", [[2.0, 1.0], 1]),
    ("resamples", ["not base64!", 1]), ("resamples", ["AAAA", 1]), ("search", [{"not": "text"}, 1]),
    ("search", "no build"), ("search", [1, 2, 3])])
def test_a_corrupt_kept_value_is_ignored_and_computed_again(fresh_cache, tmp_path, name, planted):
    results = synthetic_results()
    build_cache.open_cache(tmp_path)
    cold = intervals.speedup(results, "eager", "graph")
    build_cache.save()
    index = json.loads((fresh_cache / build_cache.INDEX_FILE).read_text())
    index[name] = {key: planted for key in index[name]} or {"some key": planted}
    (fresh_cache / build_cache.INDEX_FILE).write_text(json.dumps(index))
    for cache in IN_PROCESS:
        cache.clear()
    build_cache.open_cache(tmp_path)
    assert all(not kept.memo.saved() for kept in build_cache.KEPT_MEMOS if kept.name == name)
    assert intervals.speedup(results, "eager", "graph") == cold
    build_cache.save()


def test_charts_are_drawn_once_per_results_in_both_themes(fresh_cache, tmp_path):
    drawn = []

    def draw(results, theme_name):  # a real chart: a kept one is published only if it is a drawing (chart_check)
        drawn.append((results.example, theme_name))
        return bar_charts.time_per_call_svg(results, theme_name)

    results = synthetic_results()
    build_cache.open_cache(tmp_path)
    first = {theme: build_cache.svg(source) for theme, source in build_cache.results_charts(draw, results).items()}
    assert first["light"] == bar_charts.time_per_call_svg(results, "light")
    assert first["dark"] == charts.recoloured(first["light"], "dark")
    again = {theme: build_cache.svg(source) for theme, source in build_cache.results_charts(draw, results).items()}
    assert again == first
    build_cache.results_charts(draw, replace(results, title="Another title"))  # other results: drawn again
    build_cache.save()
    # Drawn once per results file: the dark theme's SVG is the light one recoloured.
    assert drawn == [("demo", "light"), ("demo", "light")]
    assert len(list((fresh_cache / build_cache.CHARTS_DIR).glob("*.svg"))) == 4


def test_a_missing_theme_is_drawn_again_and_the_kept_one_is_left(fresh_cache, tmp_path):
    results = synthetic_results()
    build_cache.open_cache(tmp_path)
    paths = build_cache.results_charts(bar_charts.time_per_call_svg, results)
    build_cache.save()
    kept_light = paths["light"].read_text(encoding="utf-8")
    paths["dark"].unlink()
    build_cache.open_cache(tmp_path)
    again = build_cache.results_charts(bar_charts.time_per_call_svg, results)
    build_cache.save()
    assert again["dark"].read_text(encoding="utf-8") == charts.recoloured(kept_light, "dark")
    assert again["light"].read_text(encoding="utf-8") == kept_light


@pytest.mark.parametrize("content", ["not json", json.dumps({"code": "other code", "build": 3, "intervals": {
    "k": [1, 2, 3]}}), json.dumps([1, 2])])
def test_an_unreadable_or_foreign_cache_is_ignored(fresh_cache, tmp_path, content):
    fresh_cache.mkdir(parents=True)
    (fresh_cache / build_cache.INDEX_FILE).write_text(content)
    results = synthetic_results()
    build_cache.open_cache(tmp_path)
    assert intervals.INTERVAL_CACHE.saved() == {}
    assert intervals.speedup(results, "eager", "graph").value > 1
    build_cache.save()
    assert json.loads((fresh_cache / build_cache.INDEX_FILE).read_text())["code"] == build_cache.code_version()


def test_a_changed_results_file_reaches_the_page_at_the_next_build(tmp_path, monkeypatch):
    """The tree is read once per change of its files, and a page's expansion is remembered only for
    the tree it was made from: what ``mkdocs serve`` does after a re-measure."""
    import markdown as python_markdown

    from tfspeedlab.core.results.store import write_results
    from tfspeedlab.core.units import format_time
    from tfspeedlab.site import site_data

    for runner in ("cpu", "gpu"):
        (tmp_path / runner).mkdir()
    results = replace(synthetic_results(example="small_ops"), quick=False)
    write_results(results, tmp_path)
    monkeypatch.setenv("TFSPEEDLAB_RESULTS", str(tmp_path))
    page = "Eager takes {{ time small_ops eager }}."
    first = site_data.load(tmp_path)
    before = python_markdown.markdown(page, extensions=["tfspeedlab.site.markdown_ext"])
    assert site_data.load(tmp_path) is first  # nothing changed: not read again
    slower = Measurement(tuple(s * 3 for s in results.case("eager").runs[0].samples_s), 10, 0.05, "test")
    write_results(replace(results, cases=(replace(results.case("eager"), runs=(slower,)), results.case("graph"))),
                  tmp_path)
    second = site_data.load(tmp_path)
    assert second is not first and second.generation > first.generation
    after = python_markdown.markdown(page, extensions=["tfspeedlab.site.markdown_ext"])
    slower_time = format_time(second.results["cpu"]["small_ops"].case("eager").measurement.per_call_s)
    assert before != after and slower_time in after  # the new, three times slower time per call


CLEAN_PAGE = "<script>var t = '{{ a theme's template }}';</script><pre><code>{{ median x y }}</code></pre><p>1.2 ms</p>"


def test_a_page_found_clean_is_not_read_again_and_a_changed_or_unrendered_one_is(fresh_cache, tmp_path, monkeypatch):
    build_cache.open_cache(tmp_path)
    assert unrendered.kept_first_unrendered(CLEAN_PAGE) is None
    build_cache.save()
    for cache in IN_PROCESS:
        cache.clear()
    unrendered_page = CLEAN_PAGE.replace("1.2 ms", "{{ median x y }}")
    found = unrendered.first_unrendered(unrendered_page)
    build_cache.open_cache(tmp_path)
    with monkeypatch.context() as patched:
        patched.setattr(unrendered, "first_unrendered", lambda *_: pytest.fail("read again"))
        assert unrendered.kept_first_unrendered(CLEAN_PAGE) is None
    for _ in range(2):  # refused in every build, its verdict kept or not
        assert found and unrendered.kept_first_unrendered(unrendered_page) == found
        build_cache.save()
        build_cache.open_cache(tmp_path)


def test_the_trees_fingerprint_sees_a_change_in_any_folder_and_lists_a_link_without_following_it(tmp_path):
    import os

    from tfspeedlab.site import site_data

    sitting = tmp_path / "results" / "cpu" / "coverage" / "2026-12-01T2030"
    sitting.mkdir(parents=True)
    (sitting / "small_ops.json").write_text("{}")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "big.json").write_text("{}")
    (tmp_path / "results" / "gpu").symlink_to(tmp_path / "elsewhere")
    before = site_data.fingerprint(tmp_path / "results")
    listed = [entry[0] for entry in before[1]]
    assert listed == ["cpu", "cpu/coverage", f"cpu/coverage/{sitting.name}",
                      f"cpu/coverage/{sitting.name}/small_ops.json", "gpu"]
    assert site_data.fingerprint(tmp_path / "results") == before
    (sitting / "small_ops.json").write_text("{} ")
    changed = site_data.fingerprint(tmp_path / "results")
    assert changed != before
    status = (sitting / "small_ops.json").stat()
    os.utime(sitting / "small_ops.json", ns=(status.st_atime_ns, status.st_mtime_ns + 1))  # same size, touched
    assert site_data.fingerprint(tmp_path / "results") != changed


# What someone with write access to the cache could plant in a kept chart, each published as it was.
EVIL = "https://evil.example/x"
PLANTED = {
    "a script": lambda svg: svg.replace("</svg>", "<script>alert(1)</script></svg>"),
    "an event handler": lambda svg: svg.replace("<svg ", '<svg onload="alert(1)" ', 1),
    "a foreignObject": lambda svg: svg.replace(
        "</svg>", '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject></svg>'),
    "a link out": lambda svg: svg.replace('xlink:href="#', f'xlink:href="{EVIL}#', 1),
    "a link element": lambda svg: svg.replace("</svg>", '<a href="javascript:alert(1)"><text>x</text></a></svg>'),
    "an animation": lambda svg: svg.replace("</svg>", '<set attributeName="onmouseover" to="alert(1)"/></svg>'),
    "a stylesheet instruction": lambda svg: svg.replace(
        "<svg ", f'<?xml-stylesheet href="{EVIL}.css"?>\n<svg ', 1),
    "an import in the styles": lambda svg: svg.replace("*{stroke-linejoin", f"@import url({EVIL}.css);*{{stroke-linejoin", 1),
    "a fetch in a style attribute": lambda svg: svg.replace('style="', f'style="fill: url({EVIL}.svg#p); ', 1),
    "an entity": lambda svg: svg.replace('svg11.dtd">', 'svg11.dtd" [<!ENTITY e "x">]>', 1),
    "not XML": lambda svg: svg.replace("</svg>", ""),
}


@pytest.mark.parametrize("plant", sorted(PLANTED))
def test_a_chart_planted_in_the_cache_is_drawn_again_not_published(fresh_cache, tmp_path, plant):
    results = synthetic_results()
    build_cache.open_cache(tmp_path)
    kept = build_cache.results_charts(bar_charts.time_per_call_svg, results)["light"]
    build_cache.save()
    drawn = build_cache.svg(kept)
    planted = PLANTED[plant](drawn)
    assert planted != drawn and chart_check.problem(planted) is not None
    kept.write_text(planted, encoding="utf-8")
    build_cache.open_cache(tmp_path)
    assert build_cache.svg(build_cache.results_charts(bar_charts.time_per_call_svg, results)["light"]) == drawn  # drawn again
    build_cache.save()
    assert kept.read_text(encoding="utf-8") == drawn  # and kept clean for the next build


def test_a_kept_chart_that_is_a_drawing_is_published_without_drawing_it_again(fresh_cache, tmp_path):
    results = synthetic_results()
    build_cache.open_cache(tmp_path)
    drawn = build_cache.svg(build_cache.results_charts(bar_charts.time_per_call_svg, results)["light"])
    build_cache.save()
    build_cache.open_cache(tmp_path)
    kept = build_cache.results_charts(lambda *_, **__: pytest.fail("drawn again"), results)
    assert build_cache.svg(kept["light"]) == drawn
