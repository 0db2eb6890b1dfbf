"""The Markdown tables pages show, each from a results file (or several), built by ``markdown.table``."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping

from tfspeedlab.core.profiling import HOST_LAYERS, HOST_LAYER_LABELS
from tfspeedlab.core.results import provenance
from tfspeedlab.core.results.cpu import cpu_name, cpu_with_sets, same_cpu
from tfspeedlab.core.results.schema import OPTIONAL_ENVIRONMENT_FIELDS, ResultsFile
from tfspeedlab.core.results.timing import Timing
from tfspeedlab.core.spec.layout import Grid
from tfspeedlab.core.stats import cost_model, dispatch, intervals, line_fit, op_layers, sweeps
from tfspeedlab.core.stats.grid import grid_layout, pivots
from tfspeedlab.core.stats.summary import COLUMNS, rows
from tfspeedlab.core.units import format_bytes, format_ratio, format_time, select_unit
from tfspeedlab.core.wording import (TOO_SMALL, Verdict, change_cell, signed_bytes, speedup_cell, time_with_interval,
                                     verdict)
from tfspeedlab.render import templating
from tfspeedlab.render.markdown import LEFT, RIGHT, Markdown, bold, code, italic, join, table, text
from tfspeedlab.render.runners import machine_summary
from tfspeedlab.settings import tables as settings_tables
from tfspeedlab.xla import pairs as xla


def cases_table(results: ResultsFile) -> Markdown:
    """One row per case: time per call, speed-up against the baseline, first call, median and spread, sampling."""
    return table(COLUMNS, [row.cells() for row in rows(results)])


def sweep_table(results: ResultsFile) -> Markdown:
    """One row per swept value, one time-per-call column per series, then speed-ups against the reference series."""
    layout = sweeps.sweep_layout(results)
    series_names = sweeps.modes(results)
    series = {name: dict(sweeps.sweep(results, name)) for name in series_names}
    reference = layout.baseline if layout.baseline in series else None
    others = [name for name in series_names if name != reference] if reference else []
    header = [layout.parameter.replace("_", " "), *series_names, *(f"{name} vs {reference}" for name in others)]
    ratios = {name: dict(sweeps.speedups(results, name, reference)) for name in others}
    body = []
    for x in sorted(series[series_names[0]]):
        cells = [f"{x:g}" if isinstance(x, float) else str(x)]
        cells += [format_time(series[name][x].per_call_s) for name in series_names]
        cells += [speedup_cell(ratios[name][x]) for name in others]
        body.append(cells)
    return table(header, body, [RIGHT] * len(header))


def grid_table(results: ResultsFile) -> Markdown:
    """Rows × columns of time per call, each with its ratio to the baseline row of its column;
    a split grid gives one such table per part, each under its part's name."""
    tables = []
    for grid in pivots(results):
        body = []
        baseline = grid.layout.baseline
        for row in grid.row_values:
            cells: list[object] = [bold(row) if row == baseline else row]
            for column in grid.column_values:
                case = grid.cells.get((row, column))
                if case is None:
                    cells.append("not measured")
                    continue
                cell = format_time(case.measurement.per_call_s)
                base = grid.baseline(column)
                if base is not None and row != baseline:
                    found = intervals.ratio(case, base)
                    cell += f" · {change_cell(found)}"
                cells.append(cell)
            body.append(cells)
        header = [grid.layout.rows.capitalize(), *(_column_heading(grid.layout, column) for column in grid.column_values)]
        part = table(header, body)
        if grid.part is not None:
            part = Markdown(f"{bold(grid.part)}\n\n{part}")
        tables.append(part)
    return Markdown("\n\n".join(tables))


def _column_heading(layout, column: object) -> str:
    """``64`` under a numeric column parameter reads better as ``batch 64``."""
    if isinstance(column, int | float) and not isinstance(column, bool):
        return f"{layout.columns.replace('_', ' ')} {column:g}"
    return str(column)


