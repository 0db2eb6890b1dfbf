"""The page directives, each turning results into Markdown.

``{{ results NAME }}``
    CPU / GPU content tabs with the table and chart of ``results/<runner>/NAME.json``
    (a pivot table and line chart for a sweep), or a plain note where that
    runner has no file yet.
``{{ median NAME CASE }}``, ``{{ first_call NAME CASE }}``
    One case's median time per call, or its first-call time.
``{{ speedup NAME SLOWER FASTER }}``
    Ratio of two cases' medians, e.g. ``10.1×``.
``{{ ratio NAME A B }}``
    Median of A over median of B: below 1× means A is faster.
``{{ verdict NAME A B }}``
    "at least as fast as" when A's median is at most B's, else "slower than".
``{{ training_check NAME }}``
    Loss before and after timing and the largest weight change, per case.
``{{ derived NAME FIGURE }}``
    A figure computed from the file (see ``tfspeedlab.figures.DERIVED``).
``{{ metric NAME CASE METRIC }}``
    A measured non-time quantity of one case (a tracing count, a loss).
``{{ sample_range NAME CASE }}``
    Slowest over fastest sample of one case: how far single timings scatter.
``{{ layers NAME }}``
    Per-mode table of the profiled split into Python, op dispatch, executor and kernels.
``{{ layer_cost NAME LAYER [ELEMENTS] }}``, ``{{ entry_time NAME ENTRY [ELEMENTS] }}``
    Op-layer figures (``tfspeedlab.layer_costs``): one layer's cost per op, or
    one entry point's median per op (``kernel``: the kernel alone), at a size.
``{{ memory NAME }}``, ``{{ memory_figure NAME CASE METRIC }}``
    Peak host (and GPU) memory per mode, or one such figure.
``{{ per_op NAME MODE }}``, ``{{ dispatch_table NAME }}``
    Per-op dispatch cost: a mode's small-op loop time over its op count (frameworks).
``{{ param NAME PARAMETER }}``
    A workload parameter recorded in the results file.
``{{ tf_source PATH }}``
    A link to PATH in TensorFlow's sources at the version the results were measured with.
``{{ traces NAME }}``
    Download links for the profiler traces kept with the results, and how to open them.
``{{ layer_time NAME CASE LAYER }}``, ``{{ layer_share NAME CASE LAYER }}``
    One layer's time per call (median × profiled share), or its share.
``{{ xla_summary }}``
    XLA against plain graph mode for every workload that measured both.
``{{ environment }}``
    The environment of each runner's results.
``{{ simulator }}``, ``{{ model_parameters }}``, ``{{ model_validation }}``
    The speed simulator, its fitted parameters, and its predictions against
    every measured workload (``tfspeedlab.simulator_page``).

Inline figures read the ``cpu`` runner unless given ``runner=gpu``; arguments
with spaces are quoted: ``{{ metric tracing "python scalars" traces }}``.
"""

from __future__ import annotations

import posixpath
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from tfspeedlab import artifacts, charts, figures, layer_costs, tables
from tfspeedlab.results import RUNNERS, ResultsFile, load_failure
from tfspeedlab.units import format_ratio, format_time

RUNNER_TITLES = {"cpu": "CPU", "gpu": "GPU"}
CHART_DIR = "assets/results"


