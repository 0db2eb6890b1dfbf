"""Pages expanded by the build's workers (``page_prefetch``) are the pages expanded by the main process:
they come out byte for byte the same, the build keeps the same intervals, and the main process expands
no page and computes no interval that the workers gave it."""

import os
import pickle
import subprocess
import sys
import textwrap

import pytest
from mkdocs.config import load_config
from mkdocs.structure.files import File

from conftest import REPO
from tfspeedlab.core.stats import intervals
from tfspeedlab.site import build_workers, page_prefetch

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers are forked")

# Pages with many intervals (one of them the re-measures' coverage and drift), in the order a build
# renders them.
PAGES = ("fair-timing.md", "predict-loop.md", "tf1-vs-tf2.md")

# A build's pages rendered in a process of their own, as MkDocs renders them (the plugin's ``on_pre_page``
# waits for the page's job): a fresh process, so that nothing another test computed is found here.
RENDER = textwrap.dedent('''
    import concurrent.futures, os, pickle, sys, time
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files
    from mkdocs.structure.pages import Page
    from tfspeedlab.core.stats import intervals
    from tfspeedlab.site import build_workers, page_prefetch

    mode, pages, out, site_dir = sys.argv[1], sys.argv[2].split(","), sys.argv[3], sys.argv[4]

    def blocked(until):
        while not os.path.exists(until):
            time.sleep(0.05)

    config = load_config("mkdocs.yml", site_dir=site_dir)
    files = get_files(config)
    page_files = [files.get_file_from_path(path) for path in pages]
    if mode != "alone":
        build_workers.start(enabled=True)
        if mode == "busy":  # the only worker busy until every page has rendered: no job starts in time
            # A job the pool has moved into its workers' call queue counts as running: it can no longer
            # be cancelled, and taking it waits until a worker runs it, which a blocker would keep from
            # happening until the page renders (a deadlock, the cause of a hang in CI). So the blockers
            # fill the worker and its whole call queue: the page's job stays in the pool, cancellable.
            from concurrent.futures.process import EXTRA_QUEUED_CALLS
            for _ in range(build_workers.worker_count() * 2 + EXTRA_QUEUED_CALLS):
                build_workers.submit(blocked, out + ".rendered")
        page_prefetch.start(config, page_files)
        if mode == "prefetch":  # every job done before the first page renders
            concurrent.futures.wait(list(page_prefetch.Prefetch.jobs.values()))
    jobs = sorted(page_prefetch.Prefetch.jobs)

    # From here on (after the fork): what this process computes, and what it is given.
    computed, given = [], []
    memo, ask, load = intervals.INTERVAL_CACHE, intervals.INTERVAL_CACHE.get, intervals.INTERVAL_CACHE.load

    def counting(key, compute, usable=None):
        if key not in memo:
            computed.append(key)
        return ask(key, compute, usable)

    def loading(kept):
        given.extend(kept)
        load(kept)

    memo.get, memo.load = counting, loading
    from tfspeedlab.site import markdown_ext
    expanded, expand_apart = [], markdown_ext.expand_apart

    def expanding(text, context):
        expanded.append(context.page_uri)
        return expand_apart(text, context)

    markdown_ext.expand_apart = expanding
    html = {}
    for file in page_files:
        page = Page(None, file, config)
        page_prefetch.wait(page)
        page.read_source(config)
        page.render(config, files)
        html[file.src_uri] = page.content
    open(out + ".rendered", "w").close()
    page_prefetch.stop()
    build_workers.finish(cancel=True)
    resamples = {key: value.tobytes() for key, value in intervals.RESAMPLED_CACHE.saved().items()}
    with open(out, "wb") as kept:
        pickle.dump({"html": html, "intervals": memo.saved(), "resamples": resamples, "computed": computed,
                     "given": given, "jobs": jobs, "expanded": expanded}, kept)
''')


def rendered(tmp_path, mode: str, pages=PAGES, **env) -> dict:
    out = tmp_path / f"{mode}.pickle"
    done = subprocess.run([sys.executable, "-c", RENDER, mode, ",".join(pages), str(out), str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, build_workers.WORKERS_VARIABLE: "2", "NO_MKDOCS_2_WARNING": "1", **env})
    assert done.returncode == 0, done.stderr[-4000:]
    return pickle.loads(out.read_bytes())


