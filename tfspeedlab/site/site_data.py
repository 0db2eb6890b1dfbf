"""Everything a site build reads from a results tree, loaded and checked once per change of the tree.

The MkDocs plugin (charts, the simulator's data) and the Markdown extension (the directives) both
need the results, the release history, the committed diagnoses and the cost models (fitted the
first time something asks for one). They share one load: ``load`` keeps the last tree it read,
keyed by every file's path, size and modification time, so a build reads it once and ``mkdocs
serve`` reads it again only when a file under it changed. Each load also digests what it read by
content (``SiteData.inputs``): what a page's expansion is kept by between builds (``page_expansions``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tfspeedlab.core.results import artifacts
from tfspeedlab.core.results.cpu import CpuNames
from tfspeedlab.core.results.history import ReleaseResults, load_history
from tfspeedlab.core.results.repo import REPO_ROOT, example_names, examples_dir, git_commit, git_dirty, resolved_commits
from tfspeedlab.core.results.schema import RUNNERS, ResultsFile, ResultsFileError
from tfspeedlab.core.results.store import load_runner
from tfspeedlab.core.stats import cost_model
from tfspeedlab.diagnosis.saved import DiagnosisFileError, Samples, load_samples
from tfspeedlab.fairness import drift

# What a build reads when nothing names another tree (tests and readers set it to build from theirs).
RESULTS_VARIABLE = "TFSPEEDLAB_RESULTS"
# Re-measures of the headline examples, one folder per sitting (``results/<runner>/coverage/<sitting>/``):
# how often a re-measure lands inside the committed intervals. A sitting's name names a path and
# reaches a page: a UTC time like ``2026-12-01T2030`` and nothing else.
COVERAGE_DIR = "coverage"
# What a kept profiler trace may be called (tfspeedlab names them after a mode: "graph.xplane.pb").
TRACE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.xplane\.pb")
SITTING_NAME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{4}")


class SiteDataError(Exception):
    """A results tree a site cannot be built from: a malformed, misplaced or unknown file, named."""


@dataclass(frozen=True)
class SiteData:
    results_root: Path
    results: dict[str, dict[str, ResultsFile]]
    known_examples: frozenset[str]
    history: dict[str, list[ReleaseResults]]
    diagnoses: dict[str, Samples]
    # Each runner's cost model, fitted when a page (or the simulator's parameters) first asks for it.
    models: Mapping[str, cost_model.CostModel]
    # Each runner's re-measures of the headline examples, by sitting, oldest first.
    remeasures: dict[str, dict[str, dict[str, ResultsFile]]] = dataclasses.field(default_factory=dict)
    # The same sittings as pages show them: each widened by the drift between sittings, as a
    # committed file is (the coverage and drift figures read ``remeasures``, unwidened).
    remeasures_shown: dict[str, dict[str, dict[str, ResultsFile]]] = dataclasses.field(default_factory=dict)
    # Which load of this process it is: what a page rendered from it may be remembered by.
    generation: int = 0
    # One name per CPU model over every file the build reads (``cpu_name``): a file that recorded no
    # family is named as another file of its CPU model that did.
    cpu_names: CpuNames = CpuNames()
    # A digest of everything the directives read besides the package and a page (``inputs_digest``).
    inputs: str = ""


def results_root(configured: str | Path | None = None) -> Path:
    """``$TFSPEEDLAB_RESULTS``, else the configured folder, else the repository's ``results/``."""
    return Path(os.environ.get(RESULTS_VARIABLE) or configured or REPO_ROOT / "results")


def fingerprint(root: Path) -> tuple:
    """What identifies what a page's figures are made from without reading it: every file's path,
    size and modification time under the results tree and the examples folder (a page lists the
    example scripts)."""
    return (str(root.resolve()), _entries(root), str(examples_dir().resolve()), _entries(examples_dir()))


