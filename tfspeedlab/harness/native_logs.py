"""TensorFlow's own log lines (from its C++ side, and XLA's and XProf's) kept out of a run's and a
diagnosis's progress, unless ``--verbose`` asks for them.

TensorFlow 2.21 logs through Abseil before any program could configure it: each of its two
libraries that carry a copy prints ``WARNING: All log messages before absl::InitializeLog() …``
and its start-up lines (``I0000 00:00:1765000000.123456  1234 port.cc:153] oneDNN custom
operations are on …``), so the banner shows twice in every process, whatever
``TF_CPP_MIN_LOG_LEVEL`` says (measured: level 2 hides one of the lines). ``quiet_tensorflow_logs``
still sets that level for what obeys it; ``filtered`` passes the process's standard error (and
that of every process it starts, which inherit it) through a thread that drops the log lines
below errors and the few errors that are known noise (``NOISE``, ``GPU_PROBE``), and passes
every other byte on as it comes.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from collections.abc import Iterator

from tfspeedlab.harness.machine import gpus_hidden, no_gpu_devices

LEVEL_VARIABLE = "TF_CPP_MIN_LOG_LEVEL"
# TensorFlow's levels: 0 shows everything, 1 hides INFO, 2 WARNING too, 3 errors too.
QUIET_LEVEL, VERBOSE_LEVEL = "2", "0"
# Set by ``--verbose`` (and inherited): every line shows.
VERBOSE_VARIABLE = "TFSPEEDLAB_VERBOSE"
# Set while a filter runs, and inherited: a process it started writes through it already.
FILTERED_VARIABLE = "TFSPEEDLAB_LOGS_FILTERED"
# A native log line: Abseil's (``W0000 00:00:1765000000.123456  1234 file.cc:12] …``) or
# TensorFlow's own (``2026-12-07 14:50:00.123456: W tensorflow/core/file.cc:12] …``).
_LOG_LINE = re.compile(rb"^(?:(?P<absl>[IWEF])\d{4} \d\d:\d\d:\d+\.\d+\s+\d+ "
                       rb"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: (?P<tf>[IWEF]) )\S+:\d+\] ")
# The start of a line that may turn out to be one: held until its end, to be judged whole.
_MAYBE_LOG_LINE = re.compile(rb"^(?:[IWEF]\d|\d)")
# Errors TensorFlow's libraries log where nothing is wrong, hidden like warnings: XProf converting
# a trace without its optional processors (every diagnosis), and oneDNN's notice that float16 runs
# on Eigen's kernels instead (the mixed-precision example, which measures just that).
NOISE = re.compile(rb"No UnifiedProfileProcessor registered|oneDNN supports DT_HALF only on platforms with")
# The CUDA driver's probe, which TensorFlow makes in every process whatever CUDA_VISIBLE_DEVICES
# says (measured with TF 2.21: "failed call to cuInit: … (303)" on a machine without a GPU): noise
# where there is no GPU to find or a CPU run hid them, an error worth seeing anywhere else.
GPU_PROBE = re.compile(rb"failed call to cuInit|Unable to register cu(?:DNN|FFT|BLAS) factory")
# Lines that carry on a hidden line's message: TensorFlow's note on the instruction sets it was
# not built for (its first line is an INFO line).
_CONTINUATION = re.compile(rb"^To enable the following instructions: ")
# Abseil's notice before its first line (once per library that carries a copy of Abseil), which
# says nothing once those lines are hidden.
_ABSL_NOTICE = b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR"
# The pipe's buffer where the system lets it be set (Linux's default is 64 KiB).
_PIPE_BYTES = 1 << 20
# A line start held longer than this is passed on: no log line's prefix is this long.
_HOLD_BYTES = 4096
# How long stopping waits for what is still in the pipe (a child that outlives the run keeps its
# end open: its later lines go nowhere rather than stall the command).
_JOIN_S = 5.0


def verbose() -> bool:
    return os.environ.get(VERBOSE_VARIABLE) == "1"


def show_everything(on: bool) -> None:
    """``--verbose``: every log line of this process and the processes it starts, INFO included."""
    if on:
        os.environ[VERBOSE_VARIABLE] = "1"
        os.environ[LEVEL_VARIABLE] = VERBOSE_LEVEL


def quiet_tensorflow_logs() -> None:
    """Before TensorFlow is imported: its log shows errors only (a reader's own setting is kept)."""
    if not verbose():
        os.environ.setdefault(LEVEL_VARIABLE, QUIET_LEVEL)


def hidden(line: bytes) -> bool:
    """Whether a whole line of standard error is a native log line to keep out of the progress."""
    if line.rstrip(b"\r\n") == _ABSL_NOTICE or _CONTINUATION.match(line):
        return True
    found = _LOG_LINE.match(line)
    if found is None:
        return False
    level = found["absl"] or found["tf"]
    if level in (b"I", b"W"):
        return True
    return level == b"E" and (NOISE.search(line) is not None
                              or (GPU_PROBE.search(line) is not None and no_gpu_to_find()))


def no_gpu_to_find() -> bool:
    """No GPU for CUDA's probe to find: none on this machine, or hidden from this process (a CPU run)."""
    return gpus_hidden() or no_gpu_devices()


@contextlib.contextmanager
def filtered() -> Iterator[None]:
    """Standard error of this process, and of the processes it starts meanwhile, without the
    native log lines ``hidden`` names; as it is with ``--verbose``, where there is no real file
    behind it, or inside a process that writes through a filter already."""
    if verbose() or os.environ.get(FILTERED_VARIABLE) == "1":
        yield
        return
    try:
        sys.stderr.flush()
        original = os.dup(2)
    except (OSError, ValueError):  # no file descriptor 2 to pass through
        yield
        return
    read_end, write_end = os.pipe()
    _widen(write_end)
    os.dup2(write_end, 2)
    os.close(write_end)
    forwarder = threading.Thread(target=_forward, args=(read_end, original), name="tfspeedlab-log-filter",
                                 daemon=True)
    forwarder.start()
    os.environ[FILTERED_VARIABLE] = "1"
    try:
        yield
    finally:
        os.environ.pop(FILTERED_VARIABLE, None)
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        os.dup2(original, 2)  # the pipe's last end here closes: the forwarder reads to its end
        forwarder.join(_JOIN_S)
        if not forwarder.is_alive():
            os.close(original)


def _forward(read_end: int, original: int) -> None:
    """Pass what arrives at ``read_end`` on to ``original``, byte for byte as it comes, except the
    lines ``hidden`` names: a line that may be one is held until its end."""
    held = b""  # the start of a line that may be a log line
    passing = False  # within a line already passed on in part
    try:
        while chunk := os.read(read_end, 65536):
            data, out = held + chunk, []
            held = b""
            while data:
                end = data.find(b"\n") + 1
                if passing:
                    out.append(data[:end] if end else data)
                    passing, data = not end, (data[end:] if end else b"")
                elif end:
                    line, data = data[:end], data[end:]
                    if not hidden(line):
                        out.append(line)
                elif _MAYBE_LOG_LINE.match(data) and len(data) < _HOLD_BYTES:
                    held, data = data, b""
                else:
                    out.append(data)
                    passing, data = True, b""
            _write_all(original, b"".join(out))
        if held and not hidden(held):
            _write_all(original, held)
    except OSError:  # the real standard error went away: nothing left to show anything on
        pass
    finally:
        os.close(read_end)


def _widen(pipe: int) -> None:
    """Room for a burst of lines while the forwarder waits for Python's lock (Linux; best effort):
    a TensorFlow thread writing to a full pipe would wait for it."""
    with contextlib.suppress(AttributeError, OSError):
        import fcntl

        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]
