"""The build's worker processes: work a build needs later done beside the pages while they render.

A cold build's main process renders every page, one after the other, and the site's other work waits
for no page: nbconvert's conversion of a notebook page can be done before that page renders
(``notebook_prefill``), and a chart is needed only once every page is rendered, when MkDocs copies
the files (``chart_drawing``). Such work goes to processes forked from the build (they inherit what
it has imported and configured), in two lanes:

* ``PAGES``: work a page waits for, on one worker per core but the main process's;
* ``CHARTS``: the charts, which nothing waits for until every page is rendered, on one worker of
  their own, in the order they are sent (as before there were lanes): work for a page, whenever it
  is sent, never queues behind them.

``finish`` waits for every job before MkDocs copies the files (``on_env``). On two cores the three
processes share them while the pages render; once the notebook pages are converted, the chart worker
and the main process have a core each.

On a platform that does not fork, and in ``mkdocs serve``'s rebuilds (a server's threads and
``fork`` do not mix), there are no workers: ``submit`` returns None and the caller does the work
itself, as before.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor

PAGES = "pages"
CHARTS = "charts"
# How many workers the pages' lane has, where not one per core but the main process's.
WORKERS_VARIABLE = "TFSPEEDLAB_BUILD_WORKERS"


class Workers:
    """This build's pools by lane, if any, and the jobs sent to them."""

    pools: dict[str, ProcessPoolExecutor] = {}
    pending: list[Future] = []


def worker_count() -> int:
    """Workers of the pages' lane: ``$TFSPEEDLAB_BUILD_WORKERS``, else one per core but one (the main
    process's)."""
    configured = os.environ.get(WORKERS_VARIABLE, "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, (os.cpu_count() or 1) - 1)


def start(enabled: bool) -> None:
    """Send jobs to worker processes from now on, where ``enabled`` and the platform forks."""
    finish(cancel=True)
    if enabled and sys.platform.startswith("linux"):
        fork = multiprocessing.get_context("fork")
        Workers.pools = {PAGES: ProcessPoolExecutor(max_workers=worker_count(), mp_context=fork),
                         CHARTS: ProcessPoolExecutor(max_workers=1, mp_context=fork)}


def running() -> bool:
    return bool(Workers.pools)


def submit(lane: str, job: Callable, *args) -> Future | None:
    """``job(*args)`` in a worker of ``lane``, its future kept for ``finish``; None when there are no
    workers (the caller does the job itself)."""
    pool = Workers.pools.get(lane)
    if pool is None:
        return None
    future = pool.submit(job, *args)
    Workers.pending.append(future)
    return future


def take(future: Future) -> BaseException | None:
    """One job's outcome, once it is done, and ``finish`` leaves it alone: None if it ran through,
    else its exception, for its caller to deal with. A job not started yet is cancelled instead
    (a ``CancelledError``): its caller does the job itself."""
    if future in Workers.pending:
        Workers.pending.remove(future)
    if future.cancel():
        return CancelledError()
    return future.exception()


def finish(cancel: bool = False) -> None:
    """Wait for every job sent to the workers (a job's exception is raised here), and close them; with
    ``cancel``, drop the jobs not started instead."""
    pending, Workers.pending = Workers.pending, []
    pools, Workers.pools = Workers.pools, {}
    try:
        if not cancel:
            for future in pending:
                future.result()
    finally:
        for pool in pools.values():
            pool.shutdown(wait=True, cancel_futures=cancel)