def _entries(folder: Path) -> tuple:
    """Every file and folder under ``folder`` (symbolic links listed, not followed) as (path, size,
    modification time). Every page with a directive asks (``load``): read with ``os.scandir``, which
    takes a fifth of the time ``Path.rglob`` did."""
    return tuple(sorted((name, status.st_size, status.st_mtime_ns) for name, _, status in _walk(folder)))


def _walk(folder: Path) -> list[tuple[str, str, os.stat_result]]:
    """(path under ``folder``, path, status) of every file and folder under it, symbolic links listed
    and not followed."""
    entries: list[tuple[str, str, os.stat_result]] = []

    def walk(directory: str, prefix: str) -> None:
        try:
            listed = list(os.scandir(directory))
        except OSError:  # removed while listed
            return
        for entry in listed:
            try:
                status = entry.stat(follow_symlinks=False)
            except OSError:  # removed while listed (a run replacing a file)
                continue
            entries.append((prefix + entry.name, entry.path, status))
            if stat.S_ISDIR(status.st_mode):
                walk(entry.path, f"{prefix}{entry.name}/")

    if folder.is_dir():
        walk(str(folder), "")
    return entries


def _contents(folder: Path, digest) -> None:
    """Every entry under ``folder`` into ``digest``: its path, a link's target, and a file's bytes (a
    link's too: a loader that follows it reads those), each as its own digest, so no two trees meet."""
    digest.update(repr(("folder", str(folder.resolve()))).encode() + b"\n")
    for name, path, status in sorted(_walk(folder)):
        target = content = None
        try:
            if stat.S_ISLNK(status.st_mode):
                target = os.readlink(path)
            if not stat.S_ISDIR(status.st_mode):
                with open(path, "rb") as file:
                    content = hashlib.sha256(file.read()).hexdigest()
        except OSError:  # a link to a folder or to nothing, an entry removed meanwhile
            pass
        digest.update(repr((name, target, content)).encode() + b"\n")


def files_digest(root: Path):
    """The results tree's and the examples folder's files by content (a ``hashlib`` digest, for
    ``inputs_digest`` to finish)."""
    digest = hashlib.sha256()
    _contents(root, digest)
    _contents(examples_dir(), digest)
    return digest


def inputs_digest(files, data: SiteData) -> str:
    """What a page's directives read besides the package (``build_cache.code_version``) and the page:
    ``files`` (``files_digest``), and git, which the Runners page's freshness asks — each commit a file
    names as this clone resolves it, HEAD, and whether the package or the examples differ from HEAD."""
    digest = files.copy()
    named = sorted({commit for environment in _environments(data.results, data.remeasures, data.history,
                                                            data.diagnoses)
                    if isinstance(commit := environment.get("git_commit"), str) and commit})
    digest.update(repr((sorted(resolved_commits(named).items()), git_commit(), git_dirty())).encode())
    return digest.hexdigest()


_last: tuple[tuple, SiteData] | None = None


def load(root: Path) -> SiteData:
    """The tree's data, loaded once per change of its files; ``SiteDataError`` names what is wrong."""
    global _last
    key = fingerprint(root)
    if _last is not None and _last[0] == key:
        return _last[1]
    # Digested before it is read: a file changed meanwhile leaves a digest of bytes it no longer holds,
    # which the next build, reading the new ones, does not meet.
    files = files_digest(root)
    data = _load(root)
    data = dataclasses.replace(data, generation=(_last[1].generation + 1) if _last else 1,
                               inputs=inputs_digest(files, data))
    _last = (key, data)
    return data


def forget() -> None:
    """Forget the tree loaded last, as a new process would (its next ``load`` reads and digests it again)."""
    global _last
    _last = None


