"""The page directives, each turning results into Markdown.

``{{ results NAME }}``
    CPU / GPU content tabs with the table and chart of ``results/<runner>/NAME.json``
    (laid out as the results file's ``layout`` says), or a plain note where that
    runner has no file yet.
``{{ median NAME CASE }}``, ``{{ first_call NAME CASE }}``
    One case's median time per call, or its first-call time.
``{{ speedup NAME SLOWER FASTER }}``
    How many times faster FASTER is, e.g. ``10.1×``: the ratio of the 10th percentile of
    all blocks (see ``tfspeedlab.analysis.intervals``).
``{{ ratio NAME A B }}``
    A's time over B's, the same way: below 1× means A is faster.
``{{ verdict NAME A B }}``
    "faster than" or "slower than" when the interval of A's speed-up over B is on one
    side of 1, else "not clearly different from".
``{{ interval NAME A B }}``
    The 95% interval of ``{{ ratio NAME A B }}``.
``{{ agreement NAME CASE OTHER_NAME OTHER_CASE }}``
    The same workload in two results files: their ratio, its interval and whether they differ.
``{{ estimator_summary NAME... }}``
    The experiment over several files: each candidate's worst split over all their speed-ups
    (the build stops if the chosen estimator is no longer the best).
``{{ estimators NAME }}``
    The estimator experiment: each candidate's speed-ups against the baseline, and how far
    two halves of the processes (two re-runs) differ.
``{{ training_check NAME }}``
    Loss before and after timing and the largest weight change, per case.
``{{ derived NAME FIGURE }}``
    A figure computed from the file (see ``tfspeedlab.site.quantities.DERIVED``).
``{{ metric NAME CASE METRIC }}``
    A measured non-time quantity of one case (a tracing count, a loss).
``{{ sample_range NAME CASE }}``
    Slowest over fastest sample of one case: how far single timings scatter.
``{{ layers NAME }}``
    Per-mode table of the profiled host time split into Python, op dispatch, executor and kernels.
``{{ layer_time NAME CASE LAYER }}``, ``{{ layer_share NAME CASE LAYER }}``
    One host layer's time per call (median × profiled share), or its share.
``{{ layer_cost NAME LAYER [ELEMENTS] }}``, ``{{ entry_time NAME ENTRY [ELEMENTS] }}``
    Op-layer figures (``tfspeedlab.analysis.op_layers``): one layer's cost per op, or
    one entry point's median per op (``kernel``: the kernel alone), at a size.
``{{ memory NAME }}``, ``{{ memory_figure NAME CASE METRIC }}``
    Peak host (and GPU) memory per mode, or one such figure.
``{{ per_op NAME MODE }}``, ``{{ dispatch_table NAME }}``
    Per-op dispatch cost: a mode's small-op loop time over its op count (frameworks).
``{{ param NAME PARAMETER }}``, ``{{ tf_version NAME }}``
    A workload parameter recorded in the results file; the TensorFlow version measured.
``{{ tf_source PATH }}``
    A link to PATH in TensorFlow's sources at the version the results were measured with.
``{{ traces NAME }}``
    Download links for the profiler traces kept with the results, and how to open them.
``{{ xla_summary }}``
    XLA against plain graph mode for every workload that measured both.
``{{ environment }}``
    The environment of each runner's results.
``{{ listing NAME }}``
    The script ``examples/NAME.py`` in a collapsed box, read as a script: no notebook
    cell markers or ``%pip`` lines (see ``tfspeedlab.site.listing``).
``{{ simulator }}``, ``{{ model_parameters }}``, ``{{ model_validation }}``
    The speed simulator, its fitted parameters, and its predictions against
    every measured workload.
``{{ model_figure FIGURE }}``
    One figure of the cost model: how far it misses the points it was fitted to or the
    held-out ones (``fitted_worst``, ``fitted_median``, ``held_out_worst``,
    ``held_out_median``), or the tensor size from which it counts an op as split
    across threads (``split_elements``).

``{{ history_trend … }}``, ``{{ history_changes … }}`` and the other ``history_`` directives
    The release history: see ``tfspeedlab.site.history_directives``.
``{{ diagnosis NAME }}`` and the other ``diagnosis_`` directives
    Committed ``tfspeedlab diagnose`` reports: see ``tfspeedlab.site.diagnosis_directives``.

Inline figures read the ``cpu`` runner unless given ``runner=gpu``; arguments
with spaces are quoted: ``{{ metric tracing "python scalars" traces }}``. A
directive's arguments and options are its handler's parameters: a missing
argument, an extra one or an unknown option fails the build, naming the valid ones.
"""

