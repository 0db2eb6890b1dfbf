"""What a directive reads: the build's results, history, diagnoses and fitted models, and the page it is on."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tfspeedlab.analysis import cost_model
from tfspeedlab.results import artifacts
from tfspeedlab.results.history import ReleaseResults
from tfspeedlab.results.schema import RUNNERS, ResultsFile
from tfspeedlab.site import markdown
from tfspeedlab.site.errors import DirectiveError
from tfspeedlab.site.runners import not_measured, runner_tabs
from tfspeedlab.site.samples import Samples

# The ``runner=`` option of every inline figure: which runner's results it reads.
Runner = Literal["cpu", "gpu"]

CHART_DIR = "assets/results"
TRACE_URI = "assets/traces/{runner}/{example}/{name}"


def chart_uri(runner: str, example: str, theme: str) -> str:
    return f"{CHART_DIR}/{runner}/{example}-{theme}.svg"


def trace_files(results_root: Path, runner: str, example: str) -> list[Path]:
    """Profiler traces the harness kept beside an example's results (regular files only)."""
    return artifacts.published_files(results_root, runner, example, "*.xplane.pb")


@dataclass(frozen=True)
class Context:
    results: dict[str, dict[str, ResultsFile]]
    results_root: Path
    repo_url: str | None
    page_uri: str
    # The page's URL path ("simulator/"): raw HTML is not rewritten by MkDocs,
    # so its links must be relative to where the page is served.
    page_url: str = ""
    # Each runner's fitted cost model, fitted once per build.
    models: dict[str, cost_model.CostModel] = field(default_factory=dict)
    # The examples that exist (the build knows them): a directive naming
    # another is a typo, not an example "not yet measured".
    known_examples: frozenset[str] | None = None
    # Each runner's release history (``tfspeedlab history``), oldest release first.
    history: dict[str, list[ReleaseResults]] = field(default_factory=dict)
    # Each runner's committed `tfspeedlab diagnose` reports, by sample name.
    diagnoses: dict[str, Samples] = field(default_factory=dict)

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

        return runner_tabs(body)

    def model_tabs(self, render: Callable[[cost_model.CostModel, dict[str, ResultsFile]], str]) -> str:
        """Runner tabs showing ``render(model, results)`` for each runner's fitted cost model."""
        def body(runner: str) -> str:
            if runner not in self.models:
                return not_measured(runner, "the op-count and tensor-size sweeps")
            return render(self.models[runner], self.results[runner]) + "\n"

        return runner_tabs(body)
