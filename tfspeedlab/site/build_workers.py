"""The build's worker processes: work a build needs later done beside the pages while they render.

A cold build's main process renders every page, one after the other, and the site's other work waits
for no page: nbconvert's conversion of a notebook page can be done before that page renders
(``notebook_prefill``), so can the bootstrap intervals a page's directives ask for
(``page_prefetch``), and a chart is needed only once every page is rendered, when MkDocs copies
the files (``chart_drawing``). Such work goes to a pool of processes forked from the build (they
inherit what it has imported and configured), in the order it is needed: the plugin sends a page's
work before any chart's, and the workers take jobs first come, first served. ``finish`` waits for
every job before MkDocs copies the files (``on_env``).

One worker per core: on two cores, the workers' jobs (36 charts, 27 notebook pages) took more CPU
than the main process's pages. Measured on cold builds (on a machine other builds shared, so only
roughly): with one worker the main process waited 4.5 s for the charts at ``on_env``; with two (the
three processes sharing the cores), 0.02 s; with the charts on a worker of their own and the
notebook pages on another, 5.6 s (the notebooks' worker idled once they were done).

On a platform that does not fork, and in ``mkdocs serve``'s rebuilds (a server's threads and
``fork`` do not mix), there is no pool: ``submit`` returns None and the caller does the work
itself, as before.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor

# How many workers, where not one per core.
WORKERS_VARIABLE = "TFSPEEDLAB_BUILD_WORKERS"


class Workers:
    """The open pool of this build, if any, and the jobs sent to it."""

    pool: ProcessPoolExecutor | None = None
    pending: list[Future] = []


def worker_count() -> int:
    """Worker processes for a build: ``$TFSPEEDLAB_BUILD_WORKERS``, else one per core."""
    configured = os.environ.get(WORKERS_VARIABLE, "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, os.cpu_count() or 1)


def start(enabled: bool) -> None:
    """Send jobs to worker processes from now on, where ``enabled`` and the platform forks."""
    finish(cancel=True)
    if enabled and sys.platform.startswith("linux"):
        Workers.pool = ProcessPoolExecutor(max_workers=worker_count(), mp_context=multiprocessing.get_context("fork"))


def running() -> bool:
    return Workers.pool is not None


def submit(job: Callable, *args) -> Future | None:
    """``job(*args)`` in a worker, its future kept for ``finish``; None when there is no pool (the
    caller does the job itself)."""
    if Workers.pool is None:
        return None
    future = Workers.pool.submit(job, *args)
    Workers.pending.append(future)
    return future


def take(future: Future) -> BaseException | None:
    """One job's outcome, once it is done, and ``finish`` leaves it alone: None if it ran through,
    else its exception, for its caller to deal with. A job still in the pool is cancelled instead
    (a ``CancelledError``): its caller does the job itself. One the pool has moved into its workers'
    call queue (a few jobs ahead of the workers) counts as running and is waited for: no worker job
    waits on the main process, so it runs once a worker is through with the job before it."""
    if future in Workers.pending:
        Workers.pending.remove(future)
    if future.cancel():
        return CancelledError()
    return future.exception()


def finish(cancel: bool = False) -> None:
    """Wait for every job sent to the pool (a job's exception is raised here), and close it; with
    ``cancel``, drop the jobs not started instead."""
    pending, Workers.pending = Workers.pending, []
    pool, Workers.pool = Workers.pool, None
    try:
        if not cancel:
            for future in pending:
                future.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=cancel)
