"""A chart a worker is still drawing when MkDocs copies the site's files is copied at the build's end,
drawn; without workers it is copied at once. And a build asks glibc to keep the memory it frees."""

import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tfspeedlab.core.results.store import write_text_atomic
from tfspeedlab.site import build_memory, build_workers, chart_drawing

SVG = "<svg xmlns='http://www.w3.org/2000/svg'/>"


def _draw_later(path: str, delay: float) -> None:
    time.sleep(delay)
    write_text_atomic(Path(path), SVG)


def _chart(tmp_path: Path) -> chart_drawing.ChartFile:
    config = SimpleNamespace(site_dir=str(tmp_path / "site"), use_directory_urls=True,
                             plugins=SimpleNamespace(_current_plugin="tfspeedlab"))
    return chart_drawing.ChartFile.generated(config, "assets/charts/x.svg", abs_src_path=str(tmp_path / "x.svg"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers are forked")
def test_a_chart_being_drawn_is_copied_once_its_worker_is_through(tmp_path, monkeypatch):
    monkeypatch.setenv(build_workers.WORKERS_VARIABLE, "1")
    build_workers.start(enabled=True)
    try:
        build_workers.submit(_draw_later, str(tmp_path / "x.svg"), 0.5)
        chart = _chart(tmp_path)
        chart.copy_file()  # MkDocs copying the files: the SVG is not drawn yet
        assert not Path(chart.abs_dest_path).exists()
        chart_drawing.copy_drawn()  # on_post_build
    finally:
        build_workers.finish(cancel=True)
    assert Path(chart.abs_dest_path).read_text(encoding="utf-8") == SVG
    assert chart_drawing.Deferred.copies == []


def test_without_workers_a_chart_is_copied_at_once(tmp_path):
    build_workers.finish(cancel=True)
    write_text_atomic(tmp_path / "x.svg", SVG)
    chart = _chart(tmp_path)
    chart.copy_file()
    assert Path(chart.abs_dest_path).read_text(encoding="utf-8") == SVG


def test_a_failed_build_makes_no_held_back_copy(tmp_path):
    chart_drawing.Deferred.copies.append((_chart(tmp_path), False))
    chart_drawing.drop_copies()
    chart_drawing.copy_drawn()
    assert not (tmp_path / "site").exists()


def test_a_build_keeps_freed_memory_where_glibc_is(monkeypatch):
    import platform
    if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
        assert build_memory.keep_freed_memory()
    monkeypatch.setattr(sys, "platform", "darwin")
    assert not build_memory.keep_freed_memory()


def test_the_plugin_tunes_the_allocator_before_the_build(monkeypatch, tmp_path):
    from mkdocs.config import load_config

    from conftest import REPO
    from tfspeedlab.site import build_cache, plugin
    called = []
    monkeypatch.setattr(build_memory, "keep_freed_memory", lambda: called.append(True))
    monkeypatch.setenv("TFSPEEDLAB_CACHE", str(tmp_path / "cache"))
    results_plugin = plugin.ResultsPlugin()
    results_plugin.load_config({})
    results_plugin.on_config(load_config(str(REPO / "mkdocs.yml"), site_dir=str(tmp_path / "site")))
    build_cache.save()
    assert called == [True]