from __future__ import annotations

import inspect
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tfspeedlab.analysis import cost_model, dispatch, intervals, line_fit, op_layers
from tfspeedlab.analysis.summary import any_noisy, format_interval, format_speedup
from tfspeedlab.analysis.xla import XlaPair, xla_pairs
from tfspeedlab.results import artifacts
from tfspeedlab.results.repo import examples_dir
from tfspeedlab.results.history import ReleaseResults
from tfspeedlab.results.schema import RUNNERS, ResultsFile
from tfspeedlab.results.store import load_failure
from tfspeedlab.site import charts, listing, markdown, quantities, tables, templating
from tfspeedlab.site.diagnosis_directives import DIAGNOSIS_DIRECTIVES, Samples
from tfspeedlab.site.history_directives import HISTORY_DIRECTIVES
from tfspeedlab.site.runners import RUNNER_TITLES, machine_summary, not_measured, runner_tabs
from tfspeedlab.site.simulator import PARAMS_URI, simulator_html
from tfspeedlab.site.views import view_for
from tfspeedlab.units import format_bytes, format_ratio, format_signed_time, format_time

CHART_DIR = "assets/results"
TRACE_URI = "assets/traces/{runner}/{example}/{name}"


def chart_uri(runner: str, example: str, theme: str) -> str:
    return f"{CHART_DIR}/{runner}/{example}-{theme}.svg"


class DirectiveError(ValueError):
    """A directive that cannot be rendered as written."""


@dataclass(frozen=True)
class Context:
    results: dict[str, dict[str, ResultsFile]]
    results_root: Path
    repo_url: str | None
    page_uri: str
    # The page's URL path ("simulator/"): raw HTML is not rewritten by MkDocs,
    # so its links must be relative to where the page is served.
    page_url: str = ""
    # Each runner's fitted cost model, fitted once per build by the plugin.
    models: dict[str, cost_model.CostModel] = field(default_factory=dict)
    # The examples that exist (the plugin's build knows them): a directive naming
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


def render(name: str, args: list[str], context: Context) -> str:
    """One directive's Markdown; ``DirectiveError`` names what is wrong and what is valid."""
    handler = DIRECTIVES.get(name)
    if handler is None:
        raise DirectiveError(f"unknown directive {name!r}; known: {', '.join(sorted(DIRECTIVES))}")
    # An option is ``name=value`` with a bare name; a case label may hold "=" too
    # ("fit, steps_per_execution=10"), and stays an argument.
    positional = [arg for arg in args if not OPTION.fullmatch(arg)]
    options = dict(arg.split("=", 1) for arg in args if OPTION.fullmatch(arg))
    signature = inspect.signature(handler)
    valid = [p.name for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY]
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise DirectiveError(f"unknown option(s) {', '.join(unknown)}; valid options: {', '.join(valid) or 'none'}")
    try:
        bound = signature.bind(context, *positional, **options)
    except TypeError:
        raise DirectiveError(f"takes {usage(name)}; got {len(positional)} argument(s)") from None
    for parameter, value in bound.arguments.items():
        if parameter in EXAMPLE_PARAMETERS:
            for example in (value if isinstance(value, tuple) else (value,)):
                context.check_example(example)
    return handler(context, *positional, **options)


OPTION = re.compile(r"[A-Za-z_]\w*=.*")

# Directive parameters that name an example.
EXAMPLE_PARAMETERS = frozenset({"example", "other_example", "examples"})


def usage(name: str) -> str:
    """``{{ median NAME CASE [runner=…] }}``, from the handler's parameters."""
    parts = [name]
    for parameter in list(inspect.signature(DIRECTIVES[name]).parameters.values())[1:]:
        if parameter.kind is parameter.KEYWORD_ONLY:
            parts.append(f"[{parameter.name}=…]")
        elif parameter.default is parameter.empty:
            parts.append(parameter.name.upper())
        else:
            parts.append(f"[{parameter.name.upper()}]")
    return "{{ " + " ".join(parts) + " }}"


# ------------------------------------------------------------ measured blocks