def _load(root: Path) -> SiteData:
    known = example_names()
    results: dict[str, dict[str, ResultsFile]] = {}
    for runner in RUNNERS:
        directory = root / runner
        try:
            # The same checks as `tfspeedlab merge`: each file fits the folder it sits in.
            results[runner] = load_runner(directory, runner) if directory.is_dir() else {}
        except ResultsFileError as error:
            raise SiteDataError(f"cannot build from a malformed results file: {error}") from error
        for example, found in results[runner].items():
            if example not in known:
                raise SiteDataError(f"{found.source}: no example {example!r} in {examples_dir()}; "
                                    "remove the file, or add the example")
            for trace in artifacts.published_files(root, runner, example, "*.xplane.pb"):
                if not TRACE_NAME.fullmatch(trace.name):  # a name reaches a page, a link and a shell command
                    raise SiteDataError(f"{trace}: a kept trace's name is letters, digits, '.', '_' and '-' "
                                        "only, ending in .xplane.pb")
    history = {}
    for runner in RUNNERS:
        try:
            history[runner] = load_history(root, runner)
        except ResultsFileError as error:
            raise SiteDataError(f"cannot build from a malformed history file: {error}") from error
        strays = sorted({example for item in history[runner] for example in item.results} - known)
        if strays:
            raise SiteDataError(f"the {runner} release history holds results of {strays[0]!r}, "
                                f"which is no example in {examples_dir()}")
    try:
        diagnoses = {runner: load_samples(root, runner) for runner in RUNNERS}
    except (DiagnosisFileError, ResultsFileError) as error:  # a malformed file, or one named outside [a-z0-9_]
        raise SiteDataError(f"cannot build from a diagnosis file: {error}") from error
    remeasures = {runner: _remeasures(root, runner) for runner in RUNNERS}
    for runner in RUNNERS:
        try:
            # A quick run, another workload or fewer processes in a sitting would count as the machine's drift.
            drift.check_sittings(results[runner], remeasures[runner])
        except ResultsFileError as error:
            raise SiteDataError(f"cannot build from a re-measure unlike its committed run: {error}") from error
    # Every interval drawn from a committed file takes in how far its machine moved between sittings,
    # where re-measure sittings say (the fair-timing page's "Do the intervals hold up?").
    drifts = {runner: drift.for_runner(found, remeasures[runner]) for runner, found in results.items()}
    shown = {runner: drift.attach_remeasures(results[runner], remeasures[runner], drifts[runner])
             for runner in results}
    results = {runner: drift.attach(found, drifts[runner]) for runner, found in results.items()}
    history = {runner: drift.attach_history(found, drifts.get(runner, {})) for runner, found in history.items()}
    return SiteData(root, results, known, history, diagnoses, cost_model.FittedModels(results), remeasures,
                    shown, cpu_names=CpuNames.of(_environments(results, remeasures, history, diagnoses)))


def _environments(results, remeasures, history, diagnoses) -> list[Mapping]:
    """The environment of every file a build reads."""
    environments = [found.environment for by_example in results.values() for found in by_example.values()]
    environments += [found.environment for by_sitting in remeasures.values() for sitting in by_sitting.values()
                     for found in sitting.values()]
    environments += [found.environment for items in history.values() for item in items
                     for found in item.results.values()]
    environments += [sample.environment for samples in diagnoses.values() for sample in samples.reports.values()]
    environments += [found.environment for samples in diagnoses.values() for found in samples.guide.values()]
    return environments


def _remeasures(root: Path, runner: str) -> dict[str, dict[str, ResultsFile]]:
    folder = root / runner / COVERAGE_DIR
    found = {}
    for sitting in sorted(folder.iterdir()) if folder.is_dir() else ():
        if not sitting.is_dir() or sitting.is_symlink() or not SITTING_NAME.fullmatch(sitting.name):
            raise SiteDataError(f"{sitting}: a re-measure sitting is a folder named like 2026-12-01T2030 (UTC)")
        try:
            found[sitting.name] = load_runner(sitting, runner)
        except ResultsFileError as error:
            raise SiteDataError(f"cannot build from a malformed re-measure: {error}") from error
    return found
