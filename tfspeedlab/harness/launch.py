"""Start a harness child process: a fresh interpreter, or, in a quick run, a fork of this one.

Importing TensorFlow takes about 4.5 s on the 2-core machine the site is
measured on, and a quick run of every example starts about two dozen
processes: most of a quick suite's time went on importing the same library
again. A quick run therefore imports TensorFlow once and forks each child from
that state — before TensorFlow's runtime has started (no context, no thread
pools, no device), so each child still builds its own, as a fresh process
would. Full runs, whose numbers the site publishes, keep to the measured
method: every process is a fresh interpreter.

A fork is used only where it is safe and gives the same start: on Linux, on a
CPU run (a CUDA driver must not be initialised before a fork, and is not here),
when the child needs no environment variables of its own (``TF_USE_LEGACY_KERAS``
is read when TensorFlow is imported), and when TensorFlow's runtime has not
started in this process. Otherwise, and with ``--cold-start``, a fresh
interpreter.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Mapping

from tfspeedlab.harness.machine import gpus_hidden, no_gpu_devices
from tfspeedlab.harness.native_logs import quiet_tensorflow_logs

WORKER_MODULE = "tfspeedlab.harness.worker"
# Set by ``tfspeedlab run --cold-start``; inherited by every process of the run.
COLD_START_VARIABLE = "TFSPEEDLAB_COLD_START"
# How often a waiting parent looks at a forked child; far below any example's run time.
_POLL_S = 0.05


def worker_command(argv: list[str]) -> list[str]:
    """The command that runs the worker with ``argv`` in a fresh interpreter."""
    return [sys.executable, "-m", WORKER_MODULE, *argv]


def request_cold_start() -> None:
    """Every process of this run, and of the processes it starts, a fresh interpreter."""
    os.environ[COLD_START_VARIABLE] = "1"


def cold_start_requested() -> bool:
    return os.environ.get(COLD_START_VARIABLE) == "1"


def preload_tensorflow() -> bool:
    """Import TensorFlow here, once, so that quick-run children can be forked from it.

    Only where forking is allowed (see ``fork_allowed``); returns whether it is.
    The caller has hidden GPUs for a CPU run already.
    """
    if not sys.platform.startswith("linux"):
        return False
    quiet_tensorflow_logs()  # read at the import: for this process and every child forked from it
    import tensorflow  # noqa: F401  (the import is the point)

    return fork_allowed({})


def fork_allowed(env: Mapping[str, str]) -> bool:
    """Whether a child that needs ``env`` can be forked from this process and start as a fresh
    one would: TensorFlow imported but its runtime not started, no GPU visible, no variables."""
    if env or not sys.platform.startswith("linux") or "tensorflow" not in sys.modules:
        return False
    if not gpus_hidden():
        if not no_gpu_devices():
            return False
    try:
        from tensorflow.python.eager import context
    except ImportError:
        return False
    started = context.context_safe()
    return started is None or not started._initialized


class ForkedChild:
    """A forked worker, waited on like ``subprocess.Popen``: ``pid``, ``wait(timeout)``, ``returncode``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(WORKER_MODULE, timeout)
            time.sleep(_POLL_S)
        return self.returncode


def start(argv: list[str], env: Mapping[str, str] | None = None, *, fork: bool = False,
          new_session: bool = False) -> subprocess.Popen | ForkedChild:
    """Start the worker with ``argv``: forked if asked and allowed, else a fresh interpreter.

    ``new_session``: the child leads a session of its own (so that a timeout can stop it and
    every process it starts, and Ctrl-C reaches it only through its parent).
    """
    env = dict(env or {})
    if fork and fork_allowed(env):
        return _fork_worker(argv, new_session)
    return subprocess.Popen(worker_command(argv), env={**os.environ, **env}, start_new_session=new_session)


def _fork_worker(argv: list[str], new_session: bool) -> ForkedChild:
    # Buffered output would otherwise be written twice, once by each process.
    sys.stdout.flush()
    sys.stderr.flush()
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready_read)
        _run_forked(argv, new_session, ready_write)  # never returns
    os.close(ready_write)
    # Wait until the child leads its session, so that a signal sent to its group right away
    # (a Ctrl-C in the first milliseconds) cannot miss it.
    os.read(ready_read, 1)
    os.close(ready_read)
    return ForkedChild(pid)


def _run_forked(argv: list[str], new_session: bool, ready_write: int) -> None:
    code = 1
    try:
        if new_session:
            os.setsid()
        os.write(ready_write, b"1")
        os.close(ready_write)
        # As in a fresh interpreter: Ctrl-C raises KeyboardInterrupt, SIGTERM is the default
        # until the worker installs its own handler.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        # What ``python -m tfspeedlab.harness.worker ARGV`` does, minus starting the interpreter. The
        # module's main is called, not the module run again as __main__ (runpy): the parent has
        # usually imported it, and running an imported module a second time warns (and builds its
        # objects twice). Imported by name: the worker imports this module.
        sys.argv = [WORKER_MODULE, *argv]
        code = importlib.import_module(WORKER_MODULE).main(argv)
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:  # the parent must see a failure, never the parent's own code path
        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            # Never return into the parent's stack (its loop, its finally blocks, its atexit).
            os._exit(code)
