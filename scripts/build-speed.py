"""How long a reader waits for the site: a cold build, a warm one, and ``mkdocs serve`` after one edit,
for this checkout and, side by side in the same run, for another commit.

    python scripts/build-speed.py [--against REF] [--runs N] [--no-serve]

Each figure is the wall time of the command as a reader runs it (the machine's speed drifts by the
hour: compare figures from one run, where the sides take turns):

* cold: ``mkdocs build`` from a fresh copy of the site's sources, as a fresh clone builds: nothing
  kept from an earlier build, neither this project's cache (``TFSPEEDLAB_CACHE``) nor mkdocs-jupyter's
  (``.cache/mkdocs-jupyter`` beside the sources);
* warm: the same build again, both caches filled by the cold one;
* serve: ``mkdocs serve`` on the copy, the time from saving an edit to one page until the server has
  rebuilt and reloads the browser.

``--against main`` also times ``main`` (any commit git names), checked out into a temporary git
worktree; the sides' cold builds, then their warm builds and edits, alternate. Each side is built
with its own package (``PYTHONPATH``), sources and results. Nothing in the repository is written:
every build reads a temporary copy and writes to a temporary folder.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = ("docs", "mkdocs.yml", "overrides", "notebooks", "snippets", "examples")
# Watched by `mkdocs serve` (mkdocs.yml's watch list), read in place: linked, not copied.
LINKED = ("results", "tfspeedlab")
EDITED_PAGE = Path("docs") / "small-ops.md"


@dataclass
class Side:
    """One checkout being timed: its copy of the sources, its caches and what it measured."""

    label: str
    root: Path  # the checkout: its package, sources and results
    workspace: Path  # the copy the builds run in
    cache: Path
    cold: float = 0.0
    warm: list[float] = field(default_factory=list)
    serve: list[float] = field(default_factory=list)

    def environment(self) -> dict[str, str]:
        return {**os.environ, "TFSPEEDLAB_CACHE": str(self.cache), "TFSPEEDLAB_RESULTS": str(self.root / "results"),
                "PYTHONPATH": str(self.workspace), "NO_MKDOCS_2_WARNING": "1"}


def prepare(label: str, root: Path, folder: Path) -> Side:
    """A fresh copy of ``root``'s site sources under ``folder``, its package and results linked."""
    workspace = folder / label / "sources"
    workspace.mkdir(parents=True)
    for name in SOURCES:
        source = root / name
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, workspace / name)
    for name in LINKED:
        (workspace / name).symlink_to(root / name)
    return Side(label, root, workspace, folder / label / "cache")


def timed_build(side: Side, site: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)], cwd=side.workspace,
                   env=side.environment(), check=True)
    return time.perf_counter() - started


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(process: subprocess.Popen, text: str, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            raise RuntimeError(f"mkdocs serve ended before it printed {text!r}")
        if text in line:
            return
    raise RuntimeError(f"mkdocs serve printed no {text!r} in {timeout_s:.0f} s")


@contextlib.contextmanager
def serving(side: Side) -> Iterator[subprocess.Popen]:
    """``mkdocs serve`` on the side's copy, once it has built and serves."""
    process = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{_free_port()}"],
                               cwd=side.workspace, env=side.environment(), stderr=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, text=True)
    try:
        _wait_for(process, "Serving on")
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


def serve_rebuild(side: Side, server: subprocess.Popen, edit: int) -> float:
    """Seconds from saving an edit to a page until the server has rebuilt."""
    time.sleep(1.0)  # let the watcher settle
    page = side.workspace / EDITED_PAGE
    started = time.perf_counter()
    page.write_text(page.read_text(encoding="utf-8") + f"\n<!-- edit {edit} -->\n", encoding="utf-8")
    _wait_for(server, "Reloading browsers")
    return time.perf_counter() - started


@contextlib.contextmanager
def checkout(ref: str, folder: Path) -> Iterator[Path]:
    """``ref`` checked out (detached) into ``folder`` as a temporary git worktree, removed afterwards."""
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--quiet", "--detach", str(folder), ref], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(folder)], check=False)


def seconds(values: list[float]) -> str:
    if not values:
        return "-"
    each = ", ".join(f"{value:.1f}" for value in values)
    return f"{statistics.median(values):5.1f} s ({each})" if len(values) > 1 else f"{values[0]:5.1f} s"


def report(sides: list[Side], runs: int) -> None:
    width = max(len(side.label) for side in sides) + 2
    rows = [("cold build (nothing kept)", [seconds([side.cold]) for side in sides]),
            (f"warm build (median of {runs})", [seconds(side.warm) for side in sides])]
    if any(side.serve for side in sides):
        rows.append((f"serve, one page edited (median of {runs})", [seconds(side.serve) for side in sides]))
    label_width = max(len(label) for label, _ in rows) + 2
    cell = max(width, *(len(value) for _, values in rows for value in values)) + 2
    print(" " * label_width + "".join(side.label.ljust(cell) for side in sides))
    for label, values in rows:
        print(label.ljust(label_width) + "".join(value.ljust(cell) for value in values))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REF", help="also time this commit (a branch, tag or hash), side by side")
    parser.add_argument("--runs", type=int, default=3, help="warm builds and serve edits to time per side (default: 3)")
    parser.add_argument("--no-serve", action="store_true", help="time builds only")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-build-") as temporary, contextlib.ExitStack() as stack:
        folder = Path(temporary)
        roots = {"this checkout": REPO}
        if options.against:
            roots[options.against] = stack.enter_context(checkout(options.against, folder / "against-checkout"))
        sides = [prepare(f"side-{index}", root, folder) for index, root in enumerate(roots.values())]
        for side, label in zip(sides, roots):
            side.label = label
        for side in sides:
            side.cold = timed_build(side, folder / "site")
        for _ in range(options.runs):
            for side in sides:
                side.warm.append(timed_build(side, folder / "site"))
        if not options.no_serve:
            servers = [stack.enter_context(serving(side)) for side in sides]
            for edit in range(options.runs):
                for side, server in zip(sides, servers):
                    side.serve.append(serve_rebuild(side, server, edit))
        report(sides, options.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
