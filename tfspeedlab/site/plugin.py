"""MkDocs plugin: what is MkDocs' own in a build from ``results/`` — the files it publishes (charts,
traces, the simulator's parameters, the notebooks), the measured section of a notebook page, and a
last check of every built page.

The figures in a page's text are the Markdown extension's (``tfspeedlab.site.markdown_ext``), which
runs wherever Python-Markdown does; this plugin adds what only MkDocs (or ProperDocs) can. A results
tree that cannot be read fails the build: a page must not quietly lose a number it claims.
"""

from __future__ import annotations

import functools
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files

from tfspeedlab.core.results.schema import RUNNERS
from tfspeedlab.history import charts as history_charts, directives as history_directives, trends as history_analysis
from tfspeedlab.site import (build_cache, build_memory, build_workers, chart_drawing, page_prefetch, markdown_ext,
                             notebook_pages, notebook_prefill, notebook_templates, search_entries, simulator,
                             site_data, unrendered, views)
from tfspeedlab.site.directives import TRACE_URI, chart_uri, trace_files


class ResultsPluginConfig(Config):
    results_dir = config_options.Type(str, default="results")


def _chart_file(config, uri: str, source: build_cache.ChartSource) -> File:
    """A chart as MkDocs publishes it: its SVG, or the cached file it is being drawn to."""
    if isinstance(source, Path):
        return chart_drawing.ChartFile.generated(config, uri, abs_src_path=str(source))
    return File.generated(config, uri, content=source)


class ResultsPlugin(BasePlugin[ResultsPluginConfig]):
    # Charts and notebook pages are made in worker processes (forked) until `mkdocs serve` starts its
    # threads: by `mkdocs build`, and by the build `mkdocs serve` makes before it serves. Its rebuilds,
    # in a thread beside the server's, make them in the build's own process.
    serving = False

    def on_serve(self, server, config, builder):
        self.serving = True
        return server

    def on_config(self, config):
        build_memory.keep_freed_memory()  # before any array is made, and before the workers are forked
        markdown_ext.start_build()  # a new build: no page has stated a figure yet
        notebook_templates.share_compiled_templates()  # mkdocs-jupyter's exporters compile each template once
        # TFSPEEDLAB_RESULTS points a build at another results tree (tests use it).
        self.results_root = site_data.results_root(Path(config.config_file_path).resolve().parent / self.config.results_dir)
        build_cache.open_cache(Path(config.config_file_path).resolve().parent)
        return config

    def on_pre_build(self, config):
        # Every plugin's on_config has run: Material's search plugin has made this build's index,
        # whose entries are kept page by page (Material has no hook of its own for it).
        search_entries.install(config.plugins.values())

    # Before mkdocs-jupyter's on_files, which turns the notebooks added here into pages.
    @event_priority(100)
    def on_files(self, files: Files, config) -> Files:
        build_workers.start(enabled=not self.serving)
        repo_root = Path(config.config_file_path).resolve().parent
        notebooks = [File(f"{notebook_pages.NOTEBOOK_DIR}/{notebook.name}", src_dir=str(repo_root),
                          dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls)
                     for notebook in sorted((repo_root / notebook_pages.NOTEBOOK_DIR).glob("*.ipynb"))]
        # Loaded on every build (once per change of the tree), so `mkdocs serve` picks up new results;
        # before the workers are forked (at their first job), which then have it too.
        try:
            data = site_data.load(self.results_root)
        except site_data.SiteDataError as error:
            raise PluginError(f"tfspeedlab: {error}") from error
        # The workers' first jobs: a page waits for its notebook's, nothing waits for a chart until on_env.
        notebook_prefill.start(config, notebooks)
        # Then the pages' bootstrap intervals, the last page's first, before any chart: the main process
        # meets them part way through its pages, and the charts are needed only once it is through.
        page_prefetch.start(config, list(files.documentation_pages()))
        for runner, by_example in data.results.items():
            for example, results in by_example.items():
                for theme, source in build_cache.results_charts(views.chart_svg, results).items():
                    files.append(_chart_file(config, chart_uri(runner, example, theme), source))
                # Raw traces, downloadable for XProf/TensorBoard ({{ traces NAME }}).
                for trace in trace_files(self.results_root, runner, example):
                    uri = TRACE_URI.format(runner=runner, example=example, name=trace.name)
                    files.append(File.generated(config, uri, abs_src_path=str(trace)))
        for runner in RUNNERS:
            for chart in self._history_charts(config, data, runner):
                files.append(chart)
        files.append(File.generated(config, simulator.PARAMS_URI, content=simulator.params_json(data.models)))
        for notebook in notebooks:
            files.append(notebook)
        return files

    @staticmethod
    def _history_charts(config, data: site_data.SiteData, runner: str) -> list[File]:
        """A trend chart per example and workload of the runner's release history, in each theme."""
        history, charts_made = data.history[runner], []
        releases = [item.release for item in history]
        for example in sorted({example for item in history for example in item.results}):
            for workload in history_analysis.workload_groups(history, example):
                series = history_charts.trend_series(history, example, workload)
                quantities = history_charts.trend_quantities(history, example, workload)
                drawn = build_cache.trend_charts(functools.partial(history_charts.trend_svg, quantities=quantities),
                                                 series, releases, example, workload)
                for theme, source in drawn.items():
                    charts_made.append(_chart_file(
                        config, history_directives.chart_uri(runner, example, workload, theme), source))
        return charts_made

    def on_pre_page(self, page, config, files):
        # A notebook page renders from mkdocs-jupyter's cache once the workers have filled it.
        notebook_prefill.wait(page)
        # Its intervals computed by the workers, if they came to it first.
        page_prefetch.wait(page)
        return page

    def on_page_content(self, html: str, page, config, files) -> str:
        # A notebook page (rendered by mkdocs-jupyter, unrun): its results under the last cell, a TOC that links.
        if (example := notebook_pages.example_of(page)) is None:
            return html
        # A notebook repeats its page's workload: search ranks the page, which answers the question, first.
        page.meta["search"] = {"boost": notebook_pages.SEARCH_BOOST}
        page.edit_url = notebook_pages.edit_url(config.repo_url, config.edit_uri, example)
        return notebook_pages.finish_page(html, page, config, files, notebook_pages.results_markdown(example))

    def on_post_page(self, output: str, page, config) -> str:
        # The last word on a built page: nothing left of a directive, whatever rendered it.
        if (problem := unrendered.kept_first_unrendered(output)) is not None:
            raise PluginError(f"tfspeedlab: {page.file.src_uri}: {problem}")
        return output

    def on_env(self, env, config, files):
        # Every page is rendered: no page job is wanted any more. The workers go on drawing charts while
        # MkDocs writes the pages; a chart still being drawn is copied at on_post_build.
        page_prefetch.stop()
        return env

    def on_build_error(self, error) -> None:
        page_prefetch.stop()
        chart_drawing.drop_copies()
        build_workers.finish(cancel=True)

    # Before other plugins' on_post_build: the site is whole, charts included, when theirs run.
    @event_priority(100)
    def on_post_build(self, config) -> None:
        chart_drawing.copy_drawn()
        build_cache.save()
