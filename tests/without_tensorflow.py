"""Run Python as in the docs install (``pip install -e ".[docs]"``), where the packages only measuring
needs are missing: TensorFlow, tf-keras, Keras 3 and XProf cannot be imported::

    python tests/without_tensorflow.py mkdocs build --strict     # as `python -m mkdocs build --strict`
    python tests/without_tensorflow.py -c "import tfspeedlab.site.plugin"

Every attempt to import one fails with ModuleNotFoundError, and is reported on standard error when
Python exits, even one the code caught: a site build that tries TensorFlow and copes would still
need it one day. The exit code is then ``ATTEMPTS_EXIT``. With ``WITHOUT_TENSORFLOW_PROBES=allowed``
attempts are not reported: for code that asks whether TensorFlow is there and says what to install.
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys
from importlib.abc import MetaPathFinder

# What the `measure` extra brings (and Keras 3, which TensorFlow brings).
BLOCKED = frozenset({"tensorflow", "tf_keras", "keras", "xprof"})
ATTEMPTS_EXIT = 3


class MeasuringPackagesBlocked(MetaPathFinder):
    """A finder ahead of all others that refuses the measuring packages and remembers each attempt."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            self.attempts.append(name)
            raise ModuleNotFoundError(f"No module named {name!r} (the docs install has no measuring packages)",
                                      name=name)
        return None


def _report(blocker: MeasuringPackagesBlocked) -> None:
    if blocker.attempts:
        sys.stdout.flush()
        print(f"without_tensorflow: imports attempted: {', '.join(sorted(set(blocker.attempts)))}", file=sys.stderr)
        sys.stderr.flush()
        os._exit(ATTEMPTS_EXIT)


def block() -> MeasuringPackagesBlocked:
    """From now on in this process, the measuring packages cannot be imported; attempts are reported at exit."""
    for name in list(sys.modules):  # nothing imported before counts as available
        if name.partition(".")[0] in BLOCKED:
            del sys.modules[name]
    blocker = MeasuringPackagesBlocked()
    sys.meta_path.insert(0, blocker)
    if os.environ.get("WITHOUT_TENSORFLOW_PROBES") != "allowed":
        atexit.register(_report, blocker)
    return blocker


def main() -> None:
    first, *rest = sys.argv[1:]
    block()
    sys.path[0] = os.getcwd()  # as under `python -m` or `-c`: the working folder first, not this script's
    if first == "-c":
        sys.argv = ["-c", *rest[1:]]
        exec(compile(rest[0], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = [first, *rest]
        runpy.run_module(first, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
