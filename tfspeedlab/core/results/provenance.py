"""Is a results file older than the code it describes?

The code that decides what an example measures is the example script, every
module of ``tfspeedlab.core.measure`` (the timing procedure) and any other
``tfspeedlab`` module the example imports by name (``profiling``). A result is
fresh when each top-level definition of that code — function, class or
constant — has an identical twin anywhere in the repository at the measured
commit. "Identical" is compared on the syntax tree without imports,
docstrings, comments and the descriptive arguments of ``Workload(...)``
(title, params, baseline, layout: recorded in the results file as they were
measured). So moving a module, renaming an import or rewording a docstring
leaves results fresh; changing a timing rule, a budget or a case does not.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import tfspeedlab.core.measure
from tfspeedlab.core.memo import Memo
from tfspeedlab.core.results.repo import REPO_ROOT, examples_dir, git_objects, run_git
from tfspeedlab.core.results.schema import ResultsFile

# Workload(...) keywords that describe results rather than decide a timing.
DESCRIPTIVE_KEYWORDS = frozenset({"title", "params", "baseline", "layout"})


@dataclass(frozen=True)
class Freshness:
    """``fresh`` is None when it cannot be told; when it is False, ``changed`` names the first
    definition that differs (the example script first), ``path`` its file, and ``new`` says that
    no definition of that name existed at the measured commit."""

    fresh: bool | None
    reason: str
    changed: str | None = None
    path: str | None = None
    new: bool = False


def measuring_files(example: str) -> list[Path]:
    """The example script, the ``measure`` package, and the tfspeedlab modules the example imports."""
    script = examples_dir() / f"{example}.py"
    files = [script, *sorted(Path(tfspeedlab.core.measure.__file__).parent.glob("*.py"))]
    if script.exists():
        for module in _imported_tfspeedlab_modules(script.read_text(encoding="utf-8")):
            files += _module_files(module)
    return list(dict.fromkeys(path.resolve() for path in files))


def _imported_tfspeedlab_modules(source: str) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tfspeedlab"):
            imported = [f"{node.module}.{alias.name}" for alias in node.names]
            # A package whose submodules alone are imported (`from tfspeedlab.core import profiling`)
            # adds only them: its other modules are no choice of the example's.
            if not all(_is_module(name) for name in imported):
                names.append(node.module)
            names += imported
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names if alias.name.startswith("tfspeedlab.")]
    # `import tfspeedlab` alone is the public API, not a module choice of the example's.
    return [name for name in names if name != "tfspeedlab"]


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False  # a name imported from a module (a class, a function)


def _module_files(name: str) -> list[Path]:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []  # a name imported from a module (a class, a function), not a module
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return []
    origin = Path(spec.origin)
    return sorted(origin.parent.glob("*.py")) if origin.name == "__init__.py" else [origin]


def definitions(source: str) -> dict[str, set[str]]:
    """Top-level definitions by name, each as the digest of its normalised syntax-tree dump (see the
    module docstring): equal digests, equal definitions, and small enough to keep between builds."""
    found: dict[str, set[str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or _is_docstring(node):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)]
        else:
            names = ["<module statements>"]
        dump = ast.dump(_Normaliser().visit(node), annotate_fields=False, include_attributes=False)
        for name in names:
            found.setdefault(name, set()).add(hashlib.sha256(dump.encode()).hexdigest())
    return found


class _Normaliser(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if called == "Workload":
            node.keywords = [k for k in node.keywords if k.arg not in DESCRIPTIVE_KEYWORDS]
        return node

    def _body_without_docstring(self, node):
        self.generic_visit(node)
        if node.body and _is_docstring(node.body[0]):
            node.body = node.body[1:] or [ast.Pass()]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _body_without_docstring


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


# A site build asks the same questions for every results file.
_git = functools.cache(run_git)


# Each commit's definitions, read once: a commit's files never change, so a site build keeps these
# between builds (``tfspeedlab.site.build_cache``).
DEFINITIONS_CACHE: Memo[str, dict[str, set[str]]] = Memo()


def definitions_at(commit: str) -> dict[str, set[str]]:
    """Every top-level definition of the package and the examples at ``commit``, merged by name: all of
    the commit's files read (kept in ``DEFINITIONS_CACHE``, which ``freshness`` then reads instead)."""
    return DEFINITIONS_CACHE.get(commit, lambda: _read_definitions_at(commit))