def op_layers_table(results: ResultsFile) -> Markdown:
    """Time per op of every entry point at every size, then what each layer costs (their differences,
    each with its interval)."""
    roles = op_layers.stack(results)
    sizes = op_layers.sizes(results)
    by_size = {size: op_layers.entries(results, size) for size in sizes}
    entry_rows = []
    for index, first in enumerate(by_size[sizes[0]]):
        entry_rows.append([code(first.entry), *(format_time(row.total_s)
                                                for row in (by_size[size][index] for size in sizes))])
    costs = {size: op_layers.layer_costs(results, size) for size in sizes}
    labels: dict[str, object] = {top: join("API layer of ", code(top)) for top in roles.top_entries}
    labels.update({"generated wrapper": "generated wrapper (Python)", "C++ eager runtime": "C++ eager runtime",
                   "kernel": "kernel (+ executor node)"})
    empty_call = italic(join("empty ", code("tf.function"), " call (subtracted, spread over the chain, "
                             "from the graph's time)"))
    layer_rows = [[empty_call, *(format_time(op_layers.per_call_s(results, roles.empty_call, size)) for size in sizes)]]
    layer_rows += [[label, *(time_with_interval(costs[size][key]) for size in sizes)] for key, label in labels.items()]
    headings = [f"{size:,} elements" if size > 1 else "scalar" for size in sizes]
    return Markdown("\n".join([
        "**Time per add**", "", table(["Entry point", *headings], entry_rows), "",
        f"**What each layer adds** per add: the difference of the times above, with its 95% interval, "
        f"or *{TOO_SMALL}* where that interval holds zero", "",
        table(["Layer", *headings], layer_rows),
    ]))


def host_layers_table(results: ResultsFile) -> Markdown:
    """Time per call in each profiled host layer: the time per call × the layer's share of the profiled call."""
    # A per-op column only says something new when a call holds several ops.
    ops = results.params.get("ops_per_call") if results.params.get("ops_per_call", 0) > 1 else None
    device_busy = all(case.metrics.device_busy_fraction is not None for case in results.cases)
    # How much the profiler slowed the calls it watched: shares from a slowed
    # call are applied to the unslowed time, so readers should see it.
    header = ["Mode", *(HOST_LAYER_LABELS[layer] for layer in HOST_LAYERS), "Total per call",
              *([f"Per op ({ops} ops)"] if ops else []), *(["GPU busy"] if device_busy else []),
              "Profiled ÷ unprofiled"]
    body = []
    for case in results.cases:
        per_call = case.measurement.per_call_s
        cells = [case.label]
        for layer in HOST_LAYERS:
            share = case.metrics.layer_fraction(layer)
            cells.append(f"{format_time(per_call * share)} ({share:.0%})")
        cells.append(format_time(per_call))
        if ops:
            cells.append(format_time(per_call / ops))
        if device_busy:
            cells.append(f"{case.metrics.device_busy_fraction:.0%}")
        cells.append(format_ratio(case.metrics.profiled_call_s / per_call))
        body.append(cells)
    return table(header, body)


def memory_table(results: ResultsFile) -> Markdown:
    """Per mode: the process's peak resident memory, what the mode added to it, and a GPU's peak."""
    on_gpu = any(case.metrics.gpu_peak_bytes is not None for case in results.cases)
    header = ["Mode", "Peak host memory (RSS)", "Added by the mode", *(["Peak GPU memory"] if on_gpu else [])]
    body = []
    for case in results.cases:
        m = case.metrics
        cells = [case.label, format_bytes(m.peak_rss_bytes), format_bytes(m.peak_rss_growth_bytes)]
        if on_gpu:
            cells.append(format_bytes(m.gpu_peak_bytes) if m.gpu_peak_bytes is not None else "not recorded")
        body.append(cells)
    return table(header, body)


def training_check_table(results: ResultsFile) -> Markdown:
    """Loss before and after timing and the largest weight change: proof that each step trained."""
    body = [[case.label, f"{case.metrics.loss_start:.4g} → {case.metrics.loss_end:.4g}",
             f"{case.metrics.weight_change:.3g}"] for case in results.cases]
    # Each case trains for as many steps as its timing took: "after timing", not after N steps. The
    # two losses share a column, so that the table fits a phone.
    return table(["Case", "Loss before → after timing", "Largest weight change"], body)


def process_runs_table(results: ResultsFile) -> Markdown:
    """Per case: its time per call in each process it was timed in, and how far they lie apart, so
    that a process that ran slow shows here instead of hiding inside one number."""
    body = []
    for case in results.cases:
        times = [Timing((run,)).per_call_s for run in case.runs]
        unit = select_unit(max(times))  # "0.849 ms · 1.02 ms", not "849 µs · 1018 µs"
        spread = (max(times) - min(times)) / case.measurement.per_call_s
        # No column counts the processes: the times list one each, and a phone's width holds three columns.
        body.append([case.label, " · ".join(format_time(t, unit) for t in times),
                     f"{spread:.0%}" if len(times) > 1 else "one process"])
    return table(["Case", "Time per call in each process, in the order run", "Spread between processes"],
                 body, [LEFT, RIGHT, RIGHT])


