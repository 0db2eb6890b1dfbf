"""Run examples' workers in child processes: under a timeout, with interrupts forwarded, and
an outcome that says truthfully what happened to each one's results file.

A full run, whose numbers are published, runs one example at a time: two at
once would share the cores they are timed on. A quick run, a smoke test whose
times are not published, may run several at once (``jobs``).

The child gets a session of its own, so that a timeout can stop it together
with the process groups it starts, and so that Ctrl-C reaches it only through
here: the supervisor forwards the interrupt, waits for the child to unwind
(its finally blocks drop the staging folder), and only then reports.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tfspeedlab.core.results.store import results_path, write_failure
from tfspeedlab.harness import launch, machine
from tfspeedlab.harness.catalog import ExampleScript
from tfspeedlab.harness.exits import EXIT_FAILED, EXIT_NO_GPU, EXIT_SKIPPED
from tfspeedlab.harness.progress import RunProgress

# Defaults per example: far above the slowest example here (a full tf1_vs_tf2,
# about 50 minutes on 2 cores; a quick one, 90 seconds), far below a CI job's limit.
TIMEOUT_FULL_S = 2 * 60 * 60
TIMEOUT_QUICK_S = 15 * 60
# How long a child gets to unwind after an interrupt or a timeout before it is killed.
GRACE_S = 30
# How often the supervisor looks at its running examples; far below any example's run time.
_POLL_S = 0.05


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) while examples ran; ``outcomes`` says, per example that was running,
    what became of its results."""

    def __init__(self, outcomes: dict[str, str]) -> None:
        super().__init__("; ".join(f"{name}: {text}" for name, text in outcomes.items()))
        self.outcomes = outcomes


@dataclass(frozen=True)
class Outcome:
    code: int
    status: str  # for the summary: "ok", "skipped (…)", "FAILED (…)"

    @property
    def no_gpu(self) -> bool:
        return self.code == EXIT_NO_GPU


def default_timeout(quick: bool) -> float:
    return TIMEOUT_QUICK_S if quick else TIMEOUT_FULL_S


@dataclass
class Running:
    """One example's worker, started and not yet reported."""

    script: ExampleScript
    child: subprocess.Popen | launch.ForkedChild
    watched: list[Path]
    before: list[tuple[int, int] | None]
    started: float
    deadline: float

    def written(self) -> Path | None:
        """A results file this run has replaced or created so far."""
        return next((path for path, stamp in zip(self.watched, self.before) if _stamp(path) != stamp), None)


def start_example(script: ExampleScript, worker_argv: list[str], out: Path, timeout_s: float,
                  fork: bool = False) -> Running:
    """Start the worker for ``script`` (forked from this process if ``fork`` and ``launch`` allows it)."""
    watched = [results_path(out, name, script.name) for name in ("cpu", "gpu")]
    before = [_stamp(path) for path in watched]
    child = launch.start(worker_argv, fork=fork, new_session=True)
    now = time.monotonic()
    return Running(script, child, watched, before, now, now + timeout_s)


def finished(running: Running, out: Path, runner: str, timeout_s: float) -> Outcome | None:
    """The example's outcome once its worker has ended (or been stopped at its deadline); None before."""
    code = running.child.poll()
    if code is None:
        if time.monotonic() < running.deadline:
            return None
        _stop(running.child, signal.SIGTERM)
        record = write_failure(out, machine.resolve_runner(runner), running.script.name,
                               f"TimeoutError: no result after {timeout_s:g} s; the example was stopped",
                               "", machine.utc_now())
        return Outcome(EXIT_FAILED, f"FAILED (timed out after {timeout_s:g} s; recorded in {record})")
    if code == 0:
        return Outcome(code, "ok")
    if code == EXIT_SKIPPED:
        return Outcome(code, "skipped (see the message above; earlier results untouched)")
    if code == EXIT_NO_GPU:
        return Outcome(code, "FAILED (no GPU)")
    return Outcome(code, "FAILED")


def interrupt(running: Running, *, already_signalled: bool = False) -> str:
    """Forward Ctrl-C to the example, wait for it to unwind, and say what became of its results.

    A second interrupt would cut its clean-up short: ``already_signalled`` only waits."""
    if already_signalled:
        _await(running.child)
    else:
        _stop(running.child, signal.SIGINT)
    written = running.written()
    return (f"interrupted; it had already written {written}" if written
            else "interrupted (its previous results, if any, are untouched)")


def run_examples(scripts: list[ExampleScript], worker_argv: Callable[[ExampleScript], list[str]], out: Path,
                 runner: str, timeout_s: float, *, fork: bool = False, jobs: int = 1,
                 announce: Callable[[ExampleScript], None] = lambda script: None,
                 progress: RunProgress | None = None,
                 ) -> Iterator[tuple[ExampleScript, Outcome, float]]:
    """Run every example, at most ``jobs`` at a time, yielding (script, outcome, seconds) as each ends.

    One example's failure or timeout never stops the others. On Ctrl-C every running example
    gets the interrupt and unwinds, and ``Interrupted`` says what became of each one's results.
    With ``progress``, each worker writes its estimate where ``progress`` reads it, and the
    progress is brought up to date while the examples run.
    """
    waiting, running = list(scripts), []
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                script = waiting.pop(0)
                announce(script)
                argv = worker_argv(script)
                if progress is not None:
                    argv = [*argv, "--estimate-to", str(progress.estimate_file(script.name))]
                running.append(start_example(script, argv, out, timeout_s, fork=fork))
            for entry in list(running):
                outcome = finished(entry, out, runner, timeout_s)
                if outcome is not None:
                    running.remove(entry)
                    yield entry.script, outcome, time.monotonic() - entry.started
            if progress is not None:
                progress.tick()
            if running:
                time.sleep(_POLL_S)
    except KeyboardInterrupt:
        for entry in running:  # all of them at once, then wait for each to unwind
            _signal_group(entry.child, signal.SIGINT)
        raise Interrupted({entry.script.name: interrupt(entry, already_signalled=True)
                           for entry in running}) from None
    finally:
        # A caller that stops early (no GPU) leaves nothing running behind it.
        for entry in running:
            if entry.child.poll() is None:
                _stop(entry.child, signal.SIGTERM)


def _stop(child: subprocess.Popen | launch.ForkedChild, first_signal: int) -> None:
    """Signal the child's whole session, give it GRACE_S to unwind, then kill what is left."""
    _signal_group(child, first_signal)
    _await(child)


def _await(child: subprocess.Popen | launch.ForkedChild) -> None:
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
