"""The reader's own code, run by ``tfspeedlab diagnose`` as a guest: whatever it does to end the
process or fill standard output, the command still ends with its report or a clear error.

Inside ``reader_code``:

* ``sys.exit``, ``os._exit`` (patched to raise for the while) and any other ``BaseException``
  but Ctrl-C become a ``TargetError`` saying what the code did, exit 2, as ``run`` treats an
  example that exits on its own;
* a ``KeyboardInterrupt`` is Ctrl-C only when the reader pressed it: while the command runs
  (``ctrl_c_watched``) every SIGINT is noted, and one the code raised itself, with no SIGINT
  behind it, is its failure like any other (``is_ctrl_c`` tells them apart, for the parts of a
  diagnosis that keep what was measured when Ctrl-C cuts them short);
* what the code prints goes to standard error, so standard output holds the report alone (and
  ``--json`` stays parseable).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator

from tfspeedlab.diagnosis.targets import TargetError, error_line


class ReaderExit(BaseException):
    """``os._exit`` called by the reader's code: raised instead, so the command can report it."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class _CtrlCWatch:
    """Whether ``ctrl_c_watched`` is in force, and whether a SIGINT has reached the process since."""

    watching = False
    pressed = False


_WATCH = _CtrlCWatch()


@contextlib.contextmanager
def ctrl_c_watched() -> Iterator[None]:
    """Note every SIGINT before Python's handler turns it into ``KeyboardInterrupt``, so that one the
    reader's code raised itself is not taken for the reader's Ctrl-C (``is_ctrl_c``)."""
    _WATCH.watching, _WATCH.pressed = True, False
    previous = signal.getsignal(signal.SIGINT)
    installed = False
    if callable(previous):  # ignored or left to the system, SIGINT raises no KeyboardInterrupt at all

        def noted(number: int, frame: object) -> None:
            _WATCH.pressed = True
            previous(number, frame)

        try:
            signal.signal(signal.SIGINT, noted)
            installed = True
        except ValueError:  # not the main thread, where no SIGINT is ever raised as KeyboardInterrupt
            pass
    try:
        yield
    finally:
        _WATCH.watching = False
        if installed:
            signal.signal(signal.SIGINT, previous)


def is_ctrl_c() -> bool:
    """Whether the ``KeyboardInterrupt`` being handled is the reader's Ctrl-C: within ``ctrl_c_watched``
    only after a SIGINT came; outside it (``tfspeedlab.diagnose`` called from a notebook), always, as
    Python takes it."""
    return _WATCH.pressed or not _WATCH.watching


@contextlib.contextmanager
def reader_code(what: str) -> Iterator[None]:
    """Run the reader's code (``what`` says which part, for the message) contained."""
    real_exit = os._exit

    def exit_raises(code: int = 0) -> None:
        raise ReaderExit(code)

    os._exit = exit_raises
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    except TargetError:
        raise
    except KeyboardInterrupt as error:
        if is_ctrl_c():
            raise
        raise TargetError(f"{what} raised {error_line(error)} of its own (no Ctrl-C came); nothing was "
                          "reported") from None
    except SystemExit as error:
        raise TargetError(f"{what} called sys.exit({error.code!r}): a function being diagnosed must return; "
                          "nothing was reported") from None
    except ReaderExit as error:
        raise TargetError(f"{what} called os._exit({error.code!r}): a function being diagnosed must return; "
                          "nothing was reported") from None
    except BaseException as error:  # noqa: BLE001 (GeneratorExit and the like, from the reader's code)
        raise TargetError(f"{what} raised {error_line(error)}") from None
    finally:
        os._exit = real_exit