def dispatch_table(results: ResultsFile) -> Markdown:
    """Per mode: cost per small op, against the cheapest op-by-op mode (the floor of dispatch), the whole step.

    Only op-by-op modes dispatch each op; a compiled or graph mode's figure is
    a per-call cost spread over the ops, so it is not held against the floor.
    """
    ops = dispatch.per_op_layout(results).ops
    found = dispatch.dispatch_rows(results)
    floor = min((row for row in found if row.op_by_op), key=lambda row: row.per_op_s)
    body = [[row.mode if row.op_by_op else italic(row.mode), format_time(row.per_op_s),
             format_ratio(row.per_op_s / floor.per_op_s) if row.op_by_op else "(one call, not per op)",
             format_time(row.step_s)] for row in found]
    # A plain time ratio, labelled as one: every op-by-op mode against the cheapest (so at least 1×).
    return table(["Mode", f"Per op ({ops}-op loop ÷ {ops})", f"Per op ÷ {floor.mode}'s (time ratio)",
                  "Whole training step"], body)


# The order of the XLA table's rows: the clear results first, then those the machine resolved within a few
# percent, then the rest (34 rows, most of them inconclusive, buried the few that say something).
_XLA_ORDER = (Verdict.FASTER, Verdict.SLOWER, Verdict.SAME, Verdict.INCONCLUSIVE)


def xla_summary_table(pairs_by_example: list[tuple[ResultsFile, list[xla.XlaPair]]],
                      name_of: Callable[[Mapping], str] = cpu_name) -> Markdown:
    """XLA against the plain graph for every pair of cases measured both ways, the clear results first.
    The "XLA vs graph" cell says the verdict in the site's four wordings, and nothing else repeats it.
    Times compare only on one CPU model: where the examples ran on several, a column names each row's
    (``name_of``); on one, a line under the table names it."""
    files = [results for results, _ in pairs_by_example]
    mixed = any(not same_cpu(found.environment, files[0].environment) for found in files[1:])
    found = [(results, pair) for results, pairs in pairs_by_example for pair in pairs]
    found.sort(key=lambda item: _XLA_ORDER.index(verdict(item[1].speedup)))  # stable: files' order within each
    # The example's name, not its title: the row must leave room for the verdict on a laptop screen.
    body = [[code(results.example), pair.label, *([text(name_of(results.environment))] if mixed else []),
             speedup_cell(pair.speedup), f"{format_time(pair.graph_s)} → {format_time(pair.xla_s)}",
             f"{format_time(pair.graph_first_s)} → {format_time(pair.xla_first_s)}"]
            for results, pair in found]
    header = ("Example", "Case", *(["CPU model"] if mixed else []), "XLA vs graph [95%]", "Time: graph → XLA",
              "First call: graph → XLA")
    rendered = table(header, body, [LEFT, LEFT, *([LEFT] if mixed else []), RIGHT, RIGHT, RIGHT])
    if mixed or not files:
        return rendered
    return Markdown(f"{rendered}\n\nEvery row was measured on {text(name_of(files[0].environment))}.")


def environment_table(all_results: list[ResultsFile], with_sets: Callable[[Mapping], str] = cpu_with_sets) -> Markdown:
    """One row per results file: where, when and on what it was measured (the CPU by its one name,
    ``with_sets``), and whether it is up to date."""
    body = []
    for results in all_results:
        env = results.environment
        hardware = machine_summary({**env, "gpus": []}, with_sets)
        if env["gpus"]:
            gpu_names = ", ".join(gpu["name"] for gpu in env["gpus"])
            hardware += (f"; {gpu_names}, driver {env.get('gpu_driver') or '?'}, "
                         f"CUDA {env['cuda_build'] or '?'}, cuDNN {env['cudnn_build'] or '?'}")
        body.append([
            code(results.example), env["utc_time"][:16].replace("T", " "),
            code((env["git_commit"] or "unknown")[:7]), hardware,
            f"TF {env['tensorflow']}, {_keras(env)}, Python {env['python']}, "
            f"{'quick' if results.quick else 'full'} run",
            f"{threads_in_force(env)}; {onednn_in_force(env, results)}",
            machine_state(env),
            _freshness(provenance.freshness(results)),
        ])
    header = ("Example", "Measured (UTC)", "Commit", "Hardware", "Software, run", "Threads, oneDNN",
              "Load, memory, governor", "Up to date?")
    return table(header, body, [LEFT] * len(header))