def _results(context: Context, example: str) -> str:
    return runner_tabs(lambda runner: _runner_block(context, runner, example))


def _runner_block(context: Context, runner: str, example: str) -> str:
    results = context.results[runner].get(example)
    if results is None:
        return not_measured(runner, markdown.code(example))
    parts = [note] if (note := _source_note(context, runner)) else []
    failure = load_failure(context.results_root / runner, example)
    if failure and failure.get("utc_time", "") > results.environment["utc_time"]:
        parts.append(templating.render("latest_run_failed.md.j2", runner=runner,
                                       error=failure.get("error", "unknown error"), utc_time=failure.get("utc_time")))
    if results.quick:
        parts.append(templating.render("quick_run.md.j2"))
    parts.append(view_for(results).table(results))
    if any_noisy(results):
        parts.append(templating.render("noisy_note.md.j2"))
    if _shows_ratios(results):
        parts.append(templating.render("speedup_note.md.j2",
                                       why=context.relative("fair-timing.md") + "#which-number-reproduces"))
    for theme in charts.THEMES:
        target = context.relative(chart_uri(runner, example, theme))
        parts.append(f"![{markdown.text(results.title)}, time per call on {runner}]({target}#only-{theme})")
    parts.append(_provenance(context, results, runner, example))
    return "\n\n".join(parts) + "\n"


def _shows_ratios(results: ResultsFile) -> bool:
    """Whether the table of this file has speed-up columns (against a baseline case, series or row)."""
    return results.baseline is not None or getattr(results.layout, "baseline", None) is not None


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


def _provenance(context: Context, results: ResultsFile, runner: str, example: str) -> str:
    env = results.environment
    path = f"results/{runner}/{example}.json"
    link = f"[{path}]({context.repo_url.rstrip('/')}/blob/main/{path})" if context.repo_url else markdown.code(path)
    commit = env.get("git_commit")
    return templating.render("provenance.md.j2", measured=env["utc_time"][:16].replace("T", " "),
                             commit=commit[:10] if commit else None, link=link)


def trace_files(results_root: Path, runner: str, example: str) -> list[Path]:
    """Profiler traces the harness kept beside an example's results (regular files only)."""
    return artifacts.published_files(results_root, runner, example, "*.xplane.pb")


def _traces(context: Context, example: str) -> str:
    def body(runner: str) -> str:
        if example not in context.results[runner]:
            return not_measured(runner, markdown.code(example))
        files = trace_files(context.results_root, runner, example)
        if not files:
            return templating.render("no_traces.md.j2", example=example, title=RUNNER_TITLES[runner])
        traces = [{"name": path.name, "megabytes": f"{path.stat().st_size / 1e6:.1f}",
                   "url": context.relative(TRACE_URI.format(runner=runner, example=example, name=path.name))}
                  for path in files]
        return templating.render("traces.md.j2", title=RUNNER_TITLES[runner], traces=traces,
                                 first=files[0].name, run=files[0].name.split(".")[0])

    return runner_tabs(body)


def _tabbed(table: Callable[[ResultsFile], str], doc: str) -> Callable[..., str]:
    """A directive ``{{ NAME EXAMPLE }}`` showing one table of the example in runner tabs."""
    def directive(context: Context, example: str) -> str:
        return context.example_tabs(example, table)

    directive.__doc__ = doc
    return directive


def _fitted(context: Context, example: str, part: str, row: str, figure: str, *, runner: str = "cpu") -> str:
    """``{{ fitted predict_ladder MLP predict fixed }}``: ``12.3 ms [11.9 ms – 12.8 ms]``; figures:
    ``fixed``, ``per_sample``, ``break_even`` (the batch size where the two are equal)."""
    results = context.lookup(example, runner)
    try:
        fit = line_fit.row_fit(results, part, row)
    except KeyError as error:
        if line_fit.measured_row(results, part, row):  # measured, at too few sizes to fit (a quick run)
            return "not fitted (this run measured fewer than three batch sizes)"
        if results.quick:  # a part a quick run leaves out (the CNN)
            return "*not measured in this quick run*"
        raise DirectiveError(str(error.args[0])) from None
    if figure == "fixed":
        return tables.time_with_interval(fit.fixed_s)
    if figure == "per_sample":
        return tables.time_with_interval(fit.per_item_s)
    if figure == "break_even":
        return f"{fit.break_even_items:,.0f}"
    raise DirectiveError(f"figure must be fixed, per_sample or break_even, got {figure!r}")


