"""Measured blocks: an example's tables and charts in CPU / GPU content tabs, or the plain note where a
runner has no results yet."""

from __future__ import annotations

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.results.store import load_failure
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.units import format_bytes, format_time
from tfspeedlab.fairness import coverage as coverage_analysis, drift, tables as coverage_tables
from tfspeedlab.fairness.coverage import HEADLINE
from tfspeedlab.render import charts, markdown, shared_workloads as shared, templating
from tfspeedlab.render.context import TRACE_URI, Context, Runner, chart_uri, table_directive, trace_files
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import directive
from tfspeedlab.render.runners import RUNNER_TITLES, not_measured
from tfspeedlab.site import kernel_tables, tables
from tfspeedlab.site.directives.figures import time_per_call
from tfspeedlab.site.views import view_for
from tfspeedlab.xla.pairs import xla_pairs


@directive("results", "CPU / GPU tabs with the table and chart of ``results/<runner>/NAME.json``, laid out as "
                      "its ``layout`` says, or a plain note where that runner has no file yet.")
def results(context: Context, example: str) -> str:
    return context.tabs(lambda runner: _runner_block(context, runner, example))


def _runner_block(context: Context, runner: str, example: str) -> str:
    found = context.results[runner].get(example)
    if found is None:
        return not_measured(runner, markdown.code(example))
    parts = [note] if (note := _source_note(context, runner)) else []
    failure = load_failure(context.results_root / runner, example)
    if failure and failure.get("utc_time", "") > found.environment["utc_time"]:
        parts.append(templating.render("latest_run_failed.md.j2", runner=runner,
                                       error=failure.get("error", "unknown error"), utc_time=failure.get("utc_time")))
    if found.quick:
        parts.append(templating.render("quick_run.md.j2"))
    parts.append(view_for(found).table(found))
    if found.unavailable:  # a row the table lacks says why, in the file's own words (escaped)
        parts.append(unavailable_note(found))
    for case in found.cases:  # the times the table shows, as every other page must state them
        context.claim(("time per call", runner, example, case.label), format_time(case.measurement.per_call_s))
    # How to read the table's intervals is said once, on the fair-timing page, where every
    # interval's tooltip links (site.tooltips), not under a table of every page.
    parts.append(_chart_images(context, found, runner, example))
    parts.append(_provenance(context, found, runner, example))
    return "\n\n".join(parts) + "\n"


@directive("chart", "CPU / GPU tabs with the chart of ``results/<runner>/NAME.json`` alone, for a page whose "
                    "tables come from other directives.")
def chart(context: Context, example: str) -> str:
    def body(runner: str) -> str:
        found = context.results[runner].get(example)
        if found is None:
            return not_measured(runner, markdown.code(example))
        return _chart_images(context, found, runner, example) + "\n"

    return context.tabs(body)


def _chart_images(context: Context, found: ResultsFile, runner: str, example: str) -> str:
    """The file's chart in each colour scheme (the site shows the one that matches its own)."""
    shows = view_for(found).shows
    return "\n\n".join(f"![{markdown.text(found.title)}, {shows} on {runner}]"
                         f"({context.relative(chart_uri(runner, example, theme))}#only-{theme})"
                         for theme in charts.THEMES)


def unavailable_note(found: ResultsFile) -> str:
    """The cases this file could not run, each with its reason, below its table."""
    items = "\n".join(f"* {markdown.text(label)}: {markdown.text(reason)}" for label, reason in found.unavailable.items())
    return f"Could not run here, so not in the table:\n\n{items}"


def _source_note(context: Context, runner: str) -> str | None:
    """What the CI site build used for this runner (scripts/collect-results.sh writes SOURCE)."""
    marker = context.results_root / runner / "SOURCE"
    if not marker.exists():
        return None
    source = marker.read_text().strip()
    if source == "committed":
        return templating.render("not_remeasured.md.j2", title=RUNNER_TITLES[runner])
    if source == "ci":
        return None
    raise DirectiveError(f"{marker} says {source!r}; expected 'ci' or 'committed'")


