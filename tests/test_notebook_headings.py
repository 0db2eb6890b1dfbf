"""A notebook page's headings (its TOC), kept in the build cache by the page's HTML: the next build
reads the same headings without parsing the page again, a changed page is read again, and a kept id
that is not plainly on the page (planted in the cache: a TOC prints ids unescaped) is never used."""

import json

import pytest

from conftest import fresh_build_cache
from tfspeedlab.site import build_cache, notebook_pages

NOTEBOOK_HTML = """<style>h2 { color: red }</style><script>var s = "<h2 id='not-a-heading'>";</script>
<div class="jp-Cell">
<h1 id="what-a-call-costs">What a call costs<a class="anchor-link" href="#what-a-call-costs">¶</a></h1>
<h2 id="run-it">Run it: <code>tf.function</code></h2><p>Text.</p></div>
"""


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    yield from fresh_build_cache(tmp_path, monkeypatch, notebook_pages.NOTEBOOK_HEADINGS)


def a_build(root, page_html):
    build_cache.open_cache(root)
    found = notebook_pages.notebook_headings(page_html)
    build_cache.save()
    notebook_pages.NOTEBOOK_HEADINGS.clear()  # the next build is a new process: only the file remains
    return found


def not_parsed(monkeypatch):
    monkeypatch.setattr(notebook_pages, "headings", lambda *_: pytest.fail("the page was parsed again"))


def test_the_next_build_reads_the_kept_headings(fresh_cache, tmp_path, monkeypatch):
    parsed = notebook_pages.headings(NOTEBOOK_HTML)
    assert [heading.id for heading in parsed] == ["what-a-call-costs", "run-it"]
    assert a_build(tmp_path, NOTEBOOK_HTML) == parsed
    not_parsed(monkeypatch)
    assert a_build(tmp_path, NOTEBOOK_HTML) == parsed


def test_a_changed_page_is_read_again(fresh_cache, tmp_path):
    a_build(tmp_path, NOTEBOOK_HTML)
    changed = NOTEBOOK_HTML.replace('<h2 id="run-it">Run it', '<h2 id="measure-it">Measure it')
    assert a_build(tmp_path, changed) == notebook_pages.headings(changed) != notebook_pages.headings(NOTEBOOK_HTML)


@pytest.mark.parametrize("planted", ['run-it" onmouseover="alert(1)', "not-on-the-page", "not-a-heading x",
                                     "<script>"])
def test_a_kept_id_not_plainly_on_the_page_is_read_again(fresh_cache, tmp_path, planted):
    a_build(tmp_path, NOTEBOOK_HTML)
    index_file = fresh_cache / build_cache.INDEX_FILE
    stored = json.loads(index_file.read_text())
    for item in stored["headings"].values():
        item[0][1][1] = planted
    index_file.write_text(json.dumps(stored))
    assert a_build(tmp_path, NOTEBOOK_HTML) == notebook_pages.headings(NOTEBOOK_HTML)
    kept = json.loads(index_file.read_text())["headings"]
    assert [item[0][1][1] for item in kept.values()] == ["run-it"]  # kept clean for the next build


@pytest.mark.parametrize("corrupt", [[[7, "run-it", "Run it"]], [["1", "run-it", "Run it"]], [[1, "run-it"]], "text"])
def test_corrupt_kept_headings_are_ignored(fresh_cache, tmp_path, corrupt):
    a_build(tmp_path, NOTEBOOK_HTML)
    index_file = fresh_cache / build_cache.INDEX_FILE
    stored = json.loads(index_file.read_text())
    for item in stored["headings"].values():
        item[0] = corrupt
    index_file.write_text(json.dumps(stored))
    build_cache.open_cache(tmp_path)
    assert notebook_pages.NOTEBOOK_HEADINGS.saved() == {}
    assert notebook_pages.notebook_headings(NOTEBOOK_HTML) == notebook_pages.headings(NOTEBOOK_HTML)
