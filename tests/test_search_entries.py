"""Material's search entries, kept page by page in the build cache: the index a build writes from kept
entries is byte for byte Material's own, a changed page is indexed again, and a kept entry that is not
what Material makes (planted in the cache) is never published."""

import json
from types import SimpleNamespace

import pytest

from conftest import fresh_build_cache
from material.plugins.search import plugin as search_plugin
from mkdocs.structure.toc import get_toc

from tfspeedlab.site import build_cache, search_entries

# A preface before the first heading: its entry takes the page's title.
HTML = """<p>What retracing costs.</p>
<h1 id="why-tf-function-is-slow">Why <code>tf.function</code> is slow<a class="headerlink" href="#x">¶</a></h1>
<p>Each call retraces: 3 &lt; 4 &amp; more.</p>
<h2 id="the-fix">The fix</h2>
<ul><li>Give an <code>input_signature</code>.</li></ul>
<h2 id="skipped" data-search-exclude>Skipped</h2><p>Never indexed.</p>
"""
TOC = [{"level": 1, "id": "why-tf-function-is-slow", "name": "Why tf.function is slow", "children": [
    {"level": 2, "id": "the-fix", "name": "The fix", "children": []}]}]


def a_page(content=HTML, url="retracing/", meta=None, toc=TOC):
    """What Material's index reads of a page."""
    return SimpleNamespace(content=content, toc=get_toc(toc) if toc is TOC else toc, url=url, title="Retracing",
                           meta=dict(meta or {}))


def search_index() -> search_plugin.SearchPlugin:
    """Material's search plugin after its on_config: a fresh index, as each build makes."""
    plugin = search_plugin.SearchPlugin()
    errors, warnings = plugin.load_config({"lang": ["en"], "separator": r"[\s\-]+", "pipeline": ["stemmer"]})
    assert not errors
    plugin.on_config(None)
    return plugin


def index_of(pages, kept: bool) -> str:
    """``search_index.json`` of ``pages``: Material's own, or with the entries kept between builds."""
    plugin = search_index()
    if kept:
        assert search_entries.install([object(), plugin])
    for page in pages:
        plugin.search_index.add_entry_from_context(page)
    return plugin.search_index.generate_search_index(None)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    yield from fresh_build_cache(tmp_path, monkeypatch, search_entries.SEARCH_ENTRIES)


def a_build(root, pages, kept=True) -> str:
    build_cache.open_cache(root)
    written = index_of(pages, kept)
    build_cache.save()
    search_entries.SEARCH_ENTRIES.clear()  # the next build is a new process: only the file remains
    return written


def not_parsed(monkeypatch):
    monkeypatch.setattr(search_plugin, "Parser", lambda *_, **__: pytest.fail("the page was parsed again"))


def test_the_next_build_replays_the_kept_entries_into_the_same_index(fresh_cache, tmp_path, monkeypatch):
    pages = [a_page(), a_page(url="", meta={"search": {"boost": 0.5}, "tags": ["tracing", 2]})]
    material = index_of(pages, kept=False)
    assert a_build(tmp_path, pages) == material
    assert len(json.loads((fresh_cache / build_cache.INDEX_FILE).read_text())["search"]) == 2
    not_parsed(monkeypatch)
    assert a_build(tmp_path, pages) == material


@pytest.mark.parametrize("change", [
    {"content": HTML.replace("retraces", "traces again")}, {"url": "tracing/"}, {"meta": {"search": {"boost": 2}}},
    {"meta": {"title": "Another title"}}, {"meta": {"tags": ["keras"]}},
    # An entry's location is its heading's TOC link (MkDocs' is always "#" and the id; another's may not be).
    {"toc": [SimpleNamespace(id="the-fix", url="#fix", children=[])]},
    {"content": HTML.replace("<h1 id", "<h1 data-search-exclude id")}])
def test_a_changed_page_is_indexed_again(fresh_cache, tmp_path, change):
    a_build(tmp_path, [a_page()])
    changed = a_page(**change)
    assert a_build(tmp_path, [changed]) == index_of([changed], kept=False) != index_of([a_page()], kept=False)


# What someone with write access to the cache could plant in a page's kept entries.
PLANTED = {
    "a script": lambda entry: {**entry, "text": entry["text"] + "<script>alert(1)</script>"},
    "an image with a handler": lambda entry: {**entry, "title": '<img src=x onerror="alert(1)">'},
    "a tag with attributes": lambda entry: {**entry, "text": '<p onclick="alert(1)">x</p>'},
    "a location off the page": lambda entry: {**entry, "location": "javascript:alert(1)"},
    "a location on another page": lambda entry: {**entry, "location": "other/#the-fix"},
    "a stray bracket": lambda entry: {**entry, "text": "<scr<p>ipt>"},
    "a field Material has not": lambda entry: {**entry, "html": "<b>x</b>"},
    "tags that are not text": lambda entry: {**entry, "tags": [{"a": 1}]},
    "a boost that is not a number": lambda entry: {**entry, "boost": "2"},
}


@pytest.mark.parametrize("plant", sorted(PLANTED))
def test_an_entry_planted_in_the_cache_is_not_published(fresh_cache, tmp_path, plant):
    page = a_page(meta={"tags": ["tracing"], "search": {"boost": 1}})
    material = a_build(tmp_path, [page])
    index_file = fresh_cache / build_cache.INDEX_FILE
    stored = json.loads(index_file.read_text())
    for item in stored["search"].values():
        entries = json.loads(item[0])
        item[0] = json.dumps([PLANTED[plant](entries[0]), *entries[1:]])
    index_file.write_text(json.dumps(stored))
    assert a_build(tmp_path, [page]) == material  # indexed again by Material
    kept = json.loads(index_file.read_text())["search"]
    assert [json.loads(item[0]) for item in kept.values()] == [json.loads(material)["docs"]]  # kept clean


def test_material_indexes_each_page_itself_where_the_key_cannot_cover_it(monkeypatch):
    plugin = search_index()
    monkeypatch.setattr(search_plugin, "jieba", object())  # Chinese segmentation, by dictionaries of its own
    assert not search_entries.install([plugin])
    monkeypatch.undo()
    assert not search_entries.install([object()])  # no Material search plugin
    del plugin.search_index
    assert not search_entries.install([plugin])  # not what this Material version is expected to have


def test_an_index_is_wrapped_once(fresh_cache, tmp_path, monkeypatch):
    plugin = search_index()
    build_cache.open_cache(tmp_path)
    assert search_entries.install([plugin]) and search_entries.install([plugin])
    plugin.search_index.add_entry_from_context(a_page())
    build_cache.save()
    assert plugin.search_index.generate_search_index(None) == index_of([a_page()], kept=False)