def _provenance(context: Context, found: ResultsFile, runner: str, example: str) -> str:
    env = found.environment
    path = f"results/{runner}/{example}.json"
    link = f"[{path}]({context.repo_url.rstrip('/')}/blob/main/{path})" if context.repo_url else markdown.code(path)
    commit = env.get("git_commit")
    return templating.render("provenance.md.j2", measured=env["utc_time"][:16].replace("T", " "),
                             cpu=None if env.get("gpus") else context.cpu_name.with_sets(env),
                             commit=commit[:10] if commit else None, link=link)


@directive("traces", "Download links for the profiler traces kept with the results, and how to open them.")
def traces(context: Context, example: str) -> str:
    def body(runner: str) -> str:
        if example not in context.results[runner]:
            return not_measured(runner, markdown.code(example))
        files = trace_files(context.results_root, runner, example)
        if not files:
            return templating.render("no_traces.md.j2", example=example, title=RUNNER_TITLES[runner])
        found = [{"name": path.name, "size": format_bytes(path.stat().st_size),
                  "url": context.relative(TRACE_URI.format(runner=runner, example=example, name=path.name))}
                 for path in files]
        return templating.render("traces.md.j2", title=RUNNER_TITLES[runner], traces=found,
                                 first=files[0].name, run=files[0].name.split(".")[0])

    return context.tabs(body)


# One table of an example each, in runner tabs.
for _name, _table, _summary in (
    ("fixed_costs", tables.fixed_cost_table,
     "A grid over batch sizes: each rung's fixed cost per call and cost per sample, fitted."),
    ("memory_growth", tables.memory_growth_table, "Resident memory before and after the repeated calls, per rung."),
    ("training_calls", tables.training_calls_table, "Traces of each training API's step, and its loss before and after."),
    ("feeds", tables.feed_table, "Per feed: the share of time waiting for data, traces, loss."),
    ("training_check", tables.training_check_table,
     "Loss before and after timing, and the largest weight change, per case."),
    ("process_runs", tables.process_runs_table, "Each case's median in each of its processes, and their spread."),
    ("layers", tables.host_layers_table,
     "Per-mode table of the profiled host time split into Python, op dispatch, executor and kernels."),
    ("memory", tables.memory_table, "Peak host (and GPU) memory per mode."),
    ("kernel_split", kernel_tables.kernel_split_table,
     "Per mode: each family of kernels' time in a profiled step, over its processes, and the ops a step ran."),
    ("dispatch_table", tables.dispatch_table, "Per-op dispatch cost of every framework's modes."),
    ("estimators", tables.estimator_table,
     "The estimator experiment: each candidate's speed-ups, and how far two halves of the processes differ."),
):
    table_directive(_name, _summary, _table, __name__)


@directive("estimator_summary", "The estimator experiment over several files: each candidate's worst split over "
                                "all their speed-ups.")
def estimator_summary(context: Context, *examples: str) -> str:
    def body(runner: str) -> str:
        found = [context.results[runner].get(example) for example in examples]
        if any(one is None for one in found):
            return not_measured(runner, "the estimator experiment")
        if min(len(case.runs) for one in found for case in one.cases) < 2:
            return "These results have one process per case; the experiment needs two or more.\n"
        return tables.estimator_summary(found) + "\n"

    return context.tabs(body)


@directive("xla_summary", "XLA against plain graph mode for every workload that measured both.")
def xla_summary(context: Context) -> str:
    def body(runner: str) -> str:
        with_xla = [(found, pairs) for found in context.results[runner].values() if (pairs := xla_pairs(found))]
        if not with_xla:
            return not_measured(runner, "the XLA workloads")
        return tables.xla_summary_table(with_xla, context.cpu_name) + "\n"

    return context.tabs(body)


@directive("model_parameters", "The speed simulator's fitted cost-model parameters, per runner.")
def model_parameters(context: Context) -> str:
    return context.model_tabs(lambda model, found: tables.model_parameters_table(model))


@directive("model_validation", "The cost model's predictions against every measured workload, per runner.")
def model_validation(context: Context) -> str:
    return context.model_tabs(tables.model_validation)


