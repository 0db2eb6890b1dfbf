"""What a directive reads: the build's results, history, diagnoses and fitted models, and the page it is on."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tfspeedlab.core.results import artifacts
from tfspeedlab.core.results.cpu import CpuNames
from tfspeedlab.core.results.history import ReleaseResults
from tfspeedlab.core.results.schema import RUNNERS, ResultsFile
from tfspeedlab.core.stats import cost_model
from tfspeedlab.render import markdown, templating
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import directive
from tfspeedlab.render.runners import not_measured, runner_tabs

if TYPE_CHECKING:  # the diagnose feature's type, named for annotations only: render imports no feature
    from tfspeedlab.diagnosis.saved import Samples

# The ``runner=`` option of every inline figure: which runner's results it reads.
Runner = Literal["cpu", "gpu"]

CHART_DIR = "assets/results"
# Where a reader learns to add GPU results: the page that installs TensorFlow's CUDA build and runs
# the examples on a GPU ("Measure on your machine"; it has no GPU section of its own to link to). Not
# the Runners page, which only lists the runners that measured and linked back to itself.
GPU_HOW_TO = "reproduce.md"
TRACE_URI = "assets/traces/{runner}/{example}/{name}"


def chart_uri(runner: str, example: str, theme: str) -> str:
    return f"{CHART_DIR}/{runner}/{example}-{theme}.svg"


def trace_files(results_root: Path, runner: str, example: str) -> list[Path]:
    """Profiler traces the harness kept beside an example's results (regular files only)."""
    return artifacts.published_files(results_root, runner, example, "*.xplane.pb")


@dataclass
class ClaimsLedger:
    """Every figure the pages of one build have stated, by what it is a figure of, with the page that
    stated it first: one figure per claim, so a case's time reads the same on every page and in every
    table. Whoever runs a build keeps one (the Markdown extension: one per load of the results); each
    page's ``Context`` states its figures into it."""

    stated: dict[tuple, tuple[str, str]] = field(default_factory=dict)

    def state(self, what: tuple, figure: str, page_uri: str) -> None:
        """A ``DirectiveError`` when a page of this build stated another figure for ``what``."""
        first, where = self.stated.setdefault(what, (figure, page_uri))
        if first != figure:
            raise DirectiveError(f"{' · '.join(map(str, what))} reads {figure!r} here but {first!r} on "
                                 f"{where}: state one figure per claim (the same directive), or say why they differ")


