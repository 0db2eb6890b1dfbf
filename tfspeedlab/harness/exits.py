"""How every tfspeedlab command ends: its exit codes, and the error a command raises for bad input.

A command that meets bad input (a name that is no example, a path it may not write, a target it
cannot load) raises ``UsageError``; ``tfspeedlab.cli.main`` alone prints it, as one line, and
exits with ``EXIT_USAGE``.
"""

from __future__ import annotations

import os
import sys
import threading

EXIT_OK = 0
EXIT_FAILED = 1  # an example raised, timed out or exited on its own
EXIT_USAGE = 2  # bad input: the message says what and, where it can, what is valid
EXIT_NO_GPU = 3  # --runner gpu on a machine without one (scripts/gpu-run.sh relies on it)
EXIT_SKIPPED = 4  # an example that cannot run here (a missing optional framework)
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports it


class UsageError(Exception):
    """Bad input to a command. ``details`` is what to print before the one-line message (the
    reader's own traceback, when their code raised)."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def end_past_leftover_threads(code: int) -> None:
    """End this process now, with ``code``, if a thread that is no daemon is still running: one the
    code of a reader started and never stopped (a worker pool, a thread waiting for a queue).
    Python would wait for it at exit forever, after the command said all it had to say. The output
    is flushed first; ``os._exit`` then skips that wait and the ``atexit`` handlers, which
    tfspeedlab does not use (every file it writes is complete before its command returns)."""
    running = [thread for thread in threading.enumerate()
               if thread is not threading.current_thread() and not thread.daemon and thread.is_alive()]
    if not running:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said on it
            pass
    os._exit(code)
