"""MkDocs plugin: measured tables, charts and figures from ``results/`` at build time.

Pages never hold a measured number; they hold directives (see
``tfspeedlab.site.directives``) that this plugin replaces while the site is built.
A directive naming a figure that does not exist fails the build: a page must
not quietly lose a number it claims.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files

from tfspeedlab.analysis import history as history_analysis
from tfspeedlab.results.history import load_history
from tfspeedlab.results.repo import example_names, examples_dir
from tfspeedlab.results.schema import RUNNERS, MissingCaseError, ResultsFileError
from tfspeedlab.results.store import load_runner
from tfspeedlab.site import charts, diagnosis_directives, directives, history_charts, history_directives, notebook_pages, simulator, views

DIRECTIVE = re.compile(r"\{\{\s*(?P<name>[a-z_]+)(?P<args>[^{}]*)\}\}")
# What is left of a directive the pattern above did not take: a typo, not text to publish.
_STRAY = re.compile(r"\{\{|\}\}")


def malformed_directive(markdown: str) -> str | None:
    """Where a page holds ``{{``/``}}`` that is not a directive (``{{ Median …}}``, a lost brace)."""
    without = DIRECTIVE.sub(lambda match: " " * len(match[0]), markdown)
    if (stray := _STRAY.search(without)) is None:
        return None
    line = markdown.count("\n", 0, stray.start()) + 1
    text = markdown.splitlines()[line - 1].strip()
    return (f"line {line}: {text[:120]!r} holds {stray[0]!r} outside a directive; "
            "a directive is {{ name args }}, all lower case")


class ResultsPluginConfig(Config):
    results_dir = config_options.Type(str, default="results")


class ResultsPlugin(BasePlugin[ResultsPluginConfig]):
    def on_config(self, config):
        # TFSPEEDLAB_RESULTS points a build at another results tree (tests use it).
        self.results_root = Path(
            os.environ.get("TFSPEEDLAB_RESULTS") or Path(config.config_file_path).parent / self.config.results_dir
        )
        self.repo_url = config.repo_url
        return config

    # Before mkdocs-jupyter's on_files, which turns the notebooks added here into pages.
    @event_priority(100)
    def on_files(self, files: Files, config) -> Files:
        # Loaded on every build, so `mkdocs serve` picks up new results.
        self.results = {}
        self.known_examples = example_names()
        for runner in RUNNERS:
            directory = self.results_root / runner
            try:
                # The same checks as `tfspeedlab merge`: each file fits the folder it sits in.
                self.results[runner] = load_runner(directory, runner) if directory.is_dir() else {}
            except ResultsFileError as error:
                raise PluginError(f"tfspeedlab: cannot build from a malformed results file: {error}") from error
            for example, results in self.results[runner].items():
                if example not in self.known_examples:
                    raise PluginError(f"tfspeedlab: {results.source}: no example {example!r} in "
                                      f"{examples_dir()}; remove the file, or add the example")
        for runner, by_example in self.results.items():
            for example, results in by_example.items():
                for theme in charts.THEMES:
                    files.append(File.generated(
                        config, directives.chart_uri(runner, example, theme),
                        content=views.chart_svg(results, theme),
                    ))
                # Raw traces, downloadable for XProf/TensorBoard ({{ traces NAME }}).
                for trace in directives.trace_files(self.results_root, runner, example):
                    uri = directives.TRACE_URI.format(runner=runner, example=example, name=trace.name)
                    files.append(File.generated(config, uri, abs_src_path=str(trace)))
        self.history = {}
        for runner in RUNNERS:
            try:
                self.history[runner] = load_history(self.results_root, runner)
            except ResultsFileError as error:
                raise PluginError(f"tfspeedlab: cannot build from a malformed history file: {error}") from error
            for chart in self._history_charts(config, runner):
                files.append(chart)
        try:
            self.diagnoses = {runner: diagnosis_directives.load_samples(self.results_root, runner)
                              for runner in RUNNERS}
        except ValueError as error:  # a malformed file, or one named outside [a-z0-9_]
            raise PluginError(f"tfspeedlab: cannot build from a diagnosis file: {error}") from error
        self.models = simulator.fitted_models(self.results)
        files.append(File.generated(config, simulator.PARAMS_URI,
                                    content=simulator.params_json(self.models)))
        repo_root = Path(config.config_file_path).parent
        for notebook in sorted((repo_root / "notebooks").glob("*.ipynb")):
            files.append(File(f"notebooks/{notebook.name}", src_dir=str(repo_root),
                              dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls))
        return files

    def _history_charts(self, config, runner: str) -> list[File]:
        """A trend chart per example and workload of the runner's release history, in each theme."""
        history, charts_made = self.history[runner], []
        releases = [item.release for item in history]
        examples = sorted({example for item in history for example in item.results})
        for example in examples:
            if example not in self.known_examples:
                raise PluginError(f"tfspeedlab: the {runner} release history holds results of {example!r}, "
                                  f"which is no example in {examples_dir()}")
            for workload in history_analysis.workload_groups(history, example):
                series = history_charts.trend_series(history, example, workload)
                for theme in charts.THEMES:
                    charts_made.append(File.generated(
                        config, history_directives.chart_uri(runner, example, workload, theme),
                        content=history_charts.trend_svg(series, releases, example, workload, theme)))
        return charts_made

    def _context(self, page) -> directives.Context:
        return directives.Context(self.results, self.results_root, self.repo_url, page.file.src_uri, page.url,
                                  self.models, self.known_examples, self.history, self.diagnoses)

    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        context = self._context(page)
        if (problem := malformed_directive(markdown)) is not None:
            raise PluginError(f"{page.file.src_uri}: {problem}")

        def replace(match: re.Match) -> str:
            try:
                output = directives.render(match["name"], shlex.split(match["args"]), context)
                # A directive alone on an indented line (inside an admonition or
                # a list) keeps every line of its output at that indentation.
                line_start = markdown.rfind("\n", 0, match.start()) + 1
                indent = markdown[line_start:match.start()]
                if indent and not indent.strip():
                    output = output.replace("\n", "\n" + indent)
                return output
            except MissingCaseError as error:
                if error.quick:  # a quick run's smaller workload: the page still builds, and says so
                    return "*not measured in this quick run*"
                raise PluginError(f"{page.file.src_uri}: {match[0]!r}: {error.args[0]}") from error
            except (KeyError, TypeError, ValueError) as error:
                message = error.args[0] if isinstance(error, KeyError) and error.args else error
                raise PluginError(f"{page.file.src_uri}: {match[0]!r}: {message}") from error

        return DIRECTIVE.sub(replace, markdown)

    def on_page_content(self, html: str, page, config, files) -> str:
        # A notebook page (rendered by mkdocs-jupyter, unrun): its results under the last cell, a TOC that links.
        if (example := notebook_pages.example_of(page)) is None:
            return html
        try:
            section = notebook_pages.results_markdown(example, self._context(page))
        except (KeyError, TypeError, ValueError) as error:
            raise PluginError(f"{page.file.src_uri}: measured results of {example!r}: {error}") from error
        return notebook_pages.finish_page(html, page, config, files, section)