@dataclass
class PageState:
    """What one page accumulates while its directives expand: a new one per page."""

    # The method notes this page has stated once already (``Context.first_on_page``).
    shown: set[str] = field(default_factory=set)
    # The figures this page claimed, to state again when its expansion is reused by a later build.
    claims: list[tuple[tuple, str]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Context:
    """One page's view of the build: the build's data, read only, and where the page is; what the
    page accumulates is its ``page`` state, what the build's pages claim is the ``ledger``."""

    results: dict[str, dict[str, ResultsFile]]
    results_root: Path
    page_uri: str
    # The page's URL path ("simulator/"): raw HTML is not rewritten by MkDocs,
    # so its links must be relative to where the page is served.
    page_url: str = ""
    repo_url: str | None = None
    # Each runner's cost model, fitted the first time a page asks for one (``cost_model.FittedModels``).
    models: Mapping[str, cost_model.CostModel] = field(default_factory=dict)
    # The examples that exist (the build knows them): a directive naming
    # another is a typo, not an example "not yet measured".
    known_examples: frozenset[str] | None = None
    # Each runner's release history (``tfspeedlab history``), oldest release first.
    history: dict[str, list[ReleaseResults]] = field(default_factory=dict)
    # Each runner's committed `tfspeedlab diagnose` reports, by sample name.
    diagnoses: dict[str, Samples] = field(default_factory=dict)
    # Each runner's re-measures of the headline examples, by sitting (site_data.COVERAGE_DIR).
    remeasures: dict[str, dict[str, dict[str, ResultsFile]]] = field(default_factory=dict)
    # The same sittings widened by the drift between sittings, as pages show them (``sittings_of``).
    remeasures_shown: dict[str, dict[str, dict[str, ResultsFile]]] = field(default_factory=dict)
    # The one name of each CPU model, over every file the build reads (``site_data.SiteData.cpu_names``).
    cpu_name: CpuNames = field(default_factory=CpuNames)
    # The build's claims, shared by its pages (a Context made alone has a ledger of its own).
    ledger: ClaimsLedger = field(default_factory=ClaimsLedger, compare=False)
    # This page's own state: a new Context per page starts empty.
    page: PageState = field(default_factory=PageState, compare=False)

    def claim(self, what: tuple, figure: str) -> str:
        """State ``figure`` as the value of ``what`` (``("time per call", runner, example, case)``);
        a ``DirectiveError`` when a page of this build stated another value for it (``ClaimsLedger``)."""
        self.page.claims.append((what, figure))
        self.ledger.state(what, figure, self.page_uri)
        return figure

    def cpu_text(self, environment) -> markdown.Markdown:
        """The CPU model's one name as prose shows it: the recorded model name is read from a file,
        so it is escaped before it reaches a page (a table escapes its own cells)."""
        return markdown.text(self.cpu_name(environment))

    def sittings_of(self, example: str, runner: str) -> list[ResultsFile]:
        """Every re-measure sitting's file of ``example`` on ``runner``, oldest sitting first, as a page
        shows it: widened by the drift between sittings where the build has them widened."""
        sittings = self.remeasures_shown.get(runner) or self.remeasures.get(runner) or {}
        return [found[example] for found in sittings.values() if example in found]

    def measured_anything(self, runner: str) -> bool:
        """Whether the build holds any results of this runner: files, a history, diagnoses, re-measures."""
        samples = self.diagnoses.get(runner)
        return bool(self.results.get(runner) or self.history.get(runner) or (samples and samples.reports)
                    or self.remeasures.get(runner))

    def tabs(self, body_of: Callable[[str], str]) -> str:
        """CPU / GPU content tabs of ``body_of(runner)``; where only the CPU runner has measured
        anything at all, its content alone, and once per page one line saying so, instead of an
        empty GPU tab under every table."""
        measured = [runner for runner in RUNNERS if self.measured_anything(runner)]
        if measured == ["cpu"]:
            line = (templating.render("no_gpu_line.md.j2", how_to=self.relative(GPU_HOW_TO))
                    if self.first_on_page("no GPU results") else "")
            return body_of("cpu") + ("\n" + line if line else "")
        return runner_tabs(body_of)

    def first_on_page(self, what: str) -> bool:
        """True the first time a page asks about ``what``: method notes are stated once per page."""
        if what in self.page.shown:
            return False
        self.page.shown.add(what)
        return True

    def check_example(self, example: str) -> None:
        if self.known_examples is not None and example not in self.known_examples:
            raise DirectiveError(f"no example {example!r}; examples: {', '.join(sorted(self.known_examples))}")

    def lookup(self, example: str, runner: str) -> ResultsFile:
        if runner not in RUNNERS:
            raise DirectiveError(f"runner must be one of {RUNNERS}, got {runner!r}")
        try:
            return self.results[runner][example]
        except KeyError:
            raise DirectiveError(
                f"no results file {self.results_root / runner / (example + '.json')}; "
                f"run `tfspeedlab run {example} --runner {runner}`"
            ) from None

    def relative(self, uri: str) -> str:
        """A Markdown link target: relative to the page's source file."""
        return posixpath.relpath(uri, posixpath.dirname(self.page_uri))

    def relative_url(self, uri: str) -> str:
        """A raw-HTML link target: relative to the page's served URL."""
        base = self.page_url if self.page_url.endswith("/") or not self.page_url else posixpath.dirname(self.page_url)
        return posixpath.relpath(uri, base.rstrip("/") or ".")

    def example_tabs(self, example: str, render: Callable[[ResultsFile], str]) -> str:
        """Runner tabs showing ``render(results)`` of one example, or the not-measured note."""
        def body(runner: str) -> str:
            results = self.results[runner].get(example)
            return not_measured(runner, markdown.code(example)) if results is None else render(results) + "\n"

        return self.tabs(body)

    def model_tabs(self, render: Callable[[cost_model.CostModel, dict[str, ResultsFile]], str]) -> str:
        """Runner tabs showing ``render(model, results)`` for each runner's fitted cost model."""
        def body(runner: str) -> str:
            if runner not in self.models:
                return not_measured(runner, "the op-count and tensor-size sweeps")
            return render(self.models[runner], self.results[runner]) + "\n"

        return self.tabs(body)


def table_directive(name: str, summary: str, table: Callable[[ResultsFile], str], module: str) -> None:
    """Register ``{{ name EXAMPLE }}``: ``table`` of the example in runner tabs, listed among the
    directives of ``module``'s package (the one that calls this)."""
    def show(context: Context, example: str) -> str:
        return context.example_tabs(example, table)

    show.__module__ = module
    directive(name, summary)(show)
