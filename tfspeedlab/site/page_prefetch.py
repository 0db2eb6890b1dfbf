"""Pages' directive expansions made by the build's workers before those pages render.

A cold build's main process renders the pages one after the other, and expanding their directives
(the tables, verdicts and sentences drawn from ``results/``, with some 3,100 bootstrap resamplings)
was most of its time, while the workers (``build_workers``) finished their notebook pages and charts
before it. A page's expansion is keyed by everything it is made from (``page_expansions.key``: the
page's text and URL, and the data's digest), and an interval by the digest of its samples: whichever
process makes one, it is the same. So at the start of a build that keeps no interval (a fresh clone,
the first ``mkdocs serve`` build, a change of the code), each page with a directive goes to the
workers, the page rendered last first: they work from the end of the site towards its start while
the main process renders from the start, and they meet. A job expands its page as the page will
(``markdown_ext.expansion``, with a throwaway claims ledger) and returns what it made and computed
(``MEMOS``: the expansion, intervals, resamples and the other values keyed by content), not what its
worker had when it was forked.

Before a page renders (``wait``), the main process loads what each finished job returned, then takes
the page's own job: it waits for one that is running and takes back one not started (the page is
then expanded by the main process, as without workers). A page whose expansion was loaded states its
figures again in the build's ledger, so the cross-page check sees them, and reports a page that cannot
be expanded as it always did: a job's error is ignored. With no pool (``mkdocs serve``'s rebuilds, a
platform that does not fork), nothing is sent.

The jobs go after the notebook conversions and before the charts (``plugin.on_files``). Measured on
this project's 2-core VM (2026-12-07, cold builds taking turns, three each): 16.6 s median against
21.2 s without the jobs; the main process expanded the first 8 pages itself and loaded the rest.
"""

from __future__ import annotations

import os
from concurrent.futures import Future
from pathlib import Path

from mkdocs.utils import meta

from tfspeedlab.core.memo import Memo
from tfspeedlab.core.results import provenance
from tfspeedlab.core.stats import intervals
from tfspeedlab.fairness import drift
from tfspeedlab.render.context import ClaimsLedger
from tfspeedlab.site import build_workers, markdown_ext, page_expansions, site_data

EXTENSION = "tfspeedlab.site.markdown_ext"
# What a job returns, memo by memo, in this order: what the directives compute that is keyed by what it
# is computed from (the samples; a verdict's commit and files' bytes; a page's inputs), so that whichever
# process computed a value, it is the value: the intervals and resamples, the Runners page's freshness
# verdicts, the drift's per-comparison terms, and the page's expansion itself.
MEMOS: tuple[Memo, ...] = (intervals.INTERVAL_CACHE, intervals.RESAMPLED_CACHE, provenance.FRESHNESS_CACHE,
                           drift.LOG_AND_VARIANCE_CACHE, page_expansions.EXPANSIONS)


class Prefetch:
    """This build's jobs sent to the workers, by the page's source path under docs/."""

    jobs: dict[str, Future] = {}


class Forked:
    """In a worker: each of ``MEMOS``' keys when the build forked it (a job returns none of them)."""

    keys: tuple[frozenset, ...] = tuple(frozenset() for _ in MEMOS)


def _note_forked() -> None:
    Forked.keys = tuple(frozenset(memo.saved()) for memo in MEMOS)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_note_forked)


def _extension_settings(config) -> dict | None:
    """The directives' extension's settings in this build, or None when the build does not use it."""
    if EXTENSION not in (config.get("markdown_extensions") or ()):
        return None
    return dict((config.get("mdx_configs") or {}).get(EXTENSION) or {})


def start(config, pages: list) -> None:
    """Send the expansion of each of ``pages`` (MkDocs files, in the order they render) that holds a
    directive to the build's workers, the last first; only when no interval is kept (a cold build)."""
    Prefetch.jobs = {}
    settings = _extension_settings(config)
    if settings is None or not build_workers.running() or intervals.INTERVAL_CACHE.saved():
        return
    results_dir, repo_url = settings.get("results_dir") or None, settings.get("repo_url") or None
    for file in reversed(pages):
        try:
            text = Path(file.abs_src_path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # the page's own reading reports it
        if "{{" not in text:
            continue
        future = build_workers.submit(expand_page, file.abs_src_path, file.src_uri, file.url, results_dir, repo_url)
        if future is not None:
            Prefetch.jobs[file.src_uri] = future


def _load(future: Future) -> None:
    """What ``future``'s job computed, into this process's memos; nothing if it failed or was taken back."""
    if build_workers.take(future) is None:
        for memo, computed in zip(MEMOS, future.result()):
            memo.load(computed)


def wait(page) -> None:
    """Before ``page`` renders: what every finished job computed, loaded; the page's own job waited for,
    or taken back if not started (the page is then expanded by this process)."""
    page_uri = page.file.src_uri
    for uri, future in list(Prefetch.jobs.items()):
        if uri == page_uri or future.done():
            del Prefetch.jobs[uri]
            _load(future)


def stop() -> None:
    """The build's pages are rendered (or it failed): take back every job left (a page not rendered)."""
    jobs, Prefetch.jobs = Prefetch.jobs, {}
    for future in jobs.values():
        build_workers.take(future)


def expand_page(source: str, page_uri: str, page_url: str, results_dir: str | None,
                repo_url: str | None) -> tuple[dict, ...]:
    """In a worker: the directives of the page at ``source`` expanded as its page will be, and, memo by
    memo, the values this asked for that the worker did not have when it was forked."""
    for memo in MEMOS:
        memo.forget_asked()
    try:
        # The page's Markdown as MkDocs hands it to the extension (``Page.read_source``), so that the
        # expansion is kept under the key the page will ask for.
        text, _ = meta.get_data(Path(source).read_text(encoding="utf-8-sig"))
        data = site_data.load(site_data.results_root(results_dir))
        markdown_ext.expansion(data, page_uri, page_url, repo_url, text, ClaimsLedger())
    except (markdown_ext.DirectiveBuildError, site_data.SiteDataError, OSError, UnicodeDecodeError):
        pass  # the page's own expansion reports it; what was computed before it is the page's all the same
    # Any other exception (a bug) is the job's outcome, which ``wait`` drops: the page's own expansion
    # raises it again, with its traceback.
    found = []
    for memo, forked in zip(MEMOS, Forked.keys):
        values = memo.saved()
        found.append({key: values[key] for key in memo.asked - forked if key in values})
    return tuple(found)
