"""Run one example's worker in a child process: under a timeout, with interrupts forwarded, and
an outcome that says truthfully what happened to its results file.

The child gets a session of its own, so that a timeout can stop it together
with the process groups it starts, and so that Ctrl-C reaches it only through
here: the supervisor forwards the interrupt, waits for the child to unwind
(its finally blocks drop the staging folder), and only then reports.
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tfspeedlab.results.store import results_path, write_failure
from tfspeedlab.run import launch, machine
from tfspeedlab.run.catalog import ExampleScript
from tfspeedlab.run.worker import EXIT_FAILED, EXIT_NO_GPU, EXIT_SKIPPED

# Defaults per example: far above the slowest example here (a full tf1_vs_tf2,
# about 50 minutes on 2 cores; a quick one, 90 seconds), far below a CI job's limit.
TIMEOUT_FULL_S = 2 * 60 * 60
TIMEOUT_QUICK_S = 15 * 60
# How long a child gets to unwind after an interrupt or a timeout before it is killed.
GRACE_S = 30


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) while an example ran; ``outcome`` says what became of its results."""

    def __init__(self, outcome: str) -> None:
        super().__init__(outcome)
        self.outcome = outcome


@dataclass(frozen=True)
class Outcome:
    code: int
    status: str  # for the summary: "ok", "skipped (…)", "FAILED (…)"

    @property
    def no_gpu(self) -> bool:
        return self.code == EXIT_NO_GPU


def default_timeout(quick: bool) -> float:
    return TIMEOUT_QUICK_S if quick else TIMEOUT_FULL_S


def run_example(script: ExampleScript, worker_argv: list[str], out: Path, runner: str, timeout_s: float,
                fork: bool = False) -> Outcome:
    """Run the worker for ``script`` with ``worker_argv`` (forked from this process if ``fork``
    and ``launch`` allows it) and say how it ended."""
    watched = [results_path(out, name, script.name) for name in ("cpu", "gpu")]
    before = [_stamp(path) for path in watched]
    child = launch.start(worker_argv, fork=fork, new_session=True)
    try:
        code = child.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _stop(child, signal.SIGTERM)
        record = write_failure(out, machine.resolve_runner(runner), script.name,
                               f"TimeoutError: no result after {timeout_s:g} s; the example was stopped",
                               "", machine.utc_now())
        return Outcome(EXIT_FAILED, f"FAILED (timed out after {timeout_s:g} s; recorded in {record})")
    except KeyboardInterrupt:
        _stop(child, signal.SIGINT)
        changed = [path for path, stamp in zip(watched, before) if _stamp(path) != stamp]
        raise Interrupted(
            f"interrupted; it had already written {changed[0]}" if changed
            else "interrupted (its previous results, if any, are untouched)"
        ) from None
    if code == 0:
        return Outcome(code, "ok")
    if code == EXIT_SKIPPED:
        return Outcome(code, "skipped (see the message above; earlier results untouched)")
    if code == EXIT_NO_GPU:
        return Outcome(code, "FAILED (no GPU)")
    return Outcome(code, "FAILED")


def _stop(child: subprocess.Popen | launch.ForkedChild, first_signal: int) -> None:
    """Signal the child's whole session, give it GRACE_S to unwind, then kill what is left."""
    _signal_group(child, first_signal)
    try:
        child.wait(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        _signal_group(child, signal.SIGKILL)
        child.wait()


def _signal_group(child: subprocess.Popen | launch.ForkedChild, number: int) -> None:
    try:
        os.killpg(child.pid, number)
    except ProcessLookupError:
        pass


def _stamp(path: Path) -> tuple[int, int] | None:
    """What identifies one version of a file: a rename in place gives a new inode."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_ino, status.st_mtime_ns