# Each file version's definitions, by its blob hash: the commits a results tree was measured at share
# most of their files, and each version is parsed once however many commits hold it.
_BLOB_DEFINITIONS: dict[str, dict[str, set[str]]] = {}


def _python_blobs(commit: str) -> list[tuple[str, str]]:
    """(path, blob hash) of each ``.py`` file of the package and the examples at ``commit``."""
    listing = _git("ls-tree", "-r", commit, "--", "tfspeedlab", _repo_relative(examples_dir())) or ""
    found = []
    for line in listing.splitlines():  # "<mode> blob <hash>\t<path>"
        kind, _, path = line.partition("\t")
        mode_type_hash = kind.split()
        if path.endswith(".py") and len(mode_type_hash) == 3 and mode_type_hash[1] == "blob":
            found.append((path, mode_type_hash[2]))
    return found


def _blob_definitions(blob: str, source: str) -> dict[str, set[str]]:
    if blob not in _BLOB_DEFINITIONS:
        try:
            _BLOB_DEFINITIONS[blob] = definitions(source)
        except SyntaxError:
            _BLOB_DEFINITIONS[blob] = {}
    return _BLOB_DEFINITIONS[blob]


def _read_definitions_at(commit: str) -> dict[str, set[str]]:
    blobs = [blob for _, blob in _python_blobs(commit)]
    unread = [blob for blob in dict.fromkeys(blobs) if blob not in _BLOB_DEFINITIONS]
    for blob, source in git_objects(unread).items():
        _blob_definitions(blob, source)
    merged: dict[str, set[str]] = {}
    for blob in blobs:
        for name, dumps in _BLOB_DEFINITIONS.get(blob, {}).items():
            merged.setdefault(name, set()).update(dumps)
    return merged


# A build asks for the same few files' definitions once per results file; read only.
_current_definitions = functools.lru_cache(maxsize=256)(definitions)


def _repo_relative(path: Path) -> str:
    try:
        return path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def freshness(results: ResultsFile) -> Freshness:
    """Fresh, stale (naming the first definition that changed) or unknown, for one results file."""
    measured = results.environment.get("git_commit")
    if not measured:
        return Freshness(None, "unknown (no commit recorded)")
    if _git("cat-file", "-e", f"{measured}^{{commit}}") is None:
        return Freshness(None, "unknown (commit not in this clone)")
    dirty = bool(results.environment.get("git_dirty"))
    files = measuring_files(results.example)
    return FRESHNESS_CACHE.get(_freshness_key(measured, dirty, files), lambda: _freshness(measured, dirty, files))


# Each verdict by what it reads (``_freshness_key``): a site build keeps these between builds
# (``tfspeedlab.site.build_cache``), so a warm build parses nothing when no measuring file changed.
FRESHNESS_CACHE: Memo[str, Freshness] = Memo()
# Every reason a verdict can give: a kept verdict must hold one of these (``kept_freshness``).
REASONS = ("unknown (no commit recorded)", "unknown (commit not in this clone)", "code changed", "yes",
           "yes (measured with uncommitted changes)")


def kept_freshness(kept: object) -> Freshness | None:
    """A verdict from its JSON form (``dataclasses.astuple``), or None for anything ``freshness`` could
    not have given: a kept file someone edited must not put a made-up reason on the Runners page."""
    if not (isinstance(kept, list) and len(kept) == 5):
        return None
    fresh, reason, changed, path, new = kept
    if (fresh not in (True, False, None) or reason not in REASONS or not isinstance(new, bool)
            or not all(item is None or isinstance(item, str) for item in (changed, path))
            or (fresh is False) != (reason == "code changed") or (fresh is False) != (changed is not None)):
        return None
    return Freshness(fresh, reason, changed, path, new)


def _freshness_key(measured: str, dirty: bool, files: list[Path]) -> str:
    """A digest of all a verdict reads: the measured commit (whose files never change), whether it was
    measured dirty, and each measuring file's path and bytes (or its absence)."""
    key = hashlib.sha256(f"{measured}|{dirty}".encode())
    for path in files:
        key.update(b"|" + _repo_relative(path).encode() + b"\0")
        key.update(path.read_bytes() if path.exists() else b"\0absent")
    return key.hexdigest()


