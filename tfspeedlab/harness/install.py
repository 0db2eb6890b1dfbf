"""Whether this install can measure: TensorFlow comes with the ``measure`` extra, not with the core.

The docs install (``pip install -e ".[docs]"``) builds and serves the site and holds no TensorFlow.
A command that measures (``run``, ``diagnose``, ``env``) would otherwise fail deep inside a worker,
once per example, with an ImportError: it refuses in one line instead, naming the extra to add.
"""

from __future__ import annotations

import importlib.util

from tfspeedlab.harness.exits import UsageError

MEASURE_INSTALL = 'pip install -e ".[measure]"'


def tensorflow_installed() -> bool:
    """Whether ``import tensorflow`` can find a package, without importing it (a 4-second import)."""
    try:
        return importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):  # a finder that refuses it; a stub left in sys.modules
        return False


def require_tensorflow(command: str) -> None:
    """``UsageError`` when ``command`` measures and this install has no TensorFlow."""
    if not tensorflow_installed():
        raise UsageError(f"'tfspeedlab {command}' measures with TensorFlow, which this install does not have "
                         f"(the docs install leaves it out): {MEASURE_INSTALL}")