def _share(context: Context, example: str, case: str, metric: str, *, runner: str = "cpu") -> str:
    """A metric that is a fraction, as a percentage: ``{{ share input_pipeline from_generator data_wait_share }}`` → ``83%``."""
    return f"{quantities.metric_value(context.lookup(example, runner), case, metric):.0%}"


def _jit_resolved(context: Context, example: str, case: str = "fit", *, runner: str = "cpu") -> str:
    """What Keras 3's ``jit_compile="auto"`` became for ``case`` (its ``jit_compile_resolved`` metric):
    ``XLA (`jit_compile=True`)`` or ``no XLA (`jit_compile=False`)``."""
    resolved = quantities.metric_value(context.lookup(example, runner), case, "jit_compile_resolved")
    return "XLA (`jit_compile=True`)" if resolved else "no XLA (`jit_compile=False`)"


def _dispatch_table(context: Context, example: str) -> str:
    return context.example_tabs(example, tables.dispatch_table)


def _estimators(context: Context, example: str) -> str:
    """The estimator experiment: each candidate's speed-ups, and how far two halves of the processes differ."""
    return context.example_tabs(example, tables.estimator_table)


def _estimator_summary(context: Context, *examples: str) -> str:
    """The estimator experiment over several files: each candidate's worst split over all their speed-ups."""
    def body(runner: str) -> str:
        found = [context.results[runner].get(example) for example in examples]
        if any(results is None for results in found):
            return not_measured(runner, "the estimator experiment")
        if min(len(case.runs) for results in found for case in results.cases) < 2:
            return "These results have one process per case; the experiment needs two or more.\n"
        return tables.estimator_summary(found) + "\n"

    return runner_tabs(body)


def _xla_pairs_by_example(context: Context, runner: str) -> list[tuple[ResultsFile, list[XlaPair]]]:
    """Each results file that measured graph/XLA pairs, with its pairs (each a bootstrap: found once)."""
    found = [(results, xla_pairs(results)) for results in context.results[runner].values()]
    return [(results, pairs) for results, pairs in found if pairs]


def _xla_summary(context: Context) -> str:
    def body(runner: str) -> str:
        with_xla = _xla_pairs_by_example(context, runner)
        if not with_xla:
            return not_measured(runner, "the XLA workloads")
        return tables.xla_summary_table(with_xla) + "\n"

    return runner_tabs(body)


def _xla_extremes(context: Context, *, runner: str = "cpu") -> str:
    """XLA's worst and best against the plain graph over every pair measured (the XLA page's table):
    ``0.367× (TF1 vs TF2, small: …) to 4.68× (…)``."""
    pairs = [(pair, results) for results, found in _xla_pairs_by_example(context, runner) for pair in found]
    if not pairs:
        raise DirectiveError(f"no {runner} results file measures a graph/XLA pair")
    worst = min(pairs, key=lambda item: item[0].speedup.value)
    best = max(pairs, key=lambda item: item[0].speedup.value)

    def describe(item) -> str:
        pair, results = item
        value = pair.speedup.value
        how = f"{format_ratio(value)} faster" if value >= 1 else f"{format_ratio(1 / value)} slower"
        return f"{how} ({markdown.text(results.title)} — {markdown.text(pair.label)})"

    return f"{describe(worst)} to {describe(best)}"


def _environment(context: Context) -> str:
    def body(runner: str) -> str:
        found = context.results[runner]
        if not found:
            return not_measured(runner, "any example")
        return tables.environment_table(list(found.values())) + "\n"

    return runner_tabs(body)


def _measured_on(context: Context) -> str:
    """One box for the top of a page: the machines, TensorFlow versions and dates behind every figure."""
    summary = {}
    for runner in RUNNERS:
        found = list(context.results[runner].values())
        machines = sorted({machine_summary(results.environment) for results in found})
        dates = sorted(results.environment["utc_time"][:10] for results in found)
        summary.update({runner: machines, f"{runner}_count": quantities.count(len(found), "example"),
                        f"{runner}_versions": sorted({results.environment["tensorflow"] for results in found}),
                        f"{runner}_dates": (dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}")
                        if dates else ""})
    return templating.render("measured_on.md.j2", runners=context.relative("runners.md"), **summary)