def threads_in_force(environment) -> str:
    """``inter-op default, intra-op default; 2 usable cores``: TensorFlow's thread settings where the file
    was measured (0 is TensorFlow's default: one thread per core it sees), and the cores it could use."""
    def setting(name: str) -> str:
        return str(environment[name]) if environment.get(name) else "default"

    cores = environment.get("usable_cores")
    return (f"inter-op {setting('inter_op_threads')}, intra-op {setting('intra_op_threads')}"
            + (f"; {cores} usable core{'s' if cores != 1 else ''}" if cores is not None else ""))


def machine_state(environment) -> str:
    """``load 0.52 → 1.10; 7.76 GiB; governor performance``: the 1-minute load average as the run
    began and ended, the memory and the CPU clock's governor, each where the machine let it be read;
    ``not recorded`` for files measured before these were."""
    if not any(name in environment for name in OPTIONAL_ENVIRONMENT_FIELDS):
        return "not recorded"

    def load(name: str) -> str:
        value = environment.get(name)
        return "?" if value is None else f"{value:.2f}"  # as ``uptime`` prints it

    memory = environment.get("memory_bytes")
    governor = environment.get("cpu_governor")
    return "; ".join([
        f"load {load('load_average_start')} → {load('load_average_end')}",
        format_bytes(memory) if memory else "memory not readable",
        f"governor {governor}" if governor else "no governor readable",
    ])


def onednn_in_force(environment, results: ResultsFile | None = None) -> str:
    """``oneDNN on``, ``oneDNN off``, or ``oneDNN not recorded``: the environment's record, else, for
    a grid whose baseline row's processes each recorded it (the CPU settings), theirs; files measured
    before either was recorded say so."""
    found = environment.get("onednn")
    if found is not None:
        return f"oneDNN {'on' if found else 'off'}"
    recorded = (settings_tables.onednn_default(results) if results is not None and isinstance(results.layout, Grid)
                else "not recorded")
    return "oneDNN not recorded" if recorded == "not recorded" else f"oneDNN {recorded} (as its default row recorded)"


def _keras(environment) -> str:
    """``Keras 3.15.1, tf_keras 2.21.0``: the Keras behind the figures (and the legacy one, where recorded)."""
    keras = f"Keras {environment.get('keras') or 'not installed'}"
    return keras + (f", tf_keras {environment['tf_keras']}" if environment.get("tf_keras") else "")


def _freshness(verdict: provenance.Freshness) -> Markdown:
    if verdict.fresh is False:
        what = "is new since" if verdict.new else "changed since"
        return join(bold("no"), ": ", code(verdict.changed), f" {what}, in ", code(verdict.path))
    return text(verdict.reason)


_MODEL_PARAMETERS = (("call_s", "Fixed cost per call (*call*)"), ("op_s", "Cost per op (*op*)"),
                     ("element_s", "Kernel cost per element per op (*element*)"),
                     ("split_s", "Extra per op on a tensor split across threads (*split*)"),
                     ("trace_s", "First-call extra, fixed (*trace*)"),
                     ("trace_op_s", "First-call extra per op (*trace_op*)"))


def _signed_percent(fraction: float) -> str:
    """``+12%``, ``−3%``, and ``0%`` for what rounds to nothing (not ``-0%``); a true minus sign."""
    rounded = round(fraction * 100)
    return "0%" if rounded == 0 else f"+{rounded}%" if rounded > 0 else f"−{-rounded}%"


def model_parameters_table(model: cost_model.CostModel) -> Markdown:
    """The fitted cost model: each parameter per mode, and how far its lines miss their own points."""
    body = [[Markdown(label), *(format_time(getattr(model.modes[mode], name)) for mode in cost_model.MODES)]
            for name, label in _MODEL_PARAMETERS]
    body.append(["Worst miss on its fitted points", *(f"{model.fit_error[mode]:.0%}" for mode in cost_model.MODES)])
    body.append(["Worst miss on every measured chain (the simulator's ±)",
                 *(f"{model.band[mode]:.0%}" for mode in cost_model.MODES)])
    return table(["Parameter", "eager", "graph", "XLA"], body)


