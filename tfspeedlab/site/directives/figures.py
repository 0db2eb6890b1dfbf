"""Inline figures: one number (a time, a ratio, a count, a share) or one comparison in words, for a
sentence on a page. Every one reads the ``cpu`` runner unless given ``runner=gpu``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from tfspeedlab.core import wording
from tfspeedlab.core.profiling import HOST_LAYERS
from tfspeedlab.core.results.cpu import same_cpu
from tfspeedlab.core.results.schema import NotInResults
from tfspeedlab.core.stats import cost_model, intervals, line_fit, op_layers, summary, sweeps
from tfspeedlab.core.units import format_bytes, format_ratio, format_time
from tfspeedlab.render import shared_workloads
from tfspeedlab.render.context import Context, Runner
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import NOT_IN_QUICK_RUN, directive
from tfspeedlab.site import quantities

HostLayer = Literal[HOST_LAYERS]  # type: ignore[valid-type]


# ------------------------------------------------------------ one case's time


@directive("time", "One case's time per call: the 10th percentile of all its blocks, the time its speed-ups divide.")
def time_per_call(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    figure = format_time(context.lookup(example, runner).case(case).measurement.per_call_s)
    return context.claim(("time per call", runner, example, case), figure)


@directive("first_call", "One case's first call (tracing, compiling): its time.")
def first_call(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    return format_time(context.lookup(example, runner).case(case).measurement.first_call_s)


@directive("sample_range", "Slowest over fastest sample of one case: how far single timings scatter.")
def sample_range(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    samples = context.lookup(example, runner).case(case).measurement.samples_s
    return format_ratio(max(samples) / min(samples))


# ------------------------------------------------------------ two cases compared


@directive("factor", "FASTER against SLOWER in the four verdicts: ``10.8× faster [9.78–12.0×]``, ``2.24× slower "
                    "[2.11–2.47×]``, ``the same within 4%`` or ``inconclusive here (1.25× slower to 1.30× faster)``.")
def factor(context: Context, example: str, slower: str, faster: str, *, runner: Runner = "cpu") -> str:
    return wording.page_speedup(intervals.speedup(context.lookup(example, runner), slower, faster))


@directive("percent_faster", "FASTER's speed-up over SLOWER as a percentage, for a sentence that meets a source's own "
                             "percentages: (the factor as ``factor`` prints it − 1) × 100, ``108%``. A build error "
                             "where the interval does not lie above 1, since the sentence says faster.")
def percent_faster(context: Context, example: str, slower: str, faster: str, *, runner: Runner = "cpu") -> str:
    found = intervals.speedup(context.lookup(example, runner), slower, faster)
    if wording.page_verdict(found) not in (None, wording.Verdict.FASTER) or found.value < 1:
        raise DirectiveError(f"the speed-up of {faster!r} over {slower!r} does not lie above 1 here "
                             f"({wording.format_speedup(found)}): a percentage would say more than its interval")
    return wording.percent_faster(found.value)


@directive("time_saved", "What FASTER saves per call over SLOWER: SLOWER's time less FASTER's, with its 95% "
                         "interval over both cases' resampled processes: ``1.31 ms [1.02–1.63 ms]``, or ``too small "
                         "to measure here``; ``times=N`` gives N times that saving, for a rule of thumb stated "
                         "as a multiple of it.")
def time_saved(context: Context, example: str, slower: str, faster: str, *, times: int = 1,
               runner: Runner = "cpu") -> str:
    if not 1 <= times <= 100:
        raise DirectiveError(f"time_saved: times must be from 1 to 100, not {times}")
    results = context.lookup(example, runner)
    saved = intervals.difference(results.case(slower), results.case(faster))
    return wording.time_with_interval(replace(saved, value=saved.value * times, low=saved.low * times,
                                              high=saved.high * times))


@directive("case_speedup", "One case's cell of its results table's speed-up column: ``1× (baseline)``, its speed-up "
                           "over the file's baseline in the four verdicts, or ``did not train: no speed-up`` where "
                           "its weights stayed put, for a table a page lays out itself.")
def case_speedup(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    results = context.lookup(example, runner)
    for row in summary.rows(results):
        if row.case == case:
            return row.speedup
    raise DirectiveError(f"{example} has no case {case!r}; cases: {', '.join(found.label for found in results.cases)}")


@directive("agreement", "The same workload in two results files, this one's time against the other's: "
                        "``1.20× slower [1.10–1.31×]``, ``the same within 4%``, ….")
def agreement(context: Context, example: str, case: str, other_example: str, other_case: str, *,
              runner: Runner = "cpu") -> str:
    here, there = context.lookup(example, runner), context.lookup(other_example, runner)
    if not same_cpu(here.environment, there.environment):
        # Two machines differ by more than two runs do: no agreement to check.
        return wording.not_compared_across_cpus(context.cpu_text(here.environment),
                                                context.cpu_text(there.environment))
    return wording.format_change(intervals.ratio(here.case(case), there.case(other_case)))


@directive("across_cpus", "One speed-up (SLOW's time ÷ FAST's) on every CPU model measured, the committed file's and "
                         "each other model's newest re-measure: ``9.85× to 26.4× faster on 4 CPU models``.")
def across_cpus(context: Context, example: str, slow: str, fast: str, *, runner: Runner = "cpu") -> str:
    committed = context.lookup(example, runner)
    return wording.across_cpu_models(shared_workloads.across_cpus(committed, context.sittings_of(example, runner),
                                                                  slow, fast, context.cpu_text))


# ------------------------------------------------------------ recorded metrics and derived figures


@directive("derived", "A figure computed from the file (``tfspeedlab.site.quantities.DERIVED``: break-evens, "
                      "fitted costs, where a gain fades).")
def derived(context: Context, example: str, figure: str, *, runner: Runner = "cpu") -> str:
    return quantities.derived(context.lookup(example, runner), figure)


@directive("metric", "A measured non-time quantity of one case (a tracing count, a loss).")
def metric(context: Context, example: str, case: str, metric: str, *, runner: Runner = "cpu") -> str:
    return quantities.metric(context.lookup(example, runner), case, metric)


def _metric_figure(name: str, shown: Callable[[float], str], summary: str) -> None:
    """Register ``{{ name EXAMPLE CASE METRIC }}``: one recorded metric of a case, shown by ``shown``."""
    def handler(context: Context, example: str, case: str, metric: str, *, runner: Runner = "cpu") -> str:
        return shown(quantities.metric_value(context.lookup(example, runner), case, metric))

    directive(name, summary)(handler)


_metric_figure("metric_time", format_time, "A metric that is a time in seconds, in its unit: "
               "``{{ metric_time call_cost graph function_run_s }}`` → ``412 µs``.")
_metric_figure("share", lambda fraction: f"{fraction:.0%}", "A metric that is a fraction, as a percentage: "
               "``{{ share input_pipeline from_generator data_wait_share }}`` → ``83%``.")
_metric_figure("memory_figure", format_bytes, "One memory metric of a case, in MiB or GiB: "
               "``{{ memory_figure step_profile xla peak_rss_growth_bytes }}``.")


@directive("count", "A counted metric in words: ``once``, ``twice``, ``10 times`` (noun ``time``); "
                    "``1 trace``, ``3 traces``.")
def count(context: Context, example: str, case: str, metric: str, noun: str, *, runner: Runner = "cpu") -> str:
    return quantities.count(quantities.metric_value(context.lookup(example, runner), case, metric), noun)


@directive("jit_resolved", "What Keras 3's ``jit_compile=\"auto\"`` became for CASE: "
                           "``XLA (`jit_compile=True`)`` or ``no XLA (`jit_compile=False`)``.")
def jit_resolved(context: Context, example: str, case: str = "fit", *, runner: Runner = "cpu") -> str:
    resolved = quantities.metric_value(context.lookup(example, runner), case, "jit_compile_resolved")
    return "XLA (`jit_compile=True`)" if resolved else "no XLA (`jit_compile=False`)"


@directive("param", "A workload parameter recorded in the results: ``{{ param frameworks matmul_size }}``.")
def param(context: Context, example: str, parameter: str, *, runner: Runner = "cpu") -> str:
    params = context.lookup(example, runner).params
    if parameter not in params:
        raise DirectiveError(f"{example} has no parameter {parameter!r}; it has {sorted(params)}")
    return str(params[parameter])


@directive("tf_version", "The TensorFlow version an example was measured with.")
def tf_version(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    return context.lookup(example, runner).environment["tensorflow"]


@directive("version", "The version of a package (tensorflow, keras, tf_keras, numpy) an example was measured with.")
def version(context: Context, example: str, package: Literal["tensorflow", "keras", "tf_keras", "numpy"], *,
            runner: Runner = "cpu") -> str:
    return context.lookup(example, runner).environment.get(package) or "not installed"


# ------------------------------------------------------------ host layers and op layers


@directive("layer_time", "One profiled host layer's time per call (the time per call × its profiled share).")
def layer_time(context: Context, example: str, case: str, layer: HostLayer, *, runner: Runner = "cpu") -> str:
    results = context.lookup(example, runner)
    return format_time(results.case(case).measurement.per_call_s
                       * quantities.metric_value(results, case, f"{layer}_fraction"))


@directive("layer_share", "One profiled host layer's share of a case's time.")
def layer_share(context: Context, example: str, case: str, layer: HostLayer, *, runner: Runner = "cpu") -> str:
    return f"{quantities.metric_value(context.lookup(example, runner), case, f'{layer}_fraction'):.0%}"


@directive("layer_cost", "One op layer's cost per op at a size, with its interval (or ``too small to measure here``): "
                         "``{{ layer_cost op_layers \"generated wrapper\" 1 }}``.")
def layer_cost(context: Context, example: str, layer: str, elements: int = 1, *, runner: Runner = "cpu") -> str:
    costs = op_layers.layer_costs(context.lookup(example, runner), elements)
    if layer not in costs:
        raise DirectiveError(f"no layer {layer!r}; known: {', '.join(costs)}")
    return wording.time_with_interval(costs[layer])


@directive("entry_time", "An op entry point's time per op at a size (``kernel``: the kernel alone): "
                         "``{{ entry_time op_layers tf.add 1 }}``.")
def entry_time(context: Context, example: str, entry: str, elements: int = 1, *, runner: Runner = "cpu") -> str:
    results = context.lookup(example, runner)
    if entry == "kernel":
        return format_time(op_layers.kernel_s(results, elements))
    return format_time(op_layers.per_call_s(results, entry, elements))


# ------------------------------------------------------------ fitted lines and the cost model


@directive("fitted", "A fitted figure of a predict-ladder row: ``fixed`` cost per call or ``per_sample`` cost.")
def fitted(context: Context, example: str, part: str, row: str, figure: Literal["fixed", "per_sample"], *,
           runner: Runner = "cpu") -> str:
    results = context.lookup(example, runner)
    try:
        fit = line_fit.row_fit(results, part, row)
    except NotInResults:
        if line_fit.measured_row(results, part, row):  # measured, at too few sizes to fit (a quick run)
            return "not fitted (this run measured fewer than three batch sizes)"
        if results.quick:  # a part a quick run leaves out (the CNN)
            return NOT_IN_QUICK_RUN
        raise
    return wording.time_with_interval(fit.fixed_s if figure == "fixed" else fit.per_item_s)


ModelFigure = Literal["fitted_worst", "fitted_median", "held_out_worst", "held_out_median", "split_elements",
                      "break_even_10x10"]


@directive("break_even_agreement", "Whether the cost model's break-even on the op-count sweep's 10 × 10 tensors lies "
                                   "inside the 95% interval of the sweep's own line fit: ``inside the lines' 95% "
                                   "interval, so the two agree``; outside it, that the break-even is the span "
                                   "between the two.")
def break_even_agreement(context: Context, *, runner: Runner = "cpu") -> str:
    if runner not in context.models:
        raise DirectiveError(f"no cost model for {runner!r}: it needs the op-count and tensor-size sweeps")
    modelled = context.models[runner].break_even_ops(100)
    fitted = sweeps.op_costs(context.lookup("op_chain", runner)).break_even
    if modelled is not None and fitted.low <= modelled <= fitted.high:
        return "inside the lines' 95% interval, so the two agree"
    return "outside the lines' 95% interval: read the break-even as the span between the two figures"


@directive("model_figure", "One figure of the cost model: how far it misses the points it was fitted to or the "
                           "held-out ones, the size from which an op is split across threads, or its break-even "
                           "op count on 10 × 10 tensors.")
def model_figure(context: Context, figure: ModelFigure, *, runner: Runner = "cpu") -> str:
    if runner not in context.models:
        raise DirectiveError(f"no cost model for {runner!r}: it needs the op-count and tensor-size sweeps")
    if figure == "split_elements":
        return f"{cost_model.SPLIT_ELEMENTS:,}"
    if figure == "break_even_10x10":  # the op-count sweep's tensors, for comparison with its own line fit
        found = context.models[runner].break_even_ops(100)
        return f"{found:.1f}" if found is not None else "none (graph mode never catches up)"
    group, _, statistic = figure.rpartition("_")
    predictions, _ = cost_model.validate(context.models[runner], context.results[runner])
    found = cost_model.misses(predictions, held_out=group == "held_out")
    if found is None:
        raise DirectiveError(f"no {group.replace('_', '-')} points on {runner}")
    return f"{getattr(found, statistic):.0%}"