def _listing(context: Context, example: str) -> str:
    """The example's source for readers who want the whole harness-bound script."""
    script = examples_dir() / f"{example}.py"
    if not script.is_file():
        raise DirectiveError(f"no example script {script}")
    return listing.listing_markdown(script, f"examples/{example}.py")


def _simulator(context: Context) -> str:
    return simulator_html(context.relative_url(PARAMS_URI))


def _model_parameters(context: Context) -> str:
    return context.model_tabs(lambda model, results: tables.model_parameters_table(model))


def _model_validation(context: Context) -> str:
    return context.model_tabs(tables.model_validation)


def _model_figure(context: Context, figure: str, *, runner: str = "cpu") -> str:
    """``{{ model_figure held_out_worst }}``: ``25%``; ``{{ model_figure split_elements }}``: ``96,000``;
    ``{{ model_figure break_even_10x10 }}``: ``11.9`` (ops, on 10 × 10 tensors)."""
    if runner not in context.models:
        raise DirectiveError(f"no cost model for {runner!r}: it needs the op-count and tensor-size sweeps")
    if figure == "split_elements":
        return f"{cost_model.SPLIT_ELEMENTS:,}"
    if figure == "break_even_10x10":  # the op-count sweep's tensors, for comparison with its own line fit
        found = context.models[runner].break_even_ops(100)
        return f"{found:.1f}" if found is not None else "none (graph mode never catches up)"
    group, _, statistic = figure.rpartition("_")
    if group not in ("fitted", "held_out") or statistic not in ("worst", "median"):
        raise DirectiveError(f"no model figure {figure!r}; figures: fitted_worst, fitted_median, "
                             f"held_out_worst, held_out_median, split_elements, break_even_10x10")
    predictions, _ = cost_model.validate(context.models[runner], context.results[runner])
    found = cost_model.misses(predictions, held_out=group == "held_out")
    if found is None:
        raise DirectiveError(f"no {group.replace('_', '-')} points on {runner}")
    return f"{getattr(found, statistic):.0%}"


# ------------------------------------------------------------ inline figures


def _median(context: Context, example: str, case: str, *, runner: str = "cpu") -> str:
    return format_time(context.lookup(example, runner).case(case).measurement.median_s)


def _first_call(context: Context, example: str, case: str, *, runner: str = "cpu") -> str:
    return format_time(context.lookup(example, runner).case(case).measurement.first_call_s)


def _ratio(context: Context, example: str, numerator: str, denominator: str, *, runner: str = "cpu") -> str:
    """``numerator``'s time over ``denominator``'s (``speedup`` is the same with the slower first)."""
    return format_ratio(intervals.speedup(context.lookup(example, runner), numerator, denominator).value)


def _factor(context: Context, example: str, slower: str, faster: str, *, runner: str = "cpu") -> str:
    """The speed-up of ``faster`` over ``slower`` with its interval, read as a person would:
    ``10.8× [9.78–12.0×]``, or ``2.24× slower [2.11–2.47×]`` when the whole interval is below 1."""
    return format_speedup(intervals.speedup(context.lookup(example, runner), slower, faster))


def _interval(context: Context, example: str, numerator: str, denominator: str, *, runner: str = "cpu") -> str:
    """The 95% interval of ``{{ ratio NAME A B }}``: ``9.8–10.4×``."""
    return format_interval(intervals.speedup(context.lookup(example, runner), numerator, denominator))


def _percent_faster(context: Context, example: str, slower: str, faster: str, *, runner: str = "cpu") -> str:
    """How much faster ``faster`` ran than ``slower``, as the percentage people quote, with the 95%
    interval: ``86% faster (95% interval 75–97%)``; ``5% slower (…)`` when it lost, and ``not clearly
    faster or slower (+2%, …)`` when the interval spans both. The ratio of ``{{ ratio NAME SLOWER FASTER }}``."""
    found = intervals.speedup(context.lookup(example, runner), slower, faster)
    if found.above_one:
        return f"{_faster_or_slower(found.value)} (95% interval {found.low - 1:.0%}–{found.high - 1:.0%})"
    if found.below_one:
        return f"{_faster_or_slower(found.value)} (95% interval {1 / found.high - 1:.0%}–{1 / found.low - 1:.0%})"
    return f"not clearly faster or slower (95% interval: {_faster_or_slower(found.low)} to {_faster_or_slower(found.high)})"


