"""The package's shape, checked on its source: one wording module, no module reaching into another's
private names, no catch-all around directive handlers, exit codes and usage errors defined once."""

import ast
import re
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "tfspeedlab"
WORDING = PACKAGE / "core" / "wording.py"
# What words a verdict: only the wording module may spell these, in a string, an f-string or a format
# string. A factor and a verdict word ("2.0× faster", "{}× slower", "{} faster"), a comparison
# ("faster than"), the four verdicts' own phrases and every phrase they retired.
VERDICT_PATTERNS = [re.compile(pattern, re.IGNORECASE) for pattern in (
    r"(×|\{\})\s*(faster|slower)\b", r"\b(faster|slower) than\b", r"\binconclusive\b",
    r"\bthe same within\b", r"\bno clear\b", r"\bnot clearly\b", r"\bnot measurabl", r"\bprovisional",
    r"\bno material\b", r"\bno growth\b", r"\bno significant\b", r"\bno clear change\b",
    r"^\s*(faster|slower|the same)\s*$")]


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _documentation(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that document or match rather than print: docstrings, a directive's
    description (``directive(NAME, DESCRIPTION)``, ``table_directive`` likewise) and a ``re.compile`` pattern, which may quote what
    the wording module prints; and the constant parts of f-strings, read with their f-string."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("directive", "table_directive") and len(node.args) > 1):
            found |= {id(part) for part in ast.walk(node.args[1])}
        elif isinstance(node, ast.JoinedStr):
            found |= {id(value) for value in node.values}
    for node in ast.walk(tree):
        # A regular expression matches the wording module's phrases; it prints none.
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compile"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args):
            found |= {id(part) for part in ast.walk(node.args[0])}
    return found


def _texts(tree: ast.AST):
    """Every string a module can print: each constant, and each f-string read with ``{}`` for its
    placeholders (``{Verdict.FASTER}`` read as the word it stands for)."""
    skip = _documentation(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value
        elif isinstance(node, ast.JoinedStr) and id(node) not in skip:
            parts = []
            for value in node.values:
                if isinstance(value, ast.Constant):
                    parts.append(str(value.value))
                elif (isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Attribute)
                      and isinstance(value.value.value, ast.Name) and value.value.value.id in ("Verdict", "Growth")):
                    parts.append(value.value.attr.lower())
                else:
                    parts.append("{}")
            yield node.lineno, "".join(parts)


def verdict_literals(source: str) -> list[str]:
    return [f"line {line}: {text!r}" for line, text in _texts(ast.parse(source))
            if any(pattern.search(text) for pattern in VERDICT_PATTERNS)]


def private_imports(source: str) -> list[str]:
    """Every ``from tfspeedlab… import _name`` and ``module._name`` of an imported tfspeedlab module:
    a private name is its module's own business, so a module sized by its job needs no seam."""
    tree = ast.parse(source)
    modules, found = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tfspeedlab"):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_the_private_name_checker_finds_an_import_and_an_attribute():
    source = "from tfspeedlab.render import charts\nfrom tfspeedlab.render.charts import _svg\ncharts._style()\n"
    assert private_imports(source) == ["line 2: from tfspeedlab.render.charts import _svg", "line 3: charts._style"]
    assert private_imports("from tfspeedlab.render import charts\ncharts.figure_svg()\n") == []


@pytest.mark.parametrize("folder", ["tfspeedlab", "tests"])
def test_no_module_or_test_reaches_into_another_modules_private_names(folder):
    found = {path.relative_to(REPO).as_posix(): hits for path in sorted((REPO / folder).rglob("*.py"))
             if (hits := private_imports(path.read_text(encoding="utf-8")))}
    assert not found, f"make these names public, or keep their use inside their module: {found}"


def test_the_verdict_checker_finds_a_verdict_in_a_literal_an_f_string_or_a_format_string():
    assert verdict_literals('word = "faster"\nif word == "no clear difference": pass') == [
        "line 1: 'faster'", "line 2: 'no clear difference'"]
    assert verdict_literals('x = f"{ratio} {Verdict.FASTER}"') == ["line 1: '{} faster'"]
    assert verdict_literals('x = f"{format_ratio(v)}× slower [{low}]"') == ["line 1: '{}× slower [{}]'"]
    assert verdict_literals('x = "{}× faster".format(v)') == ["line 1: '{}× faster'"]
    assert verdict_literals('x = f"{a} is inconclusive here"') == ["line 1: '{} is inconclusive here'"]
    assert verdict_literals('x = "%s faster than eager" % a') == ["line 1: '%s faster than eager'"]
    # A docstring may quote the wording module; a sentence that only mentions speed is no verdict.
    assert verdict_literals('def f():\n    """Reads ``2× faster``."""\nx = "a faster machine"') == []


def test_verdict_words_are_spelt_only_in_the_wording_module():
    found = {path.relative_to(REPO).as_posix(): literals for path in sources() if path != WORDING
             if (literals := verdict_literals(path.read_text(encoding="utf-8")))}
    assert not found, f"use tfspeedlab.core.wording (Verdict, its phrases) instead: {found}"


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
    assert printed == {"tfspeedlab/cli.py": 1}, "raise UsageError (tfspeedlab.harness.exits); cli.main prints it"
    definitions = [f"{path.relative_to(REPO)}: {match}" for path, source in text.items()
                   for match in re.findall(r"^(EXIT_\w+)\s*=", source, flags=re.MULTILINE)]
    names = [line.split(": ")[1] for line in definitions]
    assert len(names) == len(set(names)), definitions


@pytest.mark.parametrize("module", ["tfspeedlab.render.errors", "tfspeedlab.site.directives"])
def test_one_directive_error_base(module):
    import importlib

    from tfspeedlab.render.errors import DirectiveError

    assert importlib.import_module(module).DirectiveError is DirectiveError
    subclasses = [cls.__name__ for cls in DirectiveError.__subclasses__()]
    assert subclasses == [], "one DirectiveError, no family of them"
