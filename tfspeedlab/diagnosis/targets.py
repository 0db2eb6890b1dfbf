"""What ``tfspeedlab diagnose`` measures: a function named ``path/to/file.py:function`` or
``package.module:function``, and its inputs from a function the reader names, which returns
``(args, kwargs)``. Every way this can go wrong is a ``TargetError`` with a message that says what
to fix; the reader's own traceback is kept for the cases where their code raised."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfspeedlab.core.results.checks import TextRule, printable
from tfspeedlab.harness.exits import UsageError

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


class TargetError(UsageError):
    """A target or inputs function that cannot be used; ``details`` holds the reader's traceback
    when their own code raised."""


@dataclass(frozen=True)
class Inputs:
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]


# A report's error line: long enough for any message a person wrote, short of a generated op name's screenful.
MAX_ERROR_LINE = 300


def error_line(error: BaseException) -> str:
    """``TypeError: the first line of its message`` (cut at ``MAX_ERROR_LINE``): what a report says of an
    error, as text a saved report's loader accepts (``checks.printable``: no control or invisible character)."""
    text = str(error).strip()
    line = f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__
    return printable(line, TextRule(MAX_ERROR_LINE))


def names_a_file(location: str) -> bool:
    """Whether a target's location (before the ``:``) is a file path rather than a module name."""
    return location.endswith(".py") or "/" in location or "\\" in location


def load_function(spec: str, what: str = "target") -> Callable[..., Any]:
    """``file.py:name`` or ``package.module:name`` → the callable it names."""
    location, separator, name = spec.rpartition(":")
    if not separator or not location or not _IDENTIFIER.fullmatch(name):
        raise TargetError(f"{what} {spec!r}: write it as path/to/file.py:function or package.module:function")
    module = _load_module(location, what)
    function = getattr(module, name, None)
    if function is None:
        defined = sorted(key for key, value in vars(module).items() if callable(value) and not key.startswith("_"))
        raise TargetError(f"{what} {spec!r}: {location} defines no {name!r}"
                          + (f"; it defines {', '.join(defined[:12])}" if defined else ""))
    if not callable(function):
        raise TargetError(f"{what} {spec!r}: {name} is a {type(function).__name__}, not a function")
    return function


def load_inputs(spec: str) -> Inputs:
    """Call the reader's inputs function: it must return ``(args, kwargs)`` (or just ``args``)."""
    make = load_function(spec, "--inputs")
    try:
        made = make()
    except Exception as error:  # noqa: BLE001 (the reader's code: report it, never a bare traceback)
        raise TargetError(f"--inputs {spec!r} raised {type(error).__name__}: {error}", traceback.format_exc()) from None
    if isinstance(made, tuple) and len(made) == 2 and isinstance(made[1], Mapping) and isinstance(made[0], (tuple, list)):
        return Inputs(tuple(made[0]), dict(made[1]))
    if isinstance(made, (tuple, list)):
        return Inputs(tuple(made), {})
    raise TargetError(f"--inputs {spec!r} returned a {type(made).__name__}; return (args, kwargs), "
                      "e.g. ((tf.ones([32, 10]),), {})")


def check_runs(function: Callable[..., Any], inputs: Inputs, spec: str) -> None:
    """Call the target once eagerly: inputs that don't fit, or a function that raises, stop here
    with the reader's error; a function that touches no TensorFlow is not something to diagnose."""
    import tensorflow as tf

    try:
        result = function(*inputs.args, **inputs.kwargs)
    except Exception as error:  # noqa: BLE001
        hint = (" (give it inputs with --inputs path.py:make_inputs)"
                if isinstance(error, TypeError) and not inputs.args and not inputs.kwargs else "")
        raise TargetError(f"{spec} raised {type(error).__name__} when called with the inputs: {error}{hint}",
                          traceback.format_exc()) from None
    if not any(isinstance(value, (tf.Tensor, tf.Variable)) for value in tf.nest.flatten(result)) and not any(
            isinstance(value, (tf.Tensor, tf.Variable)) for value in tf.nest.flatten((inputs.args, dict(inputs.kwargs)))):
        raise TargetError(f"{spec} neither takes nor returns a TensorFlow tensor: there is nothing for "
                          "tf.function or XLA to change (is it the function you meant?)")


def _load_module(location: str, what: str) -> Any:
    if names_a_file(location):
        path = Path(location)
        if not path.is_file():
            raise TargetError(f"{what}: no file {location}")
        spec = importlib.util.spec_from_file_location(f"tfspeedlab_target_{abs(hash(path.resolve()))}", path)
        if spec is None or spec.loader is None:
            raise TargetError(f"{what}: {location} is not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, str(path.resolve().parent))  # its own imports of neighbouring modules
        try:
            spec.loader.exec_module(module)
        except Exception as error:  # noqa: BLE001
            raise TargetError(f"{what}: importing {location} raised {type(error).__name__}: {error}",
                              traceback.format_exc()) from None
        finally:
            sys.path.remove(str(path.resolve().parent))
        return module
    try:
        return importlib.import_module(location)
    except ModuleNotFoundError as error:
        raise TargetError(f"{what}: no module {location!r} ({error})") from None
    except Exception as error:  # noqa: BLE001
        raise TargetError(f"{what}: importing {location} raised {type(error).__name__}: {error}",
                          traceback.format_exc()) from None
