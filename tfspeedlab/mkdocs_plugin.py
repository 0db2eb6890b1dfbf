"""MkDocs plugin: measured tables, charts and figures from ``results/`` at build time.

Pages never hold a measured number; they hold directives that this plugin
replaces while the site is built:

``{{ results NAME }}``
    CPU / GPU content tabs, each with the table and chart of
    ``results/<runner>/NAME.json``, or a plain note where that runner has no file.
``{{ median NAME CASE [runner=cpu] }}``, ``{{ first_call NAME CASE [runner=cpu] }}``
    One case's median time per call, or its first-call time.
``{{ speedup NAME SLOWER FASTER [runner=cpu] }}``
    Ratio of two cases' medians, e.g. ``10.1×``.

A directive naming a figure that does not exist fails the build: a page must
not quietly lose a number it claims.
"""

from __future__ import annotations

import os
import posixpath
import re
import textwrap
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files

from tfspeedlab import charts, tables
from tfspeedlab.results import RUNNERS, ResultsFile, ResultsFileError, load_failure, load_runner
from tfspeedlab.units import format_ratio, format_time

DIRECTIVE = re.compile(r"\{\{\s*(?P<name>[a-z_]+)(?P<args>(?:\s+[\w.=-]+)*)\s*\}\}")
RUNNER_TITLES = {"cpu": "CPU", "gpu": "GPU"}
CHART_DIR = "assets/results"


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

    def on_files(self, files: Files, config) -> Files:
        # Loaded on every build, so `mkdocs serve` picks up new results.
        self.results: dict[str, dict[str, ResultsFile]] = {}
        for runner in RUNNERS:
            directory = self.results_root / runner
            try:
                self.results[runner] = load_runner(directory) if directory.is_dir() else {}
            except ResultsFileError as error:
                raise PluginError(f"tfspeedlab: cannot build from a malformed results file: {error}") from error
        for runner, by_example in self.results.items():
            for example, results in by_example.items():
                for theme in charts.THEMES:
                    files.append(File.generated(
                        config, _chart_uri(runner, example, theme),
                        content=charts.time_per_call_svg(results, theme),
                    ))
        return files

    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        def replace(match: re.Match) -> str:
            name, args = match["name"], match["args"].split()
            handler = getattr(self, f"_directive_{name}", None)
            if handler is None:
                raise PluginError(f"{page.file.src_uri}: unknown tfspeedlab directive {match[0]!r}")
            try:
                return handler(page, *args)
            except (KeyError, TypeError, ValueError) as error:
                raise PluginError(f"{page.file.src_uri}: {match[0]!r}: {error}") from error

        return DIRECTIVE.sub(replace, markdown)

    # ------------------------------------------------------------ directives

    def _directive_results(self, page, example: str) -> str:
        tabs = []
        for runner in RUNNERS:
            body = self._runner_block(page, runner, example)
            tabs.append(f'=== "{RUNNER_TITLES[runner]}"\n\n{textwrap.indent(body, "    ")}')
        return "\n\n".join(tabs) + "\n"

    def _directive_median(self, page, example: str, case: str, *options: str) -> str:
        return format_time(self._lookup(example, options).case(case).measurement.median_s)

    def _directive_first_call(self, page, example: str, case: str, *options: str) -> str:
        return format_time(self._lookup(example, options).case(case).measurement.first_call_s)

    def _directive_speedup(self, page, example: str, slower: str, faster: str, *options: str) -> str:
        return format_ratio(self._lookup(example, options).speedup(slower, faster))

    # ------------------------------------------------------------ helpers

    def _lookup(self, example: str, options: tuple[str, ...]) -> ResultsFile:
        settings = dict(option.split("=", 1) for option in options)
        runner = settings.pop("runner", "cpu")
        if settings:
            raise ValueError(f"unknown option(s) {sorted(settings)}")
        if runner not in RUNNERS:
            raise ValueError(f"runner must be one of {RUNNERS}")
        try:
            return self.results[runner][example]
        except KeyError:
            raise KeyError(
                f"no results file {self.results_root / runner / (example + '.json')}; "
                f"run `tfspeedlab run {example} --runner {runner}`"
            ) from None

    def _runner_block(self, page, runner: str, example: str) -> str:
        results = self.results[runner].get(example)
        if results is None:
            return (f'!!! note "Not yet measured on {RUNNER_TITLES[runner]}"\n\n'
                    f"    No {RUNNER_TITLES[runner]} run of `{example}` has been recorded yet, so this tab "
                    f"shows no figures. Run `tfspeedlab run {example} --runner {runner}` on such a "
                    f"machine to fill it.\n")
        parts = []
        failure = load_failure(self.results_root / runner, example)
        if failure and failure.get("utc_time", "") > results.environment["utc_time"]:
            parts.append(f'!!! warning "The latest {runner} run of this example failed"\n\n'
                         f"    `{failure.get('error', 'unknown error')}` ({failure.get('utc_time')}). "
                         "The figures below are from the last run that succeeded.\n")
        if results.quick:
            parts.append('!!! info "Quick run"\n\n    These figures come from a `--quick` run: '
                         "shorter budgets, so wider spread than a full run.\n")
        parts.append(tables.markdown_table(results))
        if any(row.noisy for row in tables.rows(results)):
            parts.append("*(! N%)* marks a noisy case: its interquartile range is at least 10% of its "
                         "median, so differences of that size are not evidence.")
        for theme in charts.THEMES:
            target = posixpath.relpath(_chart_uri(runner, example, theme), posixpath.dirname(page.file.src_uri))
            parts.append(f"![{results.title}, time per call on {runner}]({target}#only-{theme})")
        parts.append(self._provenance(results, runner, example))
        return "\n\n".join(parts) + "\n"

    def _provenance(self, results: ResultsFile, runner: str, example: str) -> str:
        env = results.environment
        commit = env.get("git_commit")
        at_commit = f" at commit `{commit[:10]}`" if commit else ""
        link = f"results/{runner}/{example}.json"
        if self.repo_url:
            link = f"[{link}]({self.repo_url.rstrip('/')}/blob/main/{link})"
        else:
            link = f"`{link}`"
        return (f"<small>Measured {env['utc_time'][:16].replace('T', ' ')} UTC{at_commit}; "
                f"raw samples and full environment in {link}.</small>")


def _chart_uri(runner: str, example: str, theme: str) -> str:
    return f"{CHART_DIR}/{runner}/{example}-{theme}.svg"
