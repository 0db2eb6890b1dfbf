"""The package's import graph: no cycles, imports only downwards, no lazy imports of our own modules.

Every ``.py`` under ``tfspeedlab/`` is parsed with ``ast`` (nothing is
imported), so the check sees function-level imports as well as module-level
ones. Layers and their ranks (a module may import its own layer and lower
ranks; ``run`` and ``site`` share a rank but may not import each other, and
nothing outside ``site`` may import it):

    0  units, spec, measure
    1  profiling, resident_memory
    2  results
    3  analysis
    4  run, site
    5  cli, the package's __init__, __main__

An import of ``tfspeedlab.a.b`` is an edge to that module only, not to its
parent packages (whose ``__init__`` Python also runs): the root ``__init__``
is the public API at the top, and counting it would make every module depend
on rank 5.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "tfspeedlab"
ROOT = "tfspeedlab"

RANKS = {"units": 0, "spec": 0, "measure": 0, "profiling": 1, "resident_memory": 1, "results": 2, "analysis": 3,
         "run": 4, "site": 4, "cli": 5, "__init__": 5, "__main__": 5}
# Equal-rank layers that still may not import each other (either way).
SEPARATE = {frozenset({"run", "site"})}


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer(module: str) -> str:
    """``tfspeedlab.results.schema`` → ``results``; the root package → ``__init__``."""
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


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
                # `from tfspeedlab.results import artifacts` imports the submodule when there is one.
                submodule = f"{base}.{alias.name}"
                add(submodule if submodule in known else base, node.lineno, in_function)
        inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(ast.parse(source), False)
    return found


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
    if b == "site":
        return "nothing outside tfspeedlab.site may import it"
    if frozenset({a, b}) in SEPARATE:
        return f"{a} and {b} may not import each other"
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
    (package / "results").mkdir(parents=True)
    for name in ("__init__.py", "units.py", "results/__init__.py", "results/artifacts.py", "results/schema.py"):
        (package / name).write_text("")
    (package / "results" / "store.py").write_text(
        "import os\n"
        "import tfspeedlab.units\n"
        "from tfspeedlab.results import artifacts, schema\n"
        "from . import schema as again\n"
        "def later():\n"
        "    from tfspeedlab.units import x\n"
        "    import tensorflow\n"
    )
    (package / "units.py").write_text("from tfspeedlab.results.store import y\n")
    graph, lazy = import_graph(package)
    assert graph["tfspeedlab.results.store"] == {"tfspeedlab.units": 2, "tfspeedlab.results.artifacts": 3,
                                                 "tfspeedlab.results.schema": 3}
    assert lazy == ["tfspeedlab/results/store.py:6 imports tfspeedlab.units"]  # not tensorflow
    assert find_cycle(graph) == ["tfspeedlab.results.store", "tfspeedlab.units", "tfspeedlab.results.store"]
    assert forbidden("tfspeedlab.units", "tfspeedlab.results.store")


def test_the_layer_rules():
    assert forbidden("tfspeedlab.analysis.sweeps", "tfspeedlab.results.schema") is None
    assert forbidden("tfspeedlab.results.schema", "tfspeedlab.analysis.sweeps")
    assert forbidden("tfspeedlab.run.report", "tfspeedlab.site.tables")
    assert forbidden("tfspeedlab.site.tables", "tfspeedlab.run.catalog")
    assert forbidden("tfspeedlab.cli", "tfspeedlab.site.plugin")
    assert forbidden("tfspeedlab", "tfspeedlab.site")
    assert forbidden("tfspeedlab.site.plugin", "tfspeedlab.site.tables") is None
    assert forbidden("tfspeedlab.cli", "tfspeedlab.run.catalog") is None


@pytest.fixture(scope="module")
def package_graph():
    return import_graph()


def test_every_module_belongs_to_a_ranked_layer(package_graph):
    graph, _ = package_graph
    assert "tfspeedlab.results.artifacts" in graph and "tfspeedlab.site.plugin" in graph
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
