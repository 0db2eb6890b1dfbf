"""The example scripts in ``examples/``: found by file name, loaded by path."""

from __future__ import annotations

import difflib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tfspeedlab.core.results.repo import examples_dir
from tfspeedlab.core.spec.names import example_name_problem

# jupytext percent format: the first Markdown cell opens with "# # Title".
_TITLE = re.compile(r"^# #\s+(?P<title>.+)$", re.MULTILINE)


class UnknownExampleError(LookupError):
    def __init__(self, unknown: list[str], known: list[str]) -> None:
        self.unknown = unknown
        self.known = known
        named = ", ".join(_with_suggestion(name, known) for name in unknown)
        super().__init__(f"unknown example(s): {named}. Valid names: {', '.join(known) if known else '(none found)'}")


def _with_suggestion(name: str, known: list[str]) -> str:
    """``smal_ops (did you mean small_ops?)``: a misspelt name with the nearest valid one, as git and
    argparse suggest; the name alone where none is near."""
    nearest = difflib.get_close_matches(name, known, n=1)
    return f"{name} (did you mean {nearest[0]}?)" if nearest else name


@dataclass(frozen=True)
class ExampleScript:
    name: str
    path: Path

    @property
    def title(self) -> str:
        # A file that is not UTF-8 still gets listed; importing it is what fails, and is reported.
        match = _TITLE.search(self.path.read_text(encoding="utf-8", errors="replace"))
        return match["title"].strip() if match else self.name

    def load(self) -> ModuleType:
        """Import the script as a module (its ``__main__`` block does not run)."""
        spec = importlib.util.spec_from_file_location(f"tfspeedlab_examples.{self.name}", self.path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not callable(getattr(module, "workload", None)):
            raise AttributeError(f"{self.path} defines no workload(quick=False) function")
        return module


class ExamplesFolderError(LookupError):
    """The folder of examples does not exist."""


def discover(directory: Path | None = None) -> dict[str, ExampleScript]:
    """The example scripts in ``directory``: ``*.py`` files whose names can name results files."""
    directory = Path(directory or examples_dir())
    if not directory.is_dir():
        raise ExamplesFolderError(f"{directory}: no such folder of examples")
    return {
        path.stem: ExampleScript(path.stem, path)
        for path in sorted(directory.glob("*.py"))
        if not path.name.startswith("_") and example_name_problem(path.stem) is None
    }


def select(names: list[str], directory: Path | None = None) -> list[ExampleScript]:
    """The named examples, each once, in the order given (all when ``names`` is empty), or UnknownExampleError."""
    available = discover(directory)
    unknown = [name for name in names if name not in available]
    if unknown:
        raise UnknownExampleError(unknown, sorted(available))
    return [available[name] for name in dict.fromkeys(names)] if names else list(available.values())
