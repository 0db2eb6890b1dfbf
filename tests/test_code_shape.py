"""The package's shape, checked on its source: one wording module, small modules, no catch-all
around directive handlers, exit codes and usage errors defined once."""

import ast
import re
from pathlib import Path

import pytest

from conftest import REPO
from tfspeedlab.analysis.wording import Verdict

PACKAGE = REPO / "tfspeedlab"
WORDING = PACKAGE / "analysis" / "wording.py"
MAX_LINES = 500
# Phrases that are verdicts by themselves: only the wording module may spell them.
VERDICT_PHRASES = {str(verdict) for verdict in Verdict} | {
    "faster than", "slower than", "not clearly different from", "not clearly different", "XLA faster",
    "XLA slower", "faster here", "slower here", "no significant difference", "no clear change"}


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def string_constants(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node


def test_no_module_is_over_500_lines():
    long = {path.relative_to(REPO).as_posix(): count for path in sources()
            if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these modules (each over {MAX_LINES} lines): {long}"


def verdict_literals(source: str) -> list[str]:
    return [f"line {node.lineno}: {node.value!r}" for node in string_constants(ast.parse(source))
            if node.value.strip() in VERDICT_PHRASES]


def test_the_verdict_checker_finds_a_verdict_word_as_a_literal():
    assert verdict_literals('word = "faster"\nif word == "no clear difference": pass') == [
        "line 1: 'faster'", "line 2: 'no clear difference'"]
    assert verdict_literals('f"{ratio} {Verdict.FASTER}"\n"a sentence that says faster"') == []


def test_verdict_words_are_spelt_only_in_the_wording_module():
    found = {path.relative_to(REPO).as_posix(): literals for path in sources() if path != WORDING
             if (literals := verdict_literals(path.read_text(encoding="utf-8")))}
    assert not found, f"use tfspeedlab.analysis.wording (Verdict, its phrases) instead: {found}"


def test_no_catch_all_around_directive_handlers():
    """A bug in a handler (a TypeError, a KeyError) must fail the build with its traceback."""
    broad = {"KeyError", "TypeError", "ValueError", "Exception", "BaseException", "LookupError"}
    found = []
    for path in sorted((PACKAGE / "site").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ExceptHandler) and node.type is not None:
                names = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
                if "TypeError" in names or ({"KeyError", "ValueError"} <= names) or names & {"Exception", "BaseException"}:
                    found.append(f"{path.relative_to(REPO).as_posix()}:{node.lineno} catches {sorted(names & broad)}")
    assert not found, found


def test_usage_errors_and_exit_codes_are_defined_once():
    text = {path: path.read_text(encoding="utf-8") for path in sources()}
    printed = {path.relative_to(REPO).as_posix(): source.count("tfspeedlab: error:") for path, source in text.items()
               if "tfspeedlab: error:" in source}
    assert printed == {"tfspeedlab/cli.py": 1}, "raise UsageError (tfspeedlab.run.exits); cli.main prints it"
    definitions = [f"{path.relative_to(REPO)}: {match}" for path, source in text.items()
                   for match in re.findall(r"^(EXIT_\w+)\s*=", source, flags=re.MULTILINE)]
    names = [line.split(": ")[1] for line in definitions]
    assert len(names) == len(set(names)), definitions


@pytest.mark.parametrize("module", ["tfspeedlab.site.errors", "tfspeedlab.site.directives"])
def test_one_directive_error_base(module):
    import importlib

    from tfspeedlab.site.errors import DirectiveError

    assert importlib.import_module(module).DirectiveError is DirectiveError
    subclasses = [cls.__name__ for cls in DirectiveError.__subclasses__()]
    assert subclasses == [], "one DirectiveError, no family of them"
