"""The reader's own code, run by ``tfspeedlab diagnose`` as a guest: whatever it does to end the
process or fill standard output, the command still ends with its report or a clear error.

Inside ``reader_code``:

* ``sys.exit``, ``os._exit`` (patched to raise for the while) and any other ``BaseException``
  but Ctrl-C become a ``TargetError`` saying what the code did, exit 2, as ``run`` treats an
  example that exits on its own;
* what the code prints goes to standard error, so standard output holds the report alone (and
  ``--json`` stays parseable).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from tfspeedlab.diagnosis.targets import TargetError, error_line


class ReaderExit(BaseException):
    """``os._exit`` called by the reader's code: raised instead, so the command can report it."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


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
    except (KeyboardInterrupt, TargetError):
        raise
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
