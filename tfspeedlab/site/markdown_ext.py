"""The Python-Markdown extension that turns a page's ``{{ name args }}`` directives into Markdown.

Named under ``markdown_extensions:`` in ``mkdocs.yml``, it runs in any generator that hands its
Markdown to Python-Markdown with that list (MkDocs 1.x, ProperDocs, Zensical), plugins or not::

    markdown_extensions:
      - tfspeedlab.site.markdown_ext:
          results_dir: results      # relative to the working folder; $TFSPEEDLAB_RESULTS overrides it
          repo_url: https://github.com/…

It reads the directives before any other preprocessor (before ``pymdownx.snippets``), so an
included snippet is shown as written, never read as directives. Their output goes into the page
only after the snippets are in (``Expansion``): a line a directive wrote, whatever string from a
results file it holds, is never read as a snippet line (``--8<-- "pyproject.toml"`` in a saved
diagnosis would include that file, and a trace's unchecked bytes would close the code block around
it and publish HTML). A directive that cannot be rendered as written stops the build with one line
naming the page, the directive and what is valid; any other exception is a bug and keeps its
traceback. After the inline patterns, ``site.tooltips`` gives every interval on the page its tooltip.

Links a directive writes are relative to the page. Under MkDocs (and ProperDocs) the page is the
one MkDocs' own ``relpath`` treeprocessor is registered for; elsewhere pages are taken to sit at
the top of ``docs/``, as every page with directives here does.
"""

from __future__ import annotations

import re
import secrets
import shlex
from dataclasses import dataclass

import markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

from tfspeedlab.render import hidden_characters
from tfspeedlab.render.context import ClaimsLedger, Context
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.site import page_expansions, site_data, tooltips
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
# Their output goes in after pymdownx.snippets (32), before any other preprocessor (superfences' raw
# blocks 31.05, whitespace 30, HTML blocks 20): nothing a directive wrote is read as a snippet line.
FILL_PRIORITY = 31.5
# What stands for a directive's output meanwhile: unguessable, so that no page or snippet holds one,
# and letters, digits and hyphens only, which no preprocessor before the fill changes.
_PLACEHOLDER = f"tfspeedlab-directive-{secrets.token_hex(8)}-"
_PLACEHOLDERS = re.compile(re.escape(_PLACEHOLDER) + r"(\d+)-")
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


@dataclass(frozen=True)
class Expansion:
    """A page with a placeholder where each directive was, and the Markdown each one stands for."""

    page_uri: str
    text: str
    directives: tuple[str, ...]  # as the page wrote them, for the error that names one
    outputs: tuple[str, ...]

    def filled(self, text: str | None = None) -> str:
        """``text`` (by default the page as expanded; in a build, the page once ``pymdownx.snippets``
        has read it) with each placeholder replaced by its directive's Markdown. The output is put in
        once, in one pass: nothing in it is read as a placeholder or, after it, as a snippet line."""
        text = self.text if text is None else text
        found = set()

        def fill(match: re.Match) -> str:
            index = int(match[1])
            found.add(index)
            return self.outputs[index]

        filled = _PLACEHOLDERS.sub(fill, text)
        if lost := sorted(set(range(len(self.outputs))) - found):
            # pymdownx.snippets drops the page's own snippet-syntax lines: a directive on one is lost.
            raise DirectiveBuildError(f"{self.page_uri}: {self.directives[lost[0]]!r} sits on a line pymdownx.snippets "
                                      "takes for its own (a --8<-- line or a snippet block): put it on a line of its own")
        return filled


def expand_apart(text: str, context: Context) -> Expansion:
    """Every directive of ``text`` rendered, each kept apart from the page behind a placeholder until
    ``Expansion.filled``; ``DirectiveBuildError`` for one that cannot be rendered as written."""
    if (problem := malformed_directive(text)) is not None:
        raise DirectiveBuildError(f"{context.page_uri}: {problem}")
    outputs: list[str] = []
    for match in DIRECTIVE.finditer(text):
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
        # A bidirectional or zero-width character in a string from a file, written out (the loaders
        # refuse them; this catches any a check missed, in prose, a table or a code block alike).
        outputs.append(hidden_characters.shown(output))
    return held_apart(context.page_uri, text, tuple(outputs))


def held_apart(page_uri: str, text: str, outputs: tuple[str, ...]) -> Expansion:
    """``text`` with a placeholder for each directive, standing for its Markdown in ``outputs`` (one
    each, in page order): made now, or kept from an earlier build, whose placeholders were its own."""
    directives: list[str] = []

    def hold(match: re.Match) -> str:
        directives.append(match[0])
        return f"{_PLACEHOLDER}{len(directives) - 1}-"

    expanded = DIRECTIVE.sub(hold, text)
    return Expansion(page_uri, expanded, tuple(directives), outputs)


def page_of(md: markdown.Markdown) -> tuple[str, str]:
    """The page being converted, as (source path under docs/, served URL), from MkDocs' treeprocessor."""
    relpath = md.treeprocessors["relpath"] if "relpath" in md.treeprocessors else None
    page_file = getattr(relpath, "file", None)
    if page_file is None:
        return DEFAULT_PAGE
    return page_file.src_uri, page_file.url


