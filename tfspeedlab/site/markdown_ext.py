"""The Python-Markdown extension that turns a page's ``{{ name args }}`` directives into Markdown.

Named under ``markdown_extensions:`` in ``mkdocs.yml``, it runs in any generator that hands its
Markdown to Python-Markdown with that list (MkDocs 1.x, ProperDocs, Zensical), plugins or not::

    markdown_extensions:
      - tfspeedlab.site.markdown_ext:
          results_dir: results      # relative to the working folder; $TFSPEEDLAB_RESULTS overrides it
          repo_url: https://github.com/…

It expands the directives before any other preprocessor (before ``pymdownx.snippets``), so a
directive's output is Markdown like any other, and an included snippet is shown as written. A
directive that cannot be rendered as written stops the build with one line naming the page, the
directive and what is valid; any other exception is a bug and keeps its traceback. After the inline
patterns, ``site.tooltips`` gives every interval on the page its tooltip.

Links a directive writes are relative to the page. Under MkDocs (and ProperDocs) the page is the
one MkDocs' own ``relpath`` treeprocessor is registered for; elsewhere pages are taken to sit at
the top of ``docs/``, as every page with directives here does.
"""

from __future__ import annotations

import re
import shlex

import markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

from tfspeedlab.render.context import ClaimsLedger, Context
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.site import site_data, tooltips
from tfspeedlab.site.directives import render

try:  # MkDocs (and ProperDocs, which answers for ``mkdocs.*``) report a BuildError in one line
    from mkdocs.exceptions import BuildError as _ReportedError
except ImportError:  # another generator: its own report of an exception
    _ReportedError = Exception

DIRECTIVE = re.compile(r"\{\{\s*(?P<name>[a-z_]+)(?P<args>[^{}]*)\}\}")
# What is left of a directive the pattern above did not take: a typo, not text to publish.
_STRAY = re.compile(r"\{\{|\}\}")
# Before pymdownx.snippets (32) and every block processor: directives are read as the page wrote them.
PRIORITY = 40
# Where a page is taken to be when the generator does not say (see the module docstring).
DEFAULT_PAGE = ("index.md", "")


class DirectiveBuildError(_ReportedError):
    """A page that cannot be built: its directive and what is wrong with it, in one line."""


def malformed_directive(text: str) -> str | None:
    """Where a page holds ``{{``/``}}`` that is not a directive (``{{ Median …}}``, a lost brace)."""
    without = DIRECTIVE.sub(lambda match: " " * len(match[0]), text)
    if (stray := _STRAY.search(without)) is None:
        return None
    line = text.count("\n", 0, stray.start()) + 1
    found = text.splitlines()[line - 1].strip()
    return (f"line {line}: {found[:120]!r} holds {stray[0]!r} outside a directive; "
            "a directive is {{ name args }}, all lower case")


def expand(text: str, context: Context) -> str:
    """``text`` with every directive replaced by its Markdown; ``DirectiveBuildError`` for one that
    cannot be rendered as written."""
    if (problem := malformed_directive(text)) is not None:
        raise DirectiveBuildError(f"{context.page_uri}: {problem}")

    def replace(match: re.Match) -> str:
        try:
            output = render(match["name"], shlex.split(match["args"]), context)
        except (DirectiveError, ValueError) as error:  # ValueError: shlex's unbalanced quote
            raise DirectiveBuildError(f"{context.page_uri}: {match[0]!r}: {error}") from None
        # A directive alone on an indented line (inside an admonition or a list) keeps every line
        # of its output at that indentation.
        line_start = text.rfind("\n", 0, match.start()) + 1
        indent = text[line_start:match.start()]
        if indent and not indent.strip():
            output = output.replace("\n", "\n" + indent)
        return output

    return DIRECTIVE.sub(replace, text)


def page_of(md: markdown.Markdown) -> tuple[str, str]:
    """The page being converted, as (source path under docs/, served URL), from MkDocs' treeprocessor."""
    relpath = md.treeprocessors["relpath"] if "relpath" in md.treeprocessors else None
    page_file = getattr(relpath, "file", None)
    if page_file is None:
        return DEFAULT_PAGE
    return page_file.src_uri, page_file.url


# Each page's expansion, by the data it was made from and the page's own text: ``mkdocs serve``
# rebuilds every page after one is saved, and the others need not be expanded again.
_EXPANDED: dict[tuple, tuple[str, list]] = {}
_EXPANDED_PAGES = 256
# The figures this build's pages stated (``Context.claim``), one ledger per load of the data: pages
# built from one results tree must state one figure per claim. ``start_build`` empties it.
_LEDGERS: dict[int, ClaimsLedger] = {}


def start_build() -> None:
    """Forget the claims of the last build (``mkdocs serve`` builds many times in one process)."""
    _LEDGERS.clear()


class DirectivePreprocessor(Preprocessor):
    def __init__(self, md: markdown.Markdown, extension: DirectiveExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        if "{{" not in text and "}}" not in text:
            return lines
        try:
            data = site_data.load(site_data.results_root(self.extension.getConfig("results_dir") or None))
        except site_data.SiteDataError as error:
            raise DirectiveBuildError(f"tfspeedlab: {error}") from None
        page_uri, page_url = page_of(self.md)
        repo_url = self.extension.getConfig("repo_url") or None
        key = (data.generation, page_uri, page_url, repo_url, text)
        context = Context(results=data.results, results_root=data.results_root, page_uri=page_uri,
                          page_url=page_url, repo_url=repo_url, models=data.models,
                          known_examples=data.known_examples, history=data.history, diagnoses=data.diagnoses,
                          remeasures=data.remeasures, remeasures_shown=data.remeasures_shown,
                          cpu_name=data.cpu_names, ledger=_LEDGERS.setdefault(data.generation, ClaimsLedger()))
        if key in _EXPANDED:  # the same page from the same data: its figures, stated again in this build
            expanded, claims = _EXPANDED[key]
            try:
                for what, figure in claims:
                    context.claim(what, figure)
            except DirectiveError as error:
                raise DirectiveBuildError(f"{page_uri}: {error}") from None
        else:
            expanded = expand(text, context)
            if len(_EXPANDED) >= _EXPANDED_PAGES:
                _EXPANDED.clear()
            _EXPANDED[key] = (expanded, list(context.page.claims))
        return expanded.split("\n")


class DirectiveExtension(Extension):
    def __init__(self, **kwargs) -> None:
        self.config = {
            "results_dir": ["", "the results tree the figures come from (default: $TFSPEEDLAB_RESULTS, "
                                "else the repository's results/)"],
            "repo_url": ["", "the repository's URL, for links to results files"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        md.preprocessors.register(DirectivePreprocessor(md, self), "tfspeedlab_directives", PRIORITY)
        # Each interval the directives printed explains itself where it is read (see site.tooltips).
        md.treeprocessors.register(tooltips.IntervalTooltips(md, lambda: page_of(md)[0]),
                                   "tfspeedlab_interval_tooltips", tooltips.PRIORITY)
        md.treeprocessors.register(tooltips.GlossaryInsideTitles(md), "tfspeedlab_glossary_inside_titles",
                                   tooltips.GLOSSARY_PRIORITY)


def makeExtension(**kwargs) -> DirectiveExtension:  # noqa: N802 (Python-Markdown's entry point)
    return DirectiveExtension(**kwargs)