def _faster_or_slower(ratio: float) -> str:
    return f"{ratio - 1:.0%} faster" if ratio >= 1 else f"{1 / ratio - 1:.0%} slower"


def _verdict(context: Context, example: str, candidate: str, reference: str, *, runner: str = "cpu") -> str:
    """"faster than" / "slower than" / "no clearly different from", as the interval of the ratio allows."""
    found = intervals.speedup(context.lookup(example, runner), reference, candidate)
    return {"faster": "faster than", "slower": "slower than"}.get(intervals.verdict(found),
                                                                  "not clearly different from")


def _agreement(context: Context, example: str, case: str, other_example: str, other_case: str, *,
               runner: str = "cpu") -> str:
    """The same workload in two results files: the ratio with its interval, and whether they differ.

    ``{{ agreement step_profile graph train_step graph }}`` → ``1.04× [0.97–1.12×], no clear difference``.
    """
    found = intervals.ratio(context.lookup(example, runner).case(case),
                            context.lookup(other_example, runner).case(other_case))
    verdict = {"faster": "slower here", "slower": "faster here"}.get(intervals.verdict(found), "no clear difference")
    return f"{format_ratio(found.value)} [{format_interval(found)}], {verdict}"


def _tf_version(context: Context, example: str, *, runner: str = "cpu") -> str:
    return context.lookup(example, runner).environment["tensorflow"]


def _sample_range(context: Context, example: str, case: str, *, runner: str = "cpu") -> str:
    samples = context.lookup(example, runner).case(case).measurement.samples_s
    return format_ratio(max(samples) / min(samples))


def _derived(context: Context, example: str, figure: str, *, runner: str = "cpu") -> str:
    return quantities.derived(context.lookup(example, runner), figure)


def _metric(context: Context, example: str, case: str, metric: str, *, runner: str = "cpu") -> str:
    return quantities.metric(context.lookup(example, runner), case, metric)


def _metric_time(context: Context, example: str, case: str, metric: str, *, runner: str = "cpu") -> str:
    """A metric that is a time in seconds, in its unit: ``{{ metric_time call_cost graph function_run_s }}`` → ``412 µs``."""
    return format_time(quantities.metric_value(context.lookup(example, runner), case, metric))


def _count(context: Context, example: str, case: str, metric: str, noun: str, *, runner: str = "cpu") -> str:
    """A counted metric in words: ``once``, ``twice``, ``10 times`` (noun ``time``); ``1 trace``, ``3 traces``."""
    return quantities.count(quantities.metric_value(context.lookup(example, runner), case, metric), noun)


def _memory_figure(context: Context, example: str, case: str, metric: str, *, runner: str = "cpu") -> str:
    """``{{ memory_figure step_profile xla peak_rss_growth_bytes }}``: one memory metric, in MiB/GiB."""
    return format_bytes(quantities.metric_value(context.lookup(example, runner), case, metric))


def _layer_time(context: Context, example: str, case: str, layer: str, *, runner: str = "cpu") -> str:
    return format_time(context.lookup(example, runner).case(case).measurement.median_s
                       * quantities.metric_value(context.lookup(example, runner), case, f"{layer}_fraction"))


def _layer_share(context: Context, example: str, case: str, layer: str, *, runner: str = "cpu") -> str:
    return f"{quantities.metric_value(context.lookup(example, runner), case, f'{layer}_fraction'):.0%}"


def _layer_cost(context: Context, example: str, layer: str, elements: str = "1", *, runner: str = "cpu") -> str:
    """``{{ layer_cost op_layers "generated wrapper" 1 }}``: one op layer's cost per op at one size."""
    costs = op_layers.layer_costs(context.lookup(example, runner), int(elements))
    if layer not in costs:
        raise DirectiveError(f"no layer {layer!r}; known: {', '.join(costs)}")
    return format_signed_time(costs[layer])


def _entry_time(context: Context, example: str, entry: str, elements: str = "1", *, runner: str = "cpu") -> str:
    """``{{ entry_time op_layers tf.add 1 }}``: an entry point's median per op at one size."""
    results = context.lookup(example, runner)
    if entry == "kernel":
        return format_time(op_layers.kernel_s(results, int(elements)))
    return format_time(op_layers.median(results, entry, int(elements)))


