"""The package's import graph: no cycles, imports only downwards, features apart, no lazy imports.

Every ``.py`` under ``tfspeedlab/`` is parsed with ``ast`` (nothing is
imported), so the check sees function-level imports as well as module-level
ones. A feature is one package; the layers and their ranks (a module may
import its own layer and lower ranks; features share a rank and never import
each other; nothing outside ``site`` and the entry points may import ``site``):

    0  core.units, core.spec, core.measure       what a measurement is
       core.memo                                 a cache its module owns
    1  core.profiling, core.kernel_split, core.resident_memory, core.allocators
    2  core.results                              results files: schema, store, pool, merge
    3  core.stats, core.wording                  intervals and statistics; the verdicts in words
    4  render                                    Markdown, directive registry and Context, chart helpers
    5  harness                                   running examples
    6  the features: backends, costmodel, diagnosis, fairness, history, memory, settings, xla
    7  site                                      the MkDocs plugin and the generic pages' directives
    8  cli, the package's __init__, __main__

An import under ``if TYPE_CHECKING:`` names a type for annotations only and
runs nothing, so it is no edge. An import of ``tfspeedlab.a.b`` is an edge to
that module only, not to its parent packages (whose ``__init__`` Python also
runs): the root ``__init__`` is the public API at the top, and counting it
would make every module depend on rank 8.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "tfspeedlab"
ROOT = "tfspeedlab"

FEATURES = ("backends", "costmodel", "diagnosis", "fairness", "history", "memory", "settings", "xla")
RANKS = {"core.units": 0, "core.spec": 0, "core.measure": 0, "core.memo": 0, "core": 0, "core.profiling": 1,
         "core.kernel_split": 1, "core.resident_memory": 1, "core.allocators": 1, "core.results": 2,
         "core.stats": 3, "core.wording": 3, "render": 4, "harness": 5, **dict.fromkeys(FEATURES, 6), "site": 7,
         "cli": 8, "__init__": 8, "__main__": 8}


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer(module: str) -> str:
    """``tfspeedlab.core.results.schema`` → ``core.results``; ``tfspeedlab.history.trends`` →
    ``history``; the root package → ``__init__``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return ".".join(parts[1:3]) if parts[1] == "core" and len(parts) > 2 else parts[1]


def discover(package: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(path, package): path for path in sorted(package.rglob("*.py"))}


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([target] if target else []))


def imports_of(source: str, module: str, is_package: bool, known: set[str]) -> list[tuple[str, int, bool]]:
    """(imported tfspeedlab module, line, inside a function?) for every import statement in ``source``."""
    found: list[tuple[str, int, bool]] = []

    def add(name: str, line: int, in_function: bool) -> None:
        if name == ROOT or name.startswith(ROOT + "."):
            found.append((name, line, in_function))

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno, in_function)
        elif isinstance(node, ast.ImportFrom):
            base = (_resolve_relative(module, is_package, node.level, node.module) if node.level
                    else node.module or "")
            for alias in node.names:
                # `from tfspeedlab.core.results import artifacts` imports the submodule when there is one.
                submodule = f"{base}.{alias.name}"
                add(submodule if submodule in known else base, node.lineno, in_function)
        if _type_checking_only(node):
            return
        inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(ast.parse(source), False)
    return found


def _type_checking_only(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): what it imports never runs."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_graph(package: Path = PACKAGE):
    """Module → {imported module: first line}, and every function-level import of a tfspeedlab module."""
    modules = discover(package)
    known = set(modules)
    graph: dict[str, dict[str, int]] = {name: {} for name in modules}
    lazy: list[str] = []
    for name, path in modules.items():
        for target, line, in_function in imports_of(path.read_text(encoding="utf-8"), name,
                                                     path.name == "__init__.py", known):
            where = f"{path.relative_to(package.parent).as_posix()}:{line} imports {target}"
            if in_function:
                lazy.append(where)
            if target not in known:
                raise AssertionError(f"{where}, which is not a module of the package")
            if target != name:
                graph[name].setdefault(target, line)
    return graph, lazy


def find_cycle(graph: dict[str, object]) -> list[str] | None:
    """One cycle as [a, b, ..., a], or None; ``graph`` maps a node to an iterable of its successors."""
    white, grey, black = 0, 1, 2
    colour = {node: white for node in graph}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = grey
        stack.append(node)
        for successor in sorted(graph.get(node, ())):
            state = colour.get(successor, white)
            if state == grey:
                return stack[stack.index(successor):] + [successor]
            if state == white:
                colour.setdefault(successor, white)
                cycle = visit(successor)
                if cycle:
                    return cycle
        stack.pop()
        colour[node] = black
        return None

    for node in sorted(graph):
        if colour[node] == white:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def forbidden(source: str, target: str) -> str | None:
    """Why ``source`` may not import ``target``, or None when it may."""
    a, b = layer(source), layer(target)
    if a == b:
        return None
    if a in FEATURES and b in FEATURES:
        return f"features never import each other: {a} and {b} (what both need belongs in core or render)"
    if RANKS[b] > RANKS[a]:
        return f"{a} (rank {RANKS[a]}) may not import {b} (rank {RANKS[b]})"
    return None


