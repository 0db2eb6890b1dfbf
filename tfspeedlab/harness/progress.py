"""What ``tfspeedlab run`` says while it runs: the time spent, and each example's estimate
(``harness/estimate.py``: its budget × its cases × their processes, plus a start-up allowance per process).

On a pipe (a CI log) progress is plain lines, never redrawn: one per example as it starts, with
the time the run has taken so far; the example's worker adds a line with its estimate and how it
was worked out, and the summary gives each example's time beside its estimate. On a terminal the
same lines scroll, and the terminal's last row keeps a status line redrawn in place every second:
each running example's time against its estimate, and the run's. The status row sits below a
scrolling region that leaves it out (as apt draws its progress), so the examples' processes print
as they always do, with no output routed through this one.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from tfspeedlab.harness.estimate import format_duration, read_estimate

# A folder where a run leaves each example's estimate (``<example>.json``): set by ``history`` for its
# runs, whose estimates it adds up for the releases still to come. Unset: a folder of the run's own.
ESTIMATES_VARIABLE = "TFSPEEDLAB_ESTIMATES"
# How often the status row is redrawn: a clock in seconds needs no more.
REDRAW_S = 1.0


def interactive(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal that can keep a status row (not a pipe, a file or TERM=dumb)."""
    try:
        return stream.isatty() and os.environ.get("TERM", "dumb") != "dumb"
    except (AttributeError, ValueError):  # no file behind it, or a closed one
        return False


class StatusRow:
    """One line on a terminal's last row, redrawn in place; everything else scrolls above it."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.rows: int | None = None  # the terminal's height when its scrolling region was last set

    def _write(self, text: str) -> None:
        # In one write: a terminal takes a write whole, so a child's line cannot land inside it.
        self.stream.flush()
        os.write(self.stream.fileno(), text.encode("utf-8", "replace"))

    def show(self, text: str) -> None:
        try:
            size = os.get_terminal_size(self.stream.fileno())
        except (OSError, ValueError):
            return
        if size.lines < 2:
            return
        prefix = ""
        if size.lines != self.rows:
            # A new line (scrolling up if the cursor is on the last row), then the region above the last
            # row, which moves the cursor home: saved and restored around it, one row up into the region.
            prefix = f"\n\0337\033[1;{size.lines - 1}r\0338\033[1A"
            self.rows = size.lines
        self._write(f"{prefix}\0337\033[{size.lines};1H\033[2K{text[:max(size.columns - 1, 0)]}\0338")

    def close(self) -> None:
        """Give the whole terminal back to scrolling, and clear the status row."""
        if self.rows is not None:
            self.rows = None
            try:
                self._write("\0337\033[r\0338\033[J")
            except (OSError, ValueError):
                pass


class RunProgress:
    """A run's progress over ``total`` examples (see the module's note); ``close`` it when the run ends."""

    def __init__(self, total: int, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic,
                 estimates_dir: Path | None = None, began: float | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.clock = clock
        self.began = clock() if began is None else began  # by ``clock``: when the run began
        folder = estimates_dir or os.environ.get(ESTIMATES_VARIABLE)
        self._own_folder = None if folder else tempfile.TemporaryDirectory(prefix="tfspeedlab-estimates-")
        self.folder = Path(folder or self._own_folder.name)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.running: dict[str, tuple[int, float]] = {}  # name → (its number in the run, when it started)
        self.estimates: dict[str, float] = {}
        self.status = StatusRow(self.stream) if interactive(self.stream) else None
        self._drawn = float("-inf")

    def estimate_file(self, name: str) -> Path:
        """Where the worker of example ``name`` writes its estimate."""
        return self.folder / f"{name}.json"

    def started(self, name: str, number: int, title: str) -> None:
        """The example's one line: its number, name and title, and the run's time so far."""
        self.estimate_file(name).unlink(missing_ok=True)  # an earlier run's (history shares the folder)
        self._print(f"[{number}/{self.total}] {name}: {title} ({format_duration(self.clock() - self.began)} "
                    "into the run)")
        self.running[name] = (number, self.clock())
        self.tick(force=True)

    def tick(self, force: bool = False) -> None:
        """Take in the estimates the running examples' workers have written; redraw the status row
        once a second (or now, with ``force``)."""
        for name in self.running:
            if name not in self.estimates and (seconds := read_estimate(self.estimate_file(name))) is not None:
                self.estimates[name] = seconds
        now = self.clock()
        if self.status is not None and (force or now - self._drawn >= REDRAW_S):
            self.status.show(self.status_text())
            self._drawn = now

    def status_text(self) -> str:
        """``[3/25] small_ops 42 s of about 2 min 5 s · run 5 min 2 s``."""
        now = self.clock()
        parts = []
        for name, (number, since) in self.running.items():
            known = self.estimates.get(name)
            parts.append(f"[{number}/{self.total}] {name} {format_duration(now - since)}"
                         + (f" of about {format_duration(known)}" if known is not None else ""))
        return " · ".join([*parts, f"run {format_duration(now - self.began)}"])

    def finished(self, name: str, status: str, seconds: float) -> str:
        """The example's outcome for the run's summary: ``ok in 1 min 52 s (estimate 2 min 5 s)``."""
        self.tick()
        self.running.pop(name, None)
        known = self.estimates.get(name)
        return f"{status} in {format_duration(seconds)}" + (
            f" (estimate {format_duration(known)})" if known is not None else "")

    def _print(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def close(self) -> None:
        if self.status is not None:
            self.status.close()
        if self._own_folder is not None:
            self._own_folder.cleanup()