def chart_uri(runner: str, example: str, theme: str) -> str:
    return f"{CHART_DIR}/{runner}/{example}-{theme}.svg"


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
    models: dict = field(default_factory=dict)

    def lookup(self, example: str, options: dict[str, str]) -> ResultsFile:
        runner = options.pop("runner", "cpu")
        if options:
            raise ValueError(f"unknown option(s) {sorted(options)}")
        if runner not in RUNNERS:
            raise ValueError(f"runner must be one of {RUNNERS}")
        try:
            return self.results[runner][example]
        except KeyError:
            raise KeyError(
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


def render(name: str, args: list[str], context: Context) -> str:
    positional = [arg for arg in args if "=" not in arg]
    options = dict(arg.split("=", 1) for arg in args if "=" in arg)
    handler = _DIRECTIVES.get(name)
    if handler is None:
        raise ValueError(f"unknown directive; known: {', '.join(sorted(_DIRECTIVES))}")
    return handler(context, options, *positional)


def _results(context: Context, options: dict, example: str) -> str:
    return runner_tabs(lambda runner: _runner_block(context, runner, example))


def runner_tabs(body_of) -> str:
    """Material content tabs, one per runner; linked across the site."""
    tabs = []
    for runner in RUNNERS:
        tabs.append(f'=== "{RUNNER_TITLES[runner]}"\n\n{textwrap.indent(body_of(runner), "    ")}')
    return "\n\n".join(tabs) + "\n"


def not_measured(runner: str, what: str) -> str:
    title = RUNNER_TITLES[runner]
    return (f'!!! note "Not yet measured on {title}"\n\n'
            f"    No {title} run of {what} has been recorded yet, so this tab shows no figures. "
            f"`tfspeedlab run --runner {runner}` on such a machine fills it.\n")


def _runner_block(context: Context, runner: str, example: str) -> str:
    results = context.results[runner].get(example)
    if results is None:
        return not_measured(runner, f"`{example}`")
    parts = [note] if (note := source_note(context, runner)) else []
    failure = load_failure(context.results_root / runner, example)
    if failure and failure.get("utc_time", "") > results.environment["utc_time"]:
        parts.append(f'!!! warning "The latest {runner} run of this example failed"\n\n'
                     f"    `{failure.get('error', 'unknown error')}` ({failure.get('utc_time')}). "
                     "The figures below are from the last run that succeeded.\n")
    if results.quick:
        parts.append('!!! info "Quick run"\n\n    These figures come from a `--quick` run: '
                     "smaller workloads and shorter budgets, so wider spread than a full run.\n")
    if "sweep" in results.params:
        parts.append(tables.sweep_markdown_table(results))
    elif "op_layers" in results.params:
        parts.append(tables.op_layers_markdown_table(results))
    elif "grid" in results.params:
        parts.append(tables.grid_markdown_table(results))
    else:
        parts.append(tables.markdown_table(results))
    if tables.any_noisy(results):
        parts.append("*(! N%)* marks a noisy case: its interquartile range is at least 10% of its "
                     "median, so differences of that size are not evidence.")
    for theme in charts.THEMES:
        target = context.relative(chart_uri(runner, example, theme))
        parts.append(f"![{results.title}, time per call on {runner}]({target}#only-{theme})")
    parts.append(_provenance(context, results, runner, example))
    return "\n\n".join(parts) + "\n"


def source_note(context: Context, runner: str) -> str | None:
    """What the CI site build used for this runner (scripts/collect-results.sh writes SOURCE)."""
    marker = context.results_root / runner / "SOURCE"
    if not marker.exists():
        return None
    source = marker.read_text().strip()
    if source == "committed":
        return (f'!!! warning "Not re-measured in this build"\n\n    The {RUNNER_TITLES[runner]} benchmark job '
                "of the CI run that built this site was skipped or failed, so these are the results "
                "committed to the repository.\n")
    if source == "ci":
        return None
    raise ValueError(f"{marker} says {source!r}; expected 'ci' or 'committed'")


def _provenance(context: Context, results: ResultsFile, runner: str, example: str) -> str:
    env = results.environment
    commit = env.get("git_commit")
    at_commit = f" at commit `{commit[:10]}`" if commit else ""
    link = f"results/{runner}/{example}.json"
    link = f"[{link}]({context.repo_url.rstrip('/')}/blob/main/{link})" if context.repo_url else f"`{link}`"
    return (f"<small>Measured {env['utc_time'][:16].replace('T', ' ')} UTC{at_commit}; "
            f"raw samples and full environment in {link}.</small>")


def _median(context: Context, options: dict, example: str, case: str) -> str:
    return format_time(context.lookup(example, options).case(case).measurement.median_s)


def _first_call(context: Context, options: dict, example: str, case: str) -> str:
    return format_time(context.lookup(example, options).case(case).measurement.first_call_s)


def _speedup(context: Context, options: dict, example: str, slower: str, faster: str) -> str:
    return format_ratio(context.lookup(example, options).speedup(slower, faster))


def _ratio(context: Context, options: dict, example: str, numerator: str, denominator: str) -> str:
    results = context.lookup(example, options)
    return format_ratio(results.case(numerator).measurement.median_s / results.case(denominator).measurement.median_s)


def _verdict(context: Context, options: dict, example: str, candidate: str, reference: str) -> str:
    results = context.lookup(example, options)
    ratio = results.case(candidate).measurement.median_s / results.case(reference).measurement.median_s
    return "at least as fast as" if ratio <= 1.0 else "slower than"


def example_tabs(context: Context, example: str, render) -> str:
    """Runner tabs showing ``render(results)`` of one example, or the not-measured note."""
    def body(runner: str) -> str:
        results = context.results[runner].get(example)
        if results is None:
            return not_measured(runner, f"`{example}`")
        return render(results) + "\n"

    return runner_tabs(body)


def _training_check(context: Context, options: dict, example: str) -> str:
    def table(results: ResultsFile) -> str:
        lines = ["| Case | Loss before | Loss after | Largest weight change |", "| --- | --: | --: | --: |"]
        for case in results.cases:
            m = case.metrics
            lines.append(f"| {case.label} | {m['loss_start']:.4g} | {m['loss_end']:.4g} | {m['weight_change']:.3g} |")
        return "\n".join(lines)

    return example_tabs(context, example, table)


def _tf_version(context: Context, options: dict, example: str) -> str:
    return context.lookup(example, options).environment["tensorflow"]


def _sample_range(context: Context, options: dict, example: str, case: str) -> str:
    samples = context.lookup(example, options).case(case).measurement.samples_s
    return format_ratio(max(samples) / min(samples))


def _derived(context: Context, options: dict, example: str, name: str) -> str:
    return figures.derived(context.lookup(example, options), name)


def _metric(context: Context, options: dict, example: str, case: str, name: str) -> str:
    return figures.metric(context.lookup(example, options), case, name)


def _layers(context: Context, options: dict, example: str) -> str:
    return example_tabs(context, example, tables.layers_table)


def _layer_time(context: Context, options: dict, example: str, case: str, layer: str) -> str:
    found = context.lookup(example, options).case(case)
    return format_time(found.measurement.median_s * found.metrics[f"{layer}_fraction"])


def _layer_share(context: Context, options: dict, example: str, case: str, layer: str) -> str:
    return f"{context.lookup(example, options).case(case).metrics[f'{layer}_fraction']:.0%}"


TRACE_URI = "assets/traces/{runner}/{example}/{name}"


def trace_files(results_root: Path, runner: str, example: str) -> list[Path]:
    """Profiler traces the harness kept beside an example's results."""
    return sorted((results_root / runner / artifacts.FOLDER / example).glob("*.xplane.pb"))


def _traces(context: Context, options: dict, example: str) -> str:
    def body(runner: str) -> str:
        if example not in context.results[runner]:
            return not_measured(runner, f"`{example}`")
        files = trace_files(context.results_root, runner, example)
        if not files:
            return f"No profiler trace of `{example}` was kept on {RUNNER_TITLES[runner]}.\n"
        links = ", ".join(
            f"[{path.name}]({context.relative(TRACE_URI.format(runner=runner, example=example, name=path.name))})"
            f" ({path.stat().st_size / 1e6:.1f} MB)" for path in files)
        first = files[0].name
        run = first.split(".")[0]
        return (f'??? info "Raw profiler traces ({RUNNER_TITLES[runner]}): open them in XProf or TensorBoard"\n\n'
                f"    The traces the numbers above were computed from: {links}. XProf and TensorBoard "
                "look for traces under `plugins/profile/<run>/` in a log folder:\n\n"
                "    ```sh\n"
                f"    mkdir -p logdir/plugins/profile/{run}\n"
                f"    cp {first} logdir/plugins/profile/{run}/host.xplane.pb\n"
                "    pip install xprof\n"
                "    xprof server --logdir logdir   # or: tensorboard --logdir logdir (Profile tab)\n"
                "    ```\n")

    return runner_tabs(body)


def _memory(context: Context, options: dict, example: str) -> str:
    return example_tabs(context, example, tables.memory_table)


def _memory_figure(context: Context, options: dict, example: str, case: str, name: str) -> str:
    """``{{ memory_figure step_profile xla peak_rss_growth_bytes }}``: one memory metric, in MiB/GiB."""
    return tables.format_bytes(figures.metric_value(context.lookup(example, options), case, name))


def _tf_source(context: Context, options: dict, path: str) -> str:
    """``{{ tf_source tensorflow/core/... }}``: a link into TensorFlow's sources at the measured version."""
    versions = sorted({r.environment["tensorflow"] for by_example in context.results.values()
                       for r in by_example.values()})
    if not versions:
        raise ValueError("no results to take the TensorFlow version from")
    return f"https://github.com/tensorflow/tensorflow/blob/v{versions[-1]}/{path}"


def _param(context: Context, options: dict, example: str, name: str) -> str:
    """``{{ param frameworks matmul_size }}``: a workload parameter recorded in the results."""
    params = context.lookup(example, options).params
    if name not in params:
        raise KeyError(f"{example} has no parameter {name!r}; it has {sorted(params)}")
    return str(params[name])


def _per_op(context: Context, options: dict, example: str, mode: str) -> str:
    """``{{ per_op frameworks "PyTorch eager" }}``: small-op loop time of a mode over its op count."""
    return format_time(tables.per_op_s(context.lookup(example, options), mode))


def _dispatch_table(context: Context, options: dict, example: str) -> str:
    return example_tabs(context, example, tables.dispatch_table)


def _layer_cost(context: Context, options: dict, example: str, layer: str, elements: str = "1") -> str:
    """``{{ layer_cost op_layers "generated wrapper" 1 }}``: one layer's cost per op at one size."""
    costs = layer_costs.layer_costs(context.lookup(example, options), int(elements))
    if layer not in costs:
        raise KeyError(f"no layer {layer!r}; known: {', '.join(costs)}")
    return tables.signed_time(costs[layer])


def _entry_time(context: Context, options: dict, example: str, entry: str, elements: str = "1") -> str:
    """``{{ entry_time op_layers tf.add 1 }}``: an entry point's median per op at one size."""
    results = context.lookup(example, options)
    if entry == "kernel":
        return format_time(layer_costs.kernel_s(results, int(elements)))
    return format_time(layer_costs.median(results, entry, int(elements)))


def _xla_summary(context: Context, options: dict) -> str:
    def body(runner: str) -> str:
        with_xla = [r for r in context.results[runner].values() if tables.xla_rows(r)]
        if not with_xla:
            return not_measured(runner, "the XLA workloads")
        return tables.xla_summary_table(with_xla) + "\n"

    return runner_tabs(body)


def _simulator(context: Context, options: dict) -> str:
    from tfspeedlab import simulator_page

    return simulator_page.simulator_html(context.relative_url(simulator_page.PARAMS_URI))


def model_tabs(context: Context, render) -> str:
    """Runner tabs showing ``render(model, results)`` for each runner's fitted cost model."""
    def body(runner: str) -> str:
        if runner not in context.models:
            return not_measured(runner, "the op-count and tensor-size sweeps")
        return render(context.models[runner], context.results[runner]) + "\n"

    return runner_tabs(body)


def _model_parameters(context: Context, options: dict) -> str:
    from tfspeedlab import simulator_page

    return model_tabs(context, lambda model, results: simulator_page.parameters_table(model))


def _model_validation(context: Context, options: dict) -> str:
    from tfspeedlab import simulator_page

    return model_tabs(context, simulator_page.validation_section)


def _environment(context: Context, options: dict) -> str:
    def body(runner: str) -> str:
        found = context.results[runner]
        if not found:
            return not_measured(runner, "any example")
        return tables.environment_table(list(found.values())) + "\n"

    return runner_tabs(body)


_DIRECTIVES = {
    "results": _results,
    "median": _median,
    "first_call": _first_call,
    "speedup": _speedup,
    "ratio": _ratio,
    "verdict": _verdict,
    "tf_version": _tf_version,
    "training_check": _training_check,
    "derived": _derived,
    "sample_range": _sample_range,
    "metric": _metric,
    "xla_summary": _xla_summary,
    "layers": _layers,
    "layer_time": _layer_time,
    "traces": _traces,
    "tf_source": _tf_source,
    "param": _param,
    "per_op": _per_op,
    "dispatch_table": _dispatch_table,
    "memory": _memory,
    "memory_figure": _memory_figure,
    "layer_cost": _layer_cost,
    "entry_time": _entry_time,
    "layer_share": _layer_share,
    "environment": _environment,
    "simulator": _simulator,
    "model_parameters": _model_parameters,
    "model_validation": _model_validation,
}