# The figures this build's pages stated (``Context.claim``), one ledger per load of the data: pages
# built from one results tree must state one figure per claim. ``start_build`` empties it.
_LEDGERS: dict[int, ClaimsLedger] = {}


def start_build() -> None:
    """Forget the claims of the last build (``mkdocs serve`` builds many times in one process)."""
    _LEDGERS.clear()


def page_context(data: site_data.SiteData, page_uri: str, page_url: str, repo_url: str | None,
                 ledger: ClaimsLedger) -> Context:
    """What the directives of one page are rendered with: the build's data and where the page is."""
    return Context(results=data.results, results_root=data.results_root, page_uri=page_uri, page_url=page_url,
                   repo_url=repo_url, models=data.models, known_examples=data.known_examples, history=data.history,
                   diagnoses=data.diagnoses, remeasures=data.remeasures, remeasures_shown=data.remeasures_shown,
                   cpu_name=data.cpu_names, ledger=ledger)


def expansion(data: site_data.SiteData, page_uri: str, page_url: str, repo_url: str | None, text: str,
              ledger: ClaimsLedger) -> Expansion:
    """The directives of a page's ``text`` expanded, its figures claimed in ``ledger``: kept from an
    earlier expansion of the same page from the same inputs (in this build, an earlier one, or a build
    worker's, ``page_prefetch``) or made now. ``DirectiveBuildError`` for one that cannot be."""
    key = page_expansions.key(data.inputs, page_uri, page_url, repo_url, text)
    context = page_context(data, page_uri, page_url, repo_url, ledger)
    made: list[Expansion] = []

    def expand() -> page_expansions.KeptExpansion:
        made.append(expand_apart(text, context))
        return page_expansions.KeptExpansion(made[0].outputs, tuple(context.page.claims))

    # Kept only with one Markdown for each of the page's directives; else it is expanded afresh.
    kept = page_expansions.EXPANSIONS.get(
        key, expand, usable=lambda kept: len(kept.outputs) == sum(1 for _ in DIRECTIVE.finditer(text)))
    if made:
        return made[0]
    try:  # its figures, stated again in this build
        for what, figure in kept.claims:
            context.claim(what, figure)
    except DirectiveError as error:
        raise DirectiveBuildError(f"{page_uri}: {error}") from None
    return held_apart(page_uri, text, kept.outputs)


class DirectivePreprocessor(Preprocessor):
    """Renders the page's directives and leaves a placeholder for each (``DirectiveFill`` puts them in)."""

    def __init__(self, md: markdown.Markdown, extension: DirectiveExtension) -> None:
        super().__init__(md)
        self.extension = extension
        self.pending: Expansion | None = None  # the page being converted, until its fill

    def run(self, lines: list[str]) -> list[str]:
        self.pending = None
        text = "\n".join(lines)
        if "{{" not in text and "}}" not in text:
            return lines
        try:
            data = site_data.load(site_data.results_root(self.extension.getConfig("results_dir") or None))
        except site_data.SiteDataError as error:
            raise DirectiveBuildError(f"tfspeedlab: {error}") from None
        page_uri, page_url = page_of(self.md)
        repo_url = self.extension.getConfig("repo_url") or None
        ledger = _LEDGERS.setdefault(data.generation, ClaimsLedger())
        self.pending = expansion(data, page_uri, page_url, repo_url, text, ledger)
        return self.pending.text.split("\n")


class DirectiveFill(Preprocessor):
    """Puts each directive's Markdown where its placeholder is, once ``pymdownx.snippets`` has run."""

    def __init__(self, md: markdown.Markdown, directives: DirectivePreprocessor) -> None:
        super().__init__(md)
        self.directives = directives

    def run(self, lines: list[str]) -> list[str]:
        pending, self.directives.pending = self.directives.pending, None
        if pending is None:
            return lines
        return pending.filled("\n".join(lines)).split("\n")


class DirectiveExtension(Extension):
    def __init__(self, **kwargs) -> None:
        self.config = {
            "results_dir": ["", "the results tree the figures come from (default: $TFSPEEDLAB_RESULTS, "
                                "else the repository's results/)"],
            "repo_url": ["", "the repository's URL, for links to results files"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        directives = DirectivePreprocessor(md, self)
        md.preprocessors.register(directives, "tfspeedlab_directives", PRIORITY)
        md.preprocessors.register(DirectiveFill(md, directives), "tfspeedlab_directive_output", FILL_PRIORITY)
        # Each interval the directives printed explains itself where it is read (see site.tooltips).
        md.treeprocessors.register(tooltips.IntervalTooltips(md, lambda: page_of(md)[0]),
                                   "tfspeedlab_interval_tooltips", tooltips.PRIORITY)
        md.treeprocessors.register(tooltips.GlossaryInsideTitles(md), "tfspeedlab_glossary_inside_titles",
                                   tooltips.GLOSSARY_PRIORITY)


def makeExtension(**kwargs) -> DirectiveExtension:  # noqa: N802 (Python-Markdown's entry point)
    return DirectiveExtension(**kwargs)