def model_validation(model: cost_model.CostModel, results: dict[str, ResultsFile]) -> str:
    """The model's prediction against every measured case it describes, fitted and held out apart."""
    predictions, outside = cost_model.validate(model, results)
    groups = []
    for held_out, title in ((False, "Fitted"), (True, "Held-out")):
        found = [p for p in predictions if p.held_out == held_out]
        errors = [abs(p.relative_error) for p in found]
        body = [[code(p.example), p.case, p.ops, f"{p.elements:,}", format_time(p.measured_s),
                 format_time(p.predicted_s), _signed_percent(p.relative_error)] for p in found]
        groups.append({
            "title": title, "rows": found,
            "median_miss": f"{statistics.median(errors):.0%}" if errors else "",
            "worst_miss": f"{max(errors):.0%}" if errors else "",
            "table": table(("Workload", "Case", "Ops", "Elements", "Measured", "Predicted", "Error"), body,
                           [LEFT, LEFT] + [RIGHT] * 5),
        })
    return templating.render("model_validation.md.j2", groups=groups, outside=outside,
                             unlike=cost_model.measured_unlike(results))


def estimator_table(results: ResultsFile) -> Markdown:
    """The estimator experiment on one file: per candidate and per speed-up against the baseline, the
    speed-up over all processes and the largest difference between two halves of the processes (two
    re-runs); then the worst such difference over all the file's speed-ups."""
    baseline = results.baseline
    others = [case.label for case in results.cases if case.label != baseline]
    if baseline is None or min(len(case.runs) for case in results.cases) < 2:
        return Markdown(f"These results have one process per case or no baseline; the experiment needs "
                        f"two or more processes (`tfspeedlab run {results.example} --processes 6`).")
    found = {label: intervals.estimator_stability(results, baseline, label) for label in others}
    count = len(found[others[0]][0].per_process)
    body = []
    for index, name in enumerate(intervals.ESTIMATORS):
        rows = [found[label][index] for label in others]
        cells = [f"{format_ratio(row.all_processes)} · {row.worst_split_difference:.1%}" for row in rows]
        worst = f"{max(row.worst_split_difference for row in rows):.1%}"
        chosen = name == intervals.CHOSEN
        body.append([bold(name) if chosen else name, *cells, bold(worst) if chosen else worst])
    header = ["Estimator", *(f"{label} vs {baseline}: speed-up · worst split" for label in others), "Worst split"]
    return Markdown(f"{italic(results.title)}, {count} processes per case; a split compares {count // 2} processes "
                    f"with the other {count - count // 2}.\n\n" + table(header, body))


def estimator_summary(all_results: list[ResultsFile]) -> Markdown:
    """Per candidate, its worst split over all the files' speed-ups, and their mean; then which
    candidate these results favour. The guide's estimator is a method chosen once (``intervals.CHOSEN``),
    not a gate: a re-measure that favours another builds, and the page says so."""
    worst: dict[str, list[float]] = {name: [] for name in intervals.ESTIMATORS}
    for results in all_results:
        for case in results.cases:
            if case.label != results.baseline:
                for row in intervals.estimator_stability(results, results.baseline, case.label):
                    worst[row.estimator].append(row.worst_split_difference)
    overall = {name: max(values) for name, values in worst.items()}
    mean = {name: sum(values) / len(values) for name, values in worst.items()}
    best = min(overall, key=overall.get)
    best_mean = min(mean, key=mean.get)
    body = [[bold(name) if name == intervals.CHOSEN else name,
             f"{overall[name]:.1%}", f"{mean[name]:.1%}"] for name in worst]
    # Short sentences without brackets: this paragraph is read as the fair-timing page's prose.
    favoured = (f"These results favour the guide's estimator, the {intervals.CHOSEN}: the smallest worst split."
                if best == intervals.CHOSEN else
                f"These results favour the {best}, whose worst split was {overall[best]:.1%}; the guide's "
                f"{intervals.CHOSEN} reached {overall[intervals.CHOSEN]:.1%}. The guide keeps its estimator, "
                "chosen before this experiment, for every figure.")
    favoured += (" By the mean of the worst splits, the lowest is "
                 + ("the guide's own." if best_mean == intervals.CHOSEN else f"the {best_mean}, at {mean[best_mean]:.1%}.")
                 + " With this few speed-ups, candidates a few points apart are not told apart.")
    return Markdown(table(["Estimator", f"Worst split over all {len(worst[best])} speed-ups",
                           "Mean of their worst splits"], body) + "\n\n" + italic(favoured))


