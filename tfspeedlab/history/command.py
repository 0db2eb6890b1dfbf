"""Run examples on several TensorFlow releases: each in its release's environment, through the
same harness (``tfspeedlab run`` started with that environment's Python), its results moved to
``<out>/<runner>/history/tf-<release>/``.

One release that cannot be built, or whose example fails, is recorded with the
reason and the others go on. The child run writes into a staging folder and
its files are moved into place one by one with a rename, so that Ctrl-C keeps
every release already measured and the files of an unfinished one as they were.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tfspeedlab.core.results.checks import FAILURE_TEXT, printable
from tfspeedlab.core.results.history import ENVIRONMENT_FAILURE, ENVIRONMENT_RECORD, history_dir, release_folder
from tfspeedlab.core.results.pool import pool
from tfspeedlab.core.results.schema import FAILURE_SUFFIX, to_dict
from tfspeedlab.core.results.store import load_results, write_json_atomic
from tfspeedlab.core.spec.releases import Release
from tfspeedlab.harness.machine import utc_now
from tfspeedlab.history import environments
from tfspeedlab.history.environments import EnvironmentBuildError

# Hidden (a leading dot): readers of the history tree skip a run in progress.
_STAGING_PREFIX = ".staging-"


@dataclass(frozen=True)
class HistoryOptions:
    examples: list[str]
    runner: str
    out: Path
    envs_dir: Path
    quick: bool = False
    processes: int | None = None
    timeout_s: float | None = None
    examples_dir: Path | None = None
    # Sittings per release, in alternating order (2.12 … 2.21, then 2.21 … 2.12), pooled: a release
    # timed in one slow stretch of the machine would otherwise carry it into every comparison.
    passes: int = 1
    # ``run --only PARAM=VALUE`` for each release's run: the part of an example a history re-measures.
    only: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReleaseOutcome:
    release: Release
    status: str  # "ok", "environment failed: …", "failed (exit 1)", "interrupted"
    seconds: float
    pass_number: int = 1

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class HistoryInterrupted(KeyboardInterrupt):
    def __init__(self, outcomes: list[ReleaseOutcome]) -> None:
        super().__init__("interrupted")
        self.outcomes = outcomes


def run_history(releases: list[Release], options: HistoryOptions,
                log: Callable[[str], None] = print) -> list[ReleaseOutcome]:
    """Every release in turn, ``options.passes`` times; ``HistoryInterrupted`` (with what was done) on Ctrl-C."""
    outcomes: list[ReleaseOutcome] = []
    total = len(releases) * options.passes
    for pass_number in range(1, options.passes + 1):
        order = releases if pass_number % 2 else releases[::-1]
        for release in order:
            sitting = f", pass {pass_number}/{options.passes}" if options.passes > 1 else ""
            log(f"[{len(outcomes) + 1}/{total}] TensorFlow {release.name}{sitting}")
            started = time.monotonic()
            try:
                status = _run_release(release, options, log, pool_with_earlier=pass_number > 1)
            except KeyboardInterrupt:
                outcomes.append(ReleaseOutcome(release, "interrupted", time.monotonic() - started, pass_number))
                raise HistoryInterrupted(outcomes) from None
            outcomes.append(ReleaseOutcome(release, status, time.monotonic() - started, pass_number))
    return outcomes


def _run_release(release: Release, options: HistoryOptions, log: Callable[[str], None],
                 pool_with_earlier: bool = False) -> str:
    target = release_folder(options.out, options.runner, release)
    try:
        environment = environments.ensure(release, options.runner, options.envs_dir, log)
    except EnvironmentBuildError as error:
        write_json_atomic(target / ENVIRONMENT_FAILURE, {
            "release": release.name, "requirements": release.requirements(options.runner),
            "error": printable(str(error), FAILURE_TEXT, keep="tail").strip() or "unknown error",
            "utc_time": utc_now()})
        log(f"  TensorFlow {release.name}: no environment: {error}")
        return f"environment failed: {str(error).splitlines()[0]}"
    log(f"  TensorFlow {environment.record.get('tensorflow')}, Keras {environment.record.get('keras')}, "
        f"NumPy {environment.record.get('numpy')} ({environment.python})")
    staging = history_dir(options.out, options.runner) / f"{_STAGING_PREFIX}{release.folder}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        code = _run_child(environment, options, staging)
    finally:
        # Whatever the child finished is kept, even on Ctrl-C; the rest of the staging goes.
        moved = _publish(staging / options.runner, target, pool_with_earlier)
        if moved:
            write_json_atomic(target / ENVIRONMENT_RECORD, environment.record)
            (target / ENVIRONMENT_FAILURE).unlink(missing_ok=True)
        shutil.rmtree(staging, ignore_errors=True)
    return "ok" if code == 0 else f"failed (exit {code}; see the messages above)"


def _run_child(environment: environments.Environment, options: HistoryOptions, staging: Path) -> int:
    command = [str(environment.python), "-m", "tfspeedlab", *_examples_option(options), "run", *options.examples,
               "--runner", options.runner, "--out", str(staging)]
    if options.quick:
        command.append("--quick")
    if options.processes:
        command += ["--processes", str(options.processes)]
    if options.timeout_s:
        command += ["--timeout", f"{options.timeout_s:g}"]
    command += [f"--only={item}" for item in options.only]
    # The environment has TensorFlow and NumPy but not this package: it comes from this checkout.
    package_root = str(Path(__file__).resolve().parents[2])  # the folder holding tfspeedlab/
    path = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    child = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": path})
    try:
        return child.wait()
    except KeyboardInterrupt:
        # Ctrl-C reached the child too (same process group): let it unwind and report.
        child.wait()
        raise


def _examples_option(options: HistoryOptions) -> list[str]:
    return ["--examples", str(options.examples_dir)] if options.examples_dir else []


def _publish(source: Path, target: Path, pool_with_earlier: bool = False) -> list[Path]:
    """Move every results and failure file (and traces folder) the child wrote into ``target``; a
    later pass's results file is pooled with the one an earlier pass of this run left there."""
    if not source.is_dir():
        return []
    moved = []
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        destination = target / path.name
        if pool_with_earlier and destination.is_file() and _is_results(path):
            write_json_atomic(destination, to_dict(pool(load_results(destination), load_results(path))))
            path.unlink()
            moved.append(destination)
            continue
        if path.is_dir():
            shutil.rmtree(destination, ignore_errors=True)
        os.replace(path, destination)
        moved.append(destination)
        if _is_results(path):
            # A results file supersedes the failure record of an earlier run of its example.
            (target / path.name.replace(".json", FAILURE_SUFFIX)).unlink(missing_ok=True)
    return moved


def _is_results(path: Path) -> bool:
    return path.suffix == ".json" and not path.name.endswith(FAILURE_SUFFIX)