def _per_op(context: Context, example: str, mode: str, *, runner: str = "cpu") -> str:
    """``{{ per_op frameworks "PyTorch eager" }}``: small-op loop time of a mode over its op count."""
    return format_time(dispatch.per_op_s(context.lookup(example, runner), mode))


def _param(context: Context, example: str, parameter: str, *, runner: str = "cpu") -> str:
    """``{{ param frameworks matmul_size }}``: a workload parameter recorded in the results."""
    params = context.lookup(example, runner).params
    if parameter not in params:
        raise DirectiveError(f"{example} has no parameter {parameter!r}; it has {sorted(params)}")
    return str(params[parameter])


def _tf_source(context: Context, path: str) -> str:
    """``{{ tf_source tensorflow/core/... }}``: a link into TensorFlow's sources at the measured version."""
    return f"https://github.com/tensorflow/tensorflow/blob/v{_measured_version(context, 'tensorflow')}/{path}"


def _keras_source(context: Context, path: str) -> str:
    """``{{ keras_source keras/src/... }}``: a link into Keras 3's sources at the measured version."""
    return f"https://github.com/keras-team/keras/blob/v{_measured_version(context, 'keras')}/{path}"


def _tf_keras_source(context: Context, path: str) -> str:
    """``{{ tf_keras_source tf_keras/src/... }}``: a link into the legacy Keras 2 (tf-keras) at the measured version."""
    return f"https://github.com/keras-team/tf-keras/blob/v{_measured_version(context, 'tf_keras')}/{path}"


def _measured_version(context: Context, package: str) -> str:
    """The newest version of ``package`` any results file was measured with (the links show that code)."""
    versions = sorted({r.environment[package] for by_example in context.results.values()
                       for r in by_example.values() if r.environment.get(package)},
                      key=lambda version: tuple(int(part) if part.isdigit() else 0 for part in version.split(".")))
    if not versions:
        raise DirectiveError(f"no results to take the {package} version from")
    return versions[-1]


DIRECTIVES: dict[str, Callable[..., str]] = {
    "results": _results,
    "fixed_costs": _tabbed(tables.fixed_cost_table, "A grid over batch sizes: each rung's fixed cost per call and cost per sample, fitted."),
    "memory_growth": _tabbed(tables.memory_growth_table, "Resident memory before and after the repeated calls, per rung."),
    "training_calls": _tabbed(tables.training_calls_table, "Traces of each training API's step, and its loss before and after."),
    "feeds": _tabbed(tables.feed_table, "Per feed: the share of time waiting for data, traces, loss."),
    "fitted": _fitted,
    "jit_resolved": _jit_resolved,
    "share": _share,
    "tf_keras_source": _tf_keras_source,
    "median": _median,
    "first_call": _first_call,
    "speedup": _ratio,
    "ratio": _ratio,
    "verdict": _verdict,
    "interval": _interval,
    "percent_faster": _percent_faster,
    "agreement": _agreement,
    "estimators": _estimators,
    "estimator_summary": _estimator_summary,
    "tf_version": _tf_version,
    "training_check": _tabbed(tables.training_check_table, "Loss before and after, and the largest weight change, per case."),
    "process_runs": _tabbed(tables.process_runs_table, "Each case's median in each of its processes, and their spread."),
    "derived": _derived,
    "sample_range": _sample_range,
    "metric": _metric,
    "metric_time": _metric_time,
    "factor": _factor,
    "count": _count,
    "xla_summary": _xla_summary,
    "xla_extremes": _xla_extremes,
    "layers": _tabbed(tables.host_layers_table, "The host-time layers of each profiled case."),
    "layer_time": _layer_time,
    "layer_share": _layer_share,
    "traces": _traces,
    "tf_source": _tf_source,
    "keras_source": _keras_source,
    "param": _param,
    "per_op": _per_op,
    "dispatch_table": _dispatch_table,
    "memory": _tabbed(tables.memory_table, "Peak memory per mode."),
    "memory_figure": _memory_figure,
    "layer_cost": _layer_cost,
    "entry_time": _entry_time,
    "environment": _environment,
    "listing": _listing,
    "measured_on": _measured_on,
    "simulator": _simulator,
    "model_parameters": _model_parameters,
    "model_validation": _model_validation,
    "model_figure": _model_figure,
    **HISTORY_DIRECTIVES,
    **DIAGNOSIS_DIRECTIVES,
}
