"""How long a reader waits for the site: a cold build, a warm one, and ``mkdocs serve`` after one edit.

    python scripts/build-speed.py [--runs N]

Each figure is the wall time of the command as a reader runs it, measured in this run, side by
side (the machine's speed drifts by the hour; compare figures from one run):

* cold: ``mkdocs build`` with an empty build cache (``TFSPEEDLAB_CACHE`` pointed at a new folder);
* warm: the same build again, the cache filled by the cold one;
* serve: ``mkdocs serve`` on a copy of the site's sources, the time from saving an edit to one page
  until the server has rebuilt and reloads the browser.

The builds read the committed results. Nothing in the repository is written: the builds go to a
temporary folder, and the edited page is a copy.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = ("docs", "mkdocs.yml", "overrides", "notebooks", "snippets", "examples")
# Watched by `mkdocs serve` (mkdocs.yml's watch list), read in place: linked, not copied.
LINKED = ("results", "tfspeedlab")
EDITED_PAGE = Path("docs") / "small-ops.md"


def _environment(cache: Path) -> dict[str, str]:
    return {**os.environ, "TFSPEEDLAB_CACHE": str(cache), "TFSPEEDLAB_RESULTS": str(REPO / "results"),
            "NO_MKDOCS_2_WARNING": "1"}


def timed_build(cache: Path, site: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)], cwd=REPO,
                   env=_environment(cache), check=True)
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


def serve_rebuilds(cache: Path, copies: int) -> list[float]:
    """Seconds from saving an edit to a page until ``mkdocs serve`` has rebuilt, ``copies`` times."""
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-serve-") as folder:
        root = Path(folder)
        for name in SOURCES:
            source = REPO / name
            (shutil.copytree if source.is_dir() else shutil.copy2)(source, root / name)
        for name in LINKED:
            (root / name).symlink_to(REPO / name)
        process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve",
             "-a", f"127.0.0.1:{_free_port()}"],
            cwd=root, env=_environment(cache), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        try:
            _wait_for(process, "Serving on")
            page = root / EDITED_PAGE
            waits = []
            for copy in range(copies):
                time.sleep(1.0)  # let the watcher settle
                started = time.perf_counter()
                page.write_text(page.read_text(encoding="utf-8") + f"\n<!-- edit {copy} -->\n", encoding="utf-8")
                _wait_for(process, "Reloading browsers")
                waits.append(time.perf_counter() - started)
            return waits
        finally:
            process.terminate()
            process.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="warm builds and serve edits to time (default: 3)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-build-") as folder:
        cache, site = Path(folder) / "cache", Path(folder) / "site"
        cold = timed_build(cache, site)
        warm = [timed_build(cache, site) for _ in range(options.runs)]
        serve = serve_rebuilds(cache, options.runs)
    print(f"cold build (empty cache):      {cold:5.1f} s")
    print(f"warm build (median of {len(warm)}):     {statistics.median(warm):5.1f} s  "
          f"(each: {', '.join(f'{s:.1f}' for s in warm)}); {cold / statistics.median(warm):.1f}× faster than cold")
    print(f"serve, one page edited (median of {len(serve)}): {statistics.median(serve):5.1f} s  "
          f"(each: {', '.join(f'{s:.1f}' for s in serve)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