def fixed_cost_table(results: ResultsFile) -> Markdown:
    """Per model and rung: the fitted fixed cost of a call, the cost per sample, and the batch size
    at which they are equal (below it, most of a call is its fixed cost)."""
    fits = line_fit.row_fits(results)
    if not fits:
        return Markdown(text("The fit needs three or more batch sizes per row; this run has fewer "
                             "(a quick run measures two)."))
    split = grid_layout(results).split
    body = [[*([fit.part] if split else []), fit.row, time_with_interval(fit.fixed_s),
             time_with_interval(fit.per_item_s),
             break_even_cell(fit),
             f"{fit.worst_miss:.0%}"] for fit in fits]
    header = [*([split.capitalize()] if split else []), grid_layout(results).rows.capitalize(), "Fixed cost per call",
              "Cost per sample", "Batch where they are equal", "Fit's worst miss"]
    return table(header, body, [LEFT] * (2 if split else 1) + [RIGHT] * 4)


def break_even_cell(fit) -> str:
    """The batch size where fixed and per-sample costs are equal; "under 1" when the fixed cost is
    within noise of zero (its interval reaches 0), "never" when no sample adds time, "none: the cost
    per sample is too small to measure here" when that cost is within noise of zero, and "beyond N" past the largest batch
    measured (a line fitted over 1 to N says nothing certain beyond N)."""
    if not math.isfinite(fit.break_even_items):
        return "never"
    if fit.fixed_s.low <= 0 or fit.break_even_items < 1:
        return "under 1"
    if fit.per_item_s.low <= 0:
        return f"none: the cost per sample is {TOO_SMALL}"
    if fit.break_even_items > fit.largest_items:
        return f"beyond {fit.largest_items:,.0f}, the largest measured"
    return f"{fit.break_even_items:,.0f}"


def memory_growth_table(results: ResultsFile) -> Markdown:
    """Per rung (and model): how the process's resident memory moved over the repeated calls after timing."""
    grids = pivots(results)
    marked = [(grid, row, case) for grid in grids for row in grid.row_values for _, case in grid.row(row)
              if case.metrics.rss_growth_bytes is not None]
    if not marked:
        return Markdown(text("No case recorded its memory (it is followed on Linux only)."))
    rows = list(dict.fromkeys(row for _, row, _ in marked))
    parts = list(dict.fromkeys(grid.part for grid, _, _ in marked))
    found = {(grid.part, row): case for grid, row, case in marked}
    calls = int(marked[0][2].metrics.memory_calls)
    body = [[row, *(_signed_bytes(found[(part, row)].metrics.rss_growth_bytes) if (part, row) in found
                    else "not recorded" for part in parts)] for row in rows]
    header = [grid_layout(results).rows.capitalize(),
              *(f"{part}: change over {calls:,} calls" if part is not None else f"Change over {calls:,} calls"
                for part in parts)]
    return table(header, body)


def _signed_bytes(count: float) -> str:
    return "0 (no change)" if count == 0 else signed_bytes(count, plus=True)


def training_calls_table(results: ResultsFile) -> Markdown:
    """Per case: how often its training step's Python code ran (traces), and the loss before and after."""
    body = []
    for case in results.cases:
        m = case.metrics
        later = m.step_runs_per_later_step
        body.append([case.label, f"{m.step_runs_first_call:.0f}",
                     "every step" if later >= 0.999 else "none" if later == 0 else f"{later:.2g} per step",
                     f"{m.loss_start:.3g}", f"{m.loss_end:.3g}"])
    # Not "(N steps)": a case may run a shorter epoch than the workload's (train_apis' Python-float case).
    return table(["API", "Step code ran in the first call (one epoch)", "… in later calls", "Loss before",
                  "Loss after"], body)


def feed_table(results: ResultsFile) -> Markdown:
    """Per feed: the share of an epoch spent waiting for the next batch, traces, and the loss before and after."""
    body = [[case.label, f"{case.metrics.data_wait_share:.0%}", f"{case.metrics.traces:.0f}",
             f"{case.metrics.loss_start:.3g}", f"{case.metrics.loss_end:.3g}"] for case in results.cases]
    return table(["Feed", "Share of time waiting for the next batch", "Traces of the step", "Loss before",
                  "Loss after"], body)
