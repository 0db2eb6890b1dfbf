"""A notebook page converted by the build's workers (``notebook_prefill``) is the page mkdocs-jupyter
makes by itself: the same content and table of contents, read from the same cache file, and the
page's process converts nothing."""

import json
import sys
from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page

from conftest import REPO
from tfspeedlab.site import build_workers, notebook_prefill

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers are forked")

NOTEBOOKS = ("small_ops", "matmul")


@pytest.fixture
def site(tmp_path, monkeypatch):
    """The site's configuration, built in ``tmp_path`` (mkdocs-jupyter's cache is relative to it)."""
    monkeypatch.chdir(tmp_path)
    config = load_config(str(REPO / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    yield config
    build_workers.finish(cancel=True)
    notebook_prefill.Prefill.jobs = {}


def jupyter(config):
    plugin = notebook_prefill.jupyter_plugin(config)
    assert plugin is not None, "mkdocs-jupyter's plugin is not the one notebook_prefill reads"
    return plugin


def notebook_file(config, name: str) -> File:
    return File(f"notebooks/{name}.ipynb", src_dir=str(REPO), dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls)


def rendered(config, name: str) -> tuple[str, list]:
    """The page of notebook ``name`` as a build renders it: its content and TOC."""
    plugin = jupyter(config)
    plugin.on_pre_build(config)
    page = Page(None, notebook_file(config, name), config)
    notebook_prefill.wait(page)
    plugin.on_pre_page(page, config, None)
    page.render(config, None)
    return page.content, [(item.title, item.id, item.level) for item in page.toc]


def cache_files(config) -> dict[str, dict]:
    """mkdocs-jupyter's cache: each file's name and what it holds."""
    return {path.name: json.loads(path.read_text(encoding="utf-8"))
            for path in Path(jupyter(config).config["cache_dir"]).glob("*.json")}


def converting_here(monkeypatch) -> list[str]:
    """The notebooks mkdocs-jupyter converts in this process from now on."""
    from mkdocs_jupyter import convert

    converted = []
    nb2html = convert.nb2html

    def counting(path, *args, **kwargs):
        converted.append(Path(path).stem)
        return nb2html(path, *args, **kwargs)

    monkeypatch.setattr(convert, "nb2html", counting)
    return converted


def test_a_notebook_page_converted_by_a_worker_equals_the_page_converted_by_itself(site, tmp_path, monkeypatch):
    alone = {name: rendered(site, name) for name in NOTEBOOKS}
    kept_alone = cache_files(site)
    for path in Path(jupyter(site).config["cache_dir"]).glob("*.json"):
        path.unlink()  # a cold build's cache: empty

    build_workers.start(enabled=True)
    notebook_prefill.start(site, [notebook_file(site, name) for name in NOTEBOOKS])
    assert set(notebook_prefill.Prefill.jobs) == {str(REPO / "notebooks" / f"{name}.ipynb") for name in NOTEBOOKS}
    converted = converting_here(monkeypatch)  # after the fork: the workers' conversions are not counted
    through_workers = {name: rendered(site, name) for name in NOTEBOOKS}
    build_workers.finish()

    assert converted == []  # each page read the workers' file: nothing converted twice
    assert through_workers == alone
    assert cache_files(site) == kept_alone and len(kept_alone) == len(NOTEBOOKS)
    assert not [path for path in Path(jupyter(site).config["cache_dir"]).iterdir() if not path.name.endswith(".json")]


def test_nothing_is_sent_when_the_cache_is_off_or_a_notebook_is_cached(site, monkeypatch):
    build_workers.start(enabled=True)
    monkeypatch.setitem(jupyter(site).config, "cache", False)
    notebook_prefill.start(site, [notebook_file(site, "small_ops")])
    assert notebook_prefill.Prefill.jobs == {}

    monkeypatch.setitem(jupyter(site).config, "cache", True)
    rendered(site, "small_ops")  # converted here, into the cache
    notebook_prefill.start(site, [notebook_file(site, "small_ops"), notebook_file(site, "matmul")])
    assert set(notebook_prefill.Prefill.jobs) == {str(REPO / "notebooks" / "matmul.ipynb")}


def test_without_workers_a_page_converts_itself(site, monkeypatch):
    build_workers.start(enabled=False)  # mkdocs serve's rebuilds
    notebook_prefill.start(site, [notebook_file(site, "small_ops")])
    assert notebook_prefill.Prefill.jobs == {}
    converted = converting_here(monkeypatch)
    content, _ = rendered(site, "small_ops")
    assert converted == ["small_ops"] and content and len(cache_files(site)) == 1