# ------------------------------------------------------------ the checks themselves


def test_the_cycle_detector_finds_a_hand_made_cycle():
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ["a"]}) == ["a", "a"]
    assert find_cycle({"a": ["b", "c"], "b": ["c"], "c": []}) is None  # a diamond is not a cycle


def test_the_import_parser_sees_every_kind_of_import(tmp_path):
    package = tmp_path / "tfspeedlab"
    (package / "core" / "results").mkdir(parents=True)
    for name in ("__init__.py", "core/__init__.py", "core/units.py", "core/results/__init__.py",
                 "core/results/artifacts.py", "core/results/schema.py"):
        (package / name).write_text("")
    (package / "core" / "results" / "store.py").write_text(
        "import os\n"
        "import tfspeedlab.core.units\n"
        "from tfspeedlab.core.results import artifacts, schema\n"
        "from . import schema as again\n"
        "def later():\n"
        "    from tfspeedlab.core.units import x\n"
        "    import tensorflow\n"
    )
    (package / "core" / "units.py").write_text("from tfspeedlab.core.results.store import y\n")
    graph, lazy = import_graph(package)
    assert graph["tfspeedlab.core.results.store"] == {"tfspeedlab.core.units": 2, "tfspeedlab.core.results.artifacts": 3,
                                                      "tfspeedlab.core.results.schema": 3}
    assert lazy == ["tfspeedlab/core/results/store.py:6 imports tfspeedlab.core.units"]  # not tensorflow
    assert find_cycle(graph) == ["tfspeedlab.core.results.store", "tfspeedlab.core.units", "tfspeedlab.core.results.store"]
    assert forbidden("tfspeedlab.core.units", "tfspeedlab.core.results.store")


def test_the_layer_rules():
    assert forbidden("tfspeedlab.core.stats.sweeps", "tfspeedlab.core.results.schema") is None
    assert forbidden("tfspeedlab.core.results.schema", "tfspeedlab.core.stats.sweeps")
    assert forbidden("tfspeedlab.core.wording", "tfspeedlab.render.markdown")
    assert forbidden("tfspeedlab.render.context", "tfspeedlab.diagnosis.saved")
    assert forbidden("tfspeedlab.harness.standalone", "tfspeedlab.site.tables")
    assert forbidden("tfspeedlab.history.directives", "tfspeedlab.memory.tables")
    assert forbidden("tfspeedlab.history.directives", "tfspeedlab.render.context") is None
    assert forbidden("tfspeedlab.diagnosis.command", "tfspeedlab.harness.launch") is None
    assert forbidden("tfspeedlab.harness.worker", "tfspeedlab.diagnosis.targets")
    assert forbidden("tfspeedlab.site.plugin", "tfspeedlab.history.charts") is None
    assert forbidden("tfspeedlab.xla.pairs", "tfspeedlab.site.tables")
    assert forbidden("tfspeedlab.cli", "tfspeedlab.site.plugin") is None
    assert forbidden("tfspeedlab.site.plugin", "tfspeedlab.site.tables") is None


def test_an_import_for_annotations_only_is_no_edge():
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tfspeedlab.site import tables\n"
    assert imports_of(source, "tfspeedlab.render.context", False, {"tfspeedlab.site.tables"}) == []


@pytest.fixture(scope="module")
def package_graph():
    return import_graph()


def test_every_module_belongs_to_a_ranked_layer(package_graph):
    graph, _ = package_graph
    assert "tfspeedlab.core.results.artifacts" in graph and "tfspeedlab.site.plugin" in graph
    unranked = sorted(name for name in graph if layer(name) not in RANKS)
    assert not unranked, f"give these modules' layers a rank: {unranked}"


def test_no_import_cycle_between_modules(package_graph):
    graph, _ = package_graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " → ".join(cycle)


def test_imports_go_only_downwards(package_graph):
    graph, _ = package_graph
    wrong = [f"{source} → {target} (line {line}): {why}"
             for source, targets in sorted(graph.items()) for target, line in sorted(targets.items())
             if (why := forbidden(source, target))]
    assert not wrong, "\n".join(wrong)


def test_no_function_level_import_of_a_tfspeedlab_module(package_graph):
    _, lazy = package_graph
    assert not lazy, "import these at module level (lazy imports hide the dependency):\n" + "\n".join(lazy)