def test_pages_with_the_workers_intervals_are_the_pages_computed_alone(tmp_path):
    alone = rendered(tmp_path, "alone")
    prefetched = rendered(tmp_path, "prefetch")

    assert prefetched["jobs"] == sorted(PAGES)  # each page had a job
    assert prefetched["html"] == alone["html"] and all(alone["html"].values())
    assert prefetched["intervals"] == alone["intervals"]  # the same intervals, kept for the next build
    assert prefetched["resamples"] == alone["resamples"]
    # The main process computed none of them: every interval its pages asked for was the workers'.
    assert len(alone["computed"]) == len(alone["intervals"]) > 0
    assert prefetched["computed"] == []
    assert alone["expanded"] == list(PAGES) and prefetched["expanded"] == []  # every page's expansion loaded
    assert set(prefetched["given"]) == set(alone["intervals"])


def test_a_job_not_started_when_its_page_comes_is_taken_back_and_the_page_computes_its_intervals(tmp_path):
    alone = rendered(tmp_path, "alone", pages=PAGES[-1:])
    busy = rendered(tmp_path, "busy", pages=PAGES[-1:], **{build_workers.WORKERS_VARIABLE: "1"})

    assert busy["jobs"] == [PAGES[-1]] and busy["given"] == [] and busy["expanded"] == [PAGES[-1]]
    assert busy["html"] == alone["html"]
    assert busy["computed"] == alone["computed"] and busy["intervals"] == alone["intervals"]


@pytest.fixture
def site(tmp_path):
    """The site's configuration; this process's intervals emptied before and after (a cold build)."""
    for memo in page_prefetch.MEMOS:
        memo.clear()
    yield load_config(str(REPO / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    page_prefetch.stop()
    build_workers.finish(cancel=True)
    for memo in page_prefetch.MEMOS:
        memo.clear()


def page_file(config, folder, name: str) -> File:
    return File(name, src_dir=str(folder), dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls)


def test_a_job_returns_what_it_computed_before_a_directive_that_fails(site, tmp_path):
    (tmp_path / "broken.md").write_text('{{ factor fair_timing "right way" "no sync" }}\n\n{{ factor no_such x y }}\n',
                                        encoding="utf-8")
    found = page_prefetch.expand_page(str(tmp_path / "broken.md"), "broken.md", "broken/", None, None)

    kept = intervals.INTERVAL_CACHE.saved()
    assert len(kept) == 1 and found[0] == kept  # the first directive's interval, though the second failed
    assert len(found) == len(page_prefetch.MEMOS)


def test_a_job_returns_nothing_its_worker_had_when_it_was_forked(site, tmp_path):
    (tmp_path / "page.md").write_text('{{ factor fair_timing "right way" "no sync" }}\n', encoding="utf-8")
    page_prefetch.expand_page(str(tmp_path / "page.md"), "page.md", "page/", None, None)
    page_prefetch.Forked.keys = tuple(frozenset(memo.saved()) for memo in page_prefetch.MEMOS)
    try:
        again = page_prefetch.expand_page(str(tmp_path / "page.md"), "page.md", "page/", None, None)
    finally:
        page_prefetch.Forked.keys = tuple(frozenset() for _ in page_prefetch.MEMOS)
    assert again == tuple({} for _ in page_prefetch.MEMOS)


def test_nothing_is_sent_without_workers_or_when_intervals_are_kept(site):
    pages = [page_file(site, REPO / "docs", name) for name in PAGES]
    build_workers.start(enabled=False)  # mkdocs serve's rebuilds
    page_prefetch.start(site, pages)
    assert page_prefetch.Prefetch.jobs == {}

    build_workers.start(enabled=True)
    intervals.INTERVAL_CACHE.load({"kept by an earlier build": (1.0, 2.0)})  # a warm build
    page_prefetch.start(site, pages)
    assert page_prefetch.Prefetch.jobs == {}

    intervals.INTERVAL_CACHE.clear()  # a cold one: the last page first, a page without a directive left out
    page_prefetch.start(site, pages + [page_file(site, REPO / "docs", "reproduce.md")])
    assert list(page_prefetch.Prefetch.jobs) == list(reversed(PAGES))  # by the page's path under docs/
