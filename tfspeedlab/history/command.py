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
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tfspeedlab.core.results.checks import FAILURE_TEXT, printable
from tfspeedlab.core.results.history import (ENVIRONMENT_FAILURE, ENVIRONMENT_RECORD, VersionMismatch, history_dir,
                                              record_disagreement, release_folder)
from tfspeedlab.core.results.pool import pool
from tfspeedlab.core.results.schema import FAILURE_SUFFIX, ResultsFileError, to_dict
from tfspeedlab.core.results.store import load_results, write_json_atomic
from tfspeedlab.core.spec.releases import Release
from tfspeedlab.harness.estimate import format_duration, read_estimate
from tfspeedlab.harness.machine import utc_now
from tfspeedlab.harness.progress import ESTIMATES_VARIABLE
from tfspeedlab.history import environments
from tfspeedlab.history.environments import EnvironmentBuildError

# Hidden (a leading dot): readers of the history tree skip a run in progress.
_STAGING_PREFIX = ".staging-"
# Hidden too: a run's files not published, because the release folder holds another environment's results.
_ASIDE_PREFIX = ".unpublished-"


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
    """Every release in turn, ``options.passes`` times; ``HistoryInterrupted`` (with what was done) on Ctrl-C.

    Each release's line says how long the history has run and, once a release's run has reported
    its examples' estimates (``harness/estimate.py``), about how long the releases still to run take."""
    outcomes: list[ReleaseOutcome] = []
    total = len(releases) * options.passes
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-estimates-") as estimates:
        for pass_number in range(1, options.passes + 1):
            order = releases if pass_number % 2 else releases[::-1]
            for release in order:
                sitting = f", pass {pass_number}/{options.passes}" if options.passes > 1 else ""
                log(f"[{len(outcomes) + 1}/{total}] TensorFlow {release.name}{sitting} "
                    f"({history_progress(time.monotonic() - began, total - len(outcomes), Path(estimates))})")
                started = time.monotonic()
                try:
                    status = _run_release(release, options, log, pool_with_earlier=pass_number > 1,
                                          estimates=Path(estimates))
                except KeyboardInterrupt:
                    outcomes.append(ReleaseOutcome(release, "interrupted", time.monotonic() - started, pass_number))
                    raise HistoryInterrupted(outcomes) from None
                outcomes.append(ReleaseOutcome(release, status, time.monotonic() - started, pass_number))
    return outcomes


def history_progress(elapsed_s: float, left: int, estimates: Path) -> str:
    """``25 min into the history; about 1 h 40 min to go: 8 releases × 12 min 30 s, …``: the releases
    still to run, each at the sum of the estimates the last release's examples reported."""
    found = [seconds for path in sorted(estimates.glob("*.json")) if (seconds := read_estimate(path)) is not None]
    spent = f"{format_duration(elapsed_s)} into the history"
    if not found:
        return spent
    per_release = sum(found)
    return (f"{spent}; about {format_duration(left * per_release)} to go: {left} release run"
            f"{'s' if left > 1 else ''} × {format_duration(per_release)}, the examples' estimate on the last one, "
            "building environments not included")


def _run_release(release: Release, options: HistoryOptions, log: Callable[[str], None],
                 pool_with_earlier: bool = False, estimates: Path | None = None) -> str:
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
        code = _run_child(environment, options, staging, estimates)
    finally:
        # Whatever the child finished is kept, even on Ctrl-C; the rest of the staging goes.
        published = _publish(staging / options.runner, target, environment.record, pool_with_earlier)
        shutil.rmtree(staging, ignore_errors=True)
        if published.refusal is not None:  # said even on Ctrl-C: the run's files are kept elsewhere
            log(f"  TensorFlow {release.name}: {published.refusal}")
    if published.refusal is not None:
        return f"failed ({published.refusal})"
    return "ok" if code == 0 else f"failed (exit {code}; see the messages above)"


def _run_child(environment: environments.Environment, options: HistoryOptions, staging: Path,
               estimates: Path | None = None) -> int:
    command = [str(environment.python), "-m", "tfspeedlab",
               *(["--examples", str(options.examples_dir)] if options.examples_dir else []), "run", *options.examples,
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
    # The run leaves its examples' estimates where this history reads them (``history_progress``).
    reported = {ESTIMATES_VARIABLE: str(estimates)} if estimates is not None else {}
    child = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": path, **reported})
    try:
        return child.wait()
    except KeyboardInterrupt:
        # Ctrl-C reached the child too (same process group): let it unwind and report.
        child.wait()
        raise

@dataclass(frozen=True)
class Publication:
    """What ``_publish`` moved into a release folder, or why it moved nothing (and where it kept it)."""

    moved: list[Path]
    refusal: str | None = None


def _publish(source: Path, target: Path, record: dict, pool_with_earlier: bool = False) -> Publication:
    """Move every results and failure file (and traces folder) the child wrote into ``target``; a
    later pass's results file is pooled with the one an earlier pass of this run left there. The
    environment's ``record`` is written with the results it describes, and only with them (a failure
    record alone leaves the kept results under the record they were measured with). A folder holds the
    results of one environment: where its kept results were measured in another (the environment was
    rebuilt since), nothing is published and the child's files are kept aside, named in the refusal."""
    if not source.is_dir():
        return Publication([])
    staged = sorted(source.iterdir())
    results = [path for path in staged if _is_results(path)]
    if results and (mismatch := _first_mismatch(target, record, results, pool_with_earlier)) is not None:
        aside = target.parent / f"{_ASIDE_PREFIX}{target.name}-{os.getpid()}-{int(time.time())}"
        os.replace(source, aside)
        return Publication([], f"not published: this environment's {mismatch.field} {mismatch}; a release folder "
                               f"holds the results of one environment, so run its other examples again (or remove "
                               f"their results) and move this run's files from {aside}")
    moved = []
    target.mkdir(parents=True, exist_ok=True)
    for path in staged:
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
    if results:
        write_json_atomic(target / ENVIRONMENT_RECORD, record)
    if moved:
        (target / ENVIRONMENT_FAILURE).unlink(missing_ok=True)  # the environment was built this time
    return Publication(moved)


def _first_mismatch(target: Path, record: dict, staged: list[Path], pooled: bool) -> VersionMismatch | None:
    """The first results file the release folder would hold after publishing ``staged`` (the staged ones,
    and the kept ones they do not replace; with ``pooled``, those they are pooled with too) that
    ``record`` does not describe."""
    replaced = set() if pooled else {path.name for path in staged}
    kept = [path for path in sorted(target.glob("*.json")) if _is_results(path)
            and path.name != ENVIRONMENT_RECORD and path.name not in replaced]
    for path in [*staged, *kept]:
        try:
            found = load_results(path)
        except ResultsFileError:  # a damaged kept file: the build names it, whatever the record says
            continue
        if (mismatch := record_disagreement(record, found)) is not None:
            return mismatch
    return None


def _is_results(path: Path) -> bool:
    return path.suffix == ".json" and not path.name.endswith(FAILURE_SUFFIX)
