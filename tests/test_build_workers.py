"""The build's worker pool: jobs run in forked workers; a job its caller takes is left alone by ``finish``."""

import sys
import time
from concurrent.futures import CancelledError

import pytest

from tfspeedlab.site import build_workers

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers are forked")


@pytest.fixture
def one_worker(monkeypatch):
    monkeypatch.setenv(build_workers.WORKERS_VARIABLE, "1")
    build_workers.start(enabled=True)
    yield
    build_workers.finish(cancel=True)


def test_a_failed_job_taken_by_its_caller_does_not_fail_the_build(one_worker):
    failing = build_workers.submit(int, "not a number")
    working = build_workers.submit(int, "12")
    assert isinstance(build_workers.take(failing), ValueError)
    build_workers.finish()  # the other job ran through; the taken one is not raised again
    assert working.result() == 12


def test_a_job_not_started_is_taken_back(one_worker):
    busy = [build_workers.submit(time.sleep, 1) for _ in range(3)]  # the one worker's queue, full
    waiting = build_workers.submit(int, "12")
    assert isinstance(build_workers.take(waiting), CancelledError)
    build_workers.finish(cancel=True)
    assert busy[0].done()


def test_a_failed_job_nobody_took_fails_finish(one_worker):
    build_workers.submit(int, "not a number")
    with pytest.raises(ValueError):
        build_workers.finish()


def test_without_a_pool_the_caller_does_the_job(monkeypatch):
    build_workers.start(enabled=False)
    assert build_workers.submit(int, "12") is None and not build_workers.running()


def test_the_worker_count_is_configurable(monkeypatch):
    monkeypatch.setenv(build_workers.WORKERS_VARIABLE, "3")
    assert build_workers.worker_count() == 3
    monkeypatch.setenv(build_workers.WORKERS_VARIABLE, "none")
    assert build_workers.worker_count() >= 1