@directive("coverage", "Per headline example, how often a speed-up re-measured in another sitting landed inside "
                       "the committed 95% interval, under each interval method.")
def coverage(context: Context) -> str:
    def body(runner: str) -> str:
        committed = context.results[runner]
        sittings = context.remeasures.get(runner) or {}
        # A re-measure on another CPU model says how far two machines differ, not how well an
        # interval holds on one: only sittings on the committed file's CPU count (drift.same_machine).
        by_sitting = {example: drift.remeasures_of(example, committed[example], sittings)
                      for example in HEADLINE if example in committed}
        same_cpu = {example: list(found.values()) for example, found in by_sitting.items()}
        # The sittings themselves: each re-measured every headline example, so they, not the
        # example-sittings, are the independent draws of the machine's state.
        held = [(name, again) for found in by_sitting.values() for name, again in found.items()]
        times = sorted(again.environment["utc_time"][:16].replace("T", " ") for _, again in held)
        examples = [example for example in same_cpu if same_cpu[example]]
        if not examples:
            return not_measured(runner, "the re-measures of the headline examples",
                                command=f"bash scripts/coverage-sitting.sh --runner {runner}")
        counts = {example: len(same_cpu[example]) for example in examples}
        by_method = {}
        for method in intervals.METHODS:
            if method == "with drift":
                held_out = drift.held_out_landings(committed, sittings)
                by_example = {example: held_out.get(example, []) for example in examples}
            else:
                by_example = {example: coverage_analysis.landings(committed[example], same_cpu[example],
                                                                  HEADLINE[example], method) for example in examples}
            by_method[method] = coverage_analysis.summarise(by_example, counts)
        finding = coverage_tables.coverage_finding(by_method[intervals.METHOD], coverage_analysis.EXPECTED_INSIDE,
                                                   coverage_analysis.REQUIRED_INSIDE,
                                                   coverage_tables.SittingSpan(len({name for name, _ in held}),
                                                                               times[0], times[-1]))
        return coverage_tables.coverage_table(by_method, intervals.METHOD) + "\n\n" + finding + "\n"

    return context.tabs(body)


@directive("drift", "Per headline example, how far its speed-ups moved between re-measure sittings beyond one "
                    "sitting's own noise: the drift every interval of its machine is widened by.")
def drift_figures(context: Context) -> str:
    def body(runner: str) -> str:
        found = drift.for_runner(context.results[runner], context.remeasures.get(runner) or {})
        if not found:
            return not_measured(runner, "the re-measures that say how far this machine moves between sittings",
                                command=f"bash scripts/coverage-sitting.sh --runner {runner}")
        return coverage_tables.drift_table(found) + "\n"

    return context.tabs(body)


@directive("shared_workloads", "The workloads several pages time, each page's time and speed-up side by side with "
                               "the CPU model and date of its run, and whether two runs on one CPU model agree.")
def shared_workloads(context: Context, *, runner: Runner = "cpu") -> str:
    def page_link(page: str) -> str:
        return markdown.Markdown(f"[{markdown.text(shared.PAGE_TITLES[page])}]({context.relative(page)})")

    def time_of(timing) -> str:
        # Stated as a claim, as the page's own `time` directive states it: one figure per case.
        return time_per_call(context, timing.example, timing.case, runner=runner)

    def results_of(example: str):
        return context.lookup(example, runner)

    def sittings_of(example: str):
        return context.sittings_of(example, runner)

    files = [results_of(timing.example) for item in shared.SHARED_TIMES for timing in item.timings]
    files += [again for item in shared.SHARED_TIMES for timing in item.timings
              for again in shared.other_cpus(results_of(timing.example), sittings_of(timing.example))]
    return (f"{shared.times_table(results_of, page_link, time_of, sittings_of, context.cpu_name)}\n\n"
            f"{shared.speedups_table(results_of, page_link, sittings_of, context.cpu_name)}\n\n"
            f"{shared.cpu_legend(files, context.cpu_name)}\n")