def _freshness(measured: str, dirty: bool, files: list[Path]) -> Freshness:
    then = _KeptDefinitions(definitions_at(measured)) if measured in DEFINITIONS_CACHE else _commit_tree(measured)
    for path in files:
        if not path.exists() or then.holds_unchanged(path):
            continue  # an unchanged file's definitions are the commit's own: each has its twin there
        near = then.near(path)
        for name, dumps in _current_definitions(path.read_text(encoding="utf-8")).items():
            if dumps <= near.get(name, set()):
                continue  # the commit holds it where it was (or in the file the module moved from)
            held = then.named(name)
            if not dumps <= held:
                return Freshness(False, "code changed", name, _repo_relative(path), new=not held)
    return Freshness(True, "yes (measured with uncommitted changes)" if dirty else "yes")


class _KeptDefinitions:
    """A commit's definitions as an earlier build kept them (``DEFINITIONS_CACHE``): every one at hand."""

    def __init__(self, found: dict[str, set[str]]) -> None:
        self.found = found

    def holds_unchanged(self, path: Path) -> bool:
        return False

    def near(self, path: Path) -> dict[str, set[str]]:
        return self.found

    def named(self, name: str) -> set[str]:
        return self.found.get(name, set())


class _CommitTree:
    """A commit's definitions, read only where a question needs them, with ``definitions_at``'s
    answers (``tests/test_provenance_fast_path.py`` compares the verdicts).

    Parsing every file of each measured commit was most of a cold build's freshness check (2.5 s),
    while nearly every measuring file is byte for byte the file the commit holds at its path: its
    definitions are among the commit's, so it is not parsed at all (``holds_unchanged``). A file that
    changed is compared first with the commit's files at its path or of its name (``near``: a module
    that moved keeps its name), which hold nearly all its definitions; a definition not there is
    looked for in every file of the commit whose text holds its name (a definition named N is written
    with N in its file's source), as the full merge would find it. Each check on a part of the commit
    that passes passes on the whole; one that fails is asked of the whole: the same verdicts.
    """

    def __init__(self, commit: str) -> None:
        self.blob_at: dict[str, str] = {}  # repo-relative path → blob hash, the .py files that count
        self.blobs_named: dict[str, list[str]] = {}  # file name → blob hashes, wherever the commit holds it
        for path, blob in _python_blobs(commit):
            self.blob_at[path] = blob
            self.blobs_named.setdefault(PurePosixPath(path).name, []).append(blob)
        self._near: dict[str, dict[str, set[str]]] = {}

    def holds_unchanged(self, path: Path) -> bool:
        blob = self.blob_at.get(_repo_relative(path))
        return blob is not None and blob == _blob_hash(path.read_bytes())

    def near(self, path: Path) -> dict[str, set[str]]:
        """The definitions of the commit's files at ``path`` or of its file name, merged."""
        relative = _repo_relative(path)
        if relative not in self._near:
            blobs = [self.blob_at[relative]] if relative in self.blob_at else []
            blobs = list(dict.fromkeys(blobs + self.blobs_named.get(path.name, [])))
            merged: dict[str, set[str]] = {}
            for blob, source in _blob_texts(blobs).items():
                for name, dumps in _blob_definitions(blob, source).items():
                    merged.setdefault(name, set()).update(dumps)
            self._near[relative] = merged
        return self._near[relative]

    def named(self, name: str) -> set[str]:
        """Every definition of ``name`` in the commit: ``definitions_at(commit).get(name, set())``."""
        # "<module statements>" (or a name spelled otherwise in the source) is looked for in every file.
        searched = name.isidentifier() and name.isascii()
        held: set[str] = set()
        for blob, source in _blob_texts(list(dict.fromkeys(self.blob_at.values()))).items():
            if not searched or name in source:
                held |= _blob_definitions(blob, source).get(name, set())
        return held


# One per measured commit: several results files share one.
_commit_tree = functools.lru_cache(maxsize=64)(_CommitTree)


def forget_commits() -> None:
    """Forget every commit's definitions read so far (kept or in part), as a new process would."""
    DEFINITIONS_CACHE.clear()
    FRESHNESS_CACHE.clear()
    _commit_tree.cache_clear()


# Each file version's text, by its blob hash, once read.
_BLOB_TEXTS: dict[str, str] = {}


def _blob_texts(blobs: list[str]) -> dict[str, str]:
    """The text of each blob (in ``blobs``' order; one git cannot read is left out), read once."""
    unread = [blob for blob in blobs if blob not in _BLOB_TEXTS]
    if unread:
        _BLOB_TEXTS.update(git_objects(unread))
    return {blob: _BLOB_TEXTS[blob] for blob in blobs if blob in _BLOB_TEXTS}


def _blob_hash(content: bytes) -> str:
    """The hash git gives a file of these bytes (SHA-1 object format): equal hashes, equal files."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
