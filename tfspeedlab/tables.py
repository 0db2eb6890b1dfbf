"""Tables of a results file, for the terminal and for pages, from one set of rows."""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.results import ResultsFile
from tfspeedlab.units import format_ratio, format_significant, format_time, select_unit

COLUMNS = ("Case", "Median per call", "Spread (IQR)", "First call", "Speed-up", "Calls × blocks")


@dataclass(frozen=True)
class Row:
    case: str
    median: str
    iqr: str
    first_call: str
    speedup: str
    sampling: str
    noisy: bool

    def cells(self) -> tuple[str, ...]:
        return (self.case, self.median, self.iqr, self.first_call, self.speedup, self.sampling)


def rows(results: ResultsFile) -> list[Row]:
    # One unit for the whole median column so rows compare at a glance (as
    # torch's Compare does); first calls get their own unit, being far larger.
    unit = select_unit(min(case.measurement.median_s for case in results.cases))
    built = []
    for case in results.cases:
        m = case.measurement
        noisy_mark = _noisy_mark(m)
        speedup = "—"
        if results.baseline is not None:
            speedup = format_ratio(results.speedup(results.baseline, case.label))
            if case.label == results.baseline:
                speedup += "\u00a0(baseline)"
        built.append(
            Row(
                case=case.label,
                median=format_time(m.median_s, unit) + noisy_mark,
                iqr=f"{m.relative_iqr:.1%}",
                first_call=format_time(m.first_call_s),
                speedup=speedup,
                sampling=f"{m.calls_per_block} × {m.blocks}",
                noisy=m.noisy,
            )
        )
    return built


def text_table(results: ResultsFile) -> str:
    table = [COLUMNS, *(row.cells() for row in rows(results))]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown_table(results: ResultsFile) -> str:
    body = [
        "| " + " | ".join(COLUMNS) + " |",
        "| " + " | ".join(["---"] + ["--:"] * (len(COLUMNS) - 1)) + " |",
    ]
    body += ["| " + " | ".join(_escape(cell) for cell in row.cells()) + " |" for row in rows(results)]
    return "\n".join(body)


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|")


def sweep_markdown_table(results: ResultsFile) -> str:
    """One row per swept value, one median column per mode, then speed-ups against eager."""
    from tfspeedlab import analysis

    x_name = analysis.sweep_parameter(results)
    mode_names = analysis.modes(results)
    unit = select_unit(min(case.measurement.median_s for case in results.cases))
    series = {mode: dict(analysis.sweep(results, mode)) for mode in mode_names}
    others = [mode for mode in mode_names if mode != "eager"] if "eager" in series else []
    header = [x_name.replace("_", " "), *mode_names, *(f"{mode} vs eager" for mode in others)]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(["--:"] * len(header)) + " |"]
    for x in sorted(series[mode_names[0]]):
        cells = [f"{x:g}" if isinstance(x, float) else str(x)]
        for mode in mode_names:
            m = series[mode][x]
            cells.append(format_time(m.median_s, unit) + _noisy_mark(m))
        for mode in others:
            cells.append(format_ratio(series["eager"][x].median_s / series[mode][x].median_s))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _noisy_mark(measurement) -> str:
    """`` (! 12%)`` after a noisy median: its IQR is a large share of it.

    Non-breaking spaces: the mark must not wrap away from its figure.
    """
    return f"\u00a0(!\u00a0{measurement.relative_iqr:.0%})" if measurement.noisy else ""


def any_noisy(results: ResultsFile) -> bool:
    return any(case.measurement.noisy for case in results.cases)


# XLA is called a win or a loss only beyond this ratio against the plain graph;
# closer than that is within the spread a shared 2-core runner produces.
XLA_VERDICT_MARGIN = 1.10


def xla_rows(results: ResultsFile) -> list[tuple[str, float, float, float, float]]:
    """(case, graph median, xla median, graph first call, xla first call) per comparable pair."""
    sweep_name = results.params.get("sweep")
    by_key: dict[object, dict[str, object]] = {}
    for case in results.cases:
        mode = case.params.get("mode")
        if mode in ("graph", "xla"):
            key = case.params.get(sweep_name) if sweep_name else None
            by_key.setdefault(key, {})[mode] = case.measurement
    rows = []
    for key, pair in by_key.items():
        if {"graph", "xla"} <= pair.keys():
            label = "—" if key is None else f"{sweep_name.replace('_', ' ')} {key}"
            rows.append((label, pair["graph"].median_s, pair["xla"].median_s,
                         pair["graph"].first_call_s, pair["xla"].first_call_s))
    return rows


def xla_verdict(graph_s: float, xla_s: float) -> str:
    ratio = graph_s / xla_s
    if ratio >= XLA_VERDICT_MARGIN:
        return "**XLA faster**"
    if ratio <= 1 / XLA_VERDICT_MARGIN:
        return "**XLA slower**"
    return "no clear difference"


def xla_summary_table(all_results: list[ResultsFile]) -> str:
    header = ("Workload", "Case", "graph", "XLA", "XLA vs graph", "First call: graph → XLA", "Verdict")
    lines = ["| " + " | ".join(header) + " |", "| --- | --- | --: | --: | --: | --: | --- |"]
    for results in all_results:
        for label, graph_s, xla_s, graph_first, xla_first in xla_rows(results):
            lines.append("| " + " | ".join((
                results.title, label, format_time(graph_s), format_time(xla_s), format_ratio(graph_s / xla_s),
                f"{format_time(graph_first)} → {format_time(xla_first)}", xla_verdict(graph_s, xla_s),
            )) + " |")
    return "\n".join(lines)


def environment_table(all_results: list[ResultsFile]) -> str:
    """One row per results file: where, when and on what it was measured."""
    from tfspeedlab import provenance

    header = ("Example", "Measured (UTC)", "Commit", "Hardware", "Software, run", "Up to date?")
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(["---"] * len(header)) + " |"]
    for results in all_results:
        env = results.environment
        hardware = f"{env['cpu_model']}, {env['logical_cores']} cores"
        if env["gpus"]:
            gpu_names = ", ".join(gpu["name"] for gpu in env["gpus"])
            hardware += (f"; {gpu_names}, driver {env.get('gpu_driver') or '?'}, "
                         f"CUDA {env['cuda_build'] or '?'}, cuDNN {env['cudnn_build'] or '?'}")
        lines.append("| " + " | ".join((
            f"`{results.example}`", env["utc_time"][:16].replace("T", " "),
            f"`{(env['git_commit'] or 'unknown')[:7]}`", hardware,
            f"TF {env['tensorflow']}, Python {env['python']}, {'quick' if results.quick else 'full'} run",
            provenance.freshness(results),
        )) + " |")
    return "\n".join(lines)


def layers_table(results: ResultsFile) -> str:
    """Time per call in each profiled layer: median × the layer's share of the profiled call."""
    from tfspeedlab.charts import LAYER_LABELS, LAYERS

    ops = results.params.get("ops_per_call")
    header = ["Mode", *(LAYER_LABELS[layer] for layer in LAYERS), "Total (median)"]
    if ops:
        header += [f"Per op ({ops} ops)"]
    device_busy = all("device_busy_fraction" in case.metrics for case in results.cases)
    if device_busy:
        header += ["GPU busy"]
    # How much the profiler slowed the calls it watched: shares from a slowed
    # call are applied to the unslowed median, so readers should see it.
    header += ["Profiled ÷ unprofiled"]
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " --: |" * (len(header) - 1)]
    for case in results.cases:
        median = case.measurement.median_s
        cells = [case.label]
        for layer in LAYERS:
            share = case.metrics[f"{layer}_fraction"]
            cells.append(f"{format_time(median * share)} ({share:.0%})")
        cells.append(format_time(median))
        if ops:
            cells.append(format_time(median / ops))
        if device_busy:
            cells.append(f"{case.metrics['device_busy_fraction']:.0%}")
        cells.append(format_ratio(case.metrics["profiled_call_s"] / median))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def grid(results: ResultsFile) -> tuple[str, str, list, list, dict]:
    """(row parameter, column parameter, row values, column values, {(row, column): case})."""
    spec = results.params["grid"]
    rows_name, columns_name = spec["rows"], spec["columns"]
    cells, row_values, column_values = {}, [], []
    for case in results.cases:
        row, column = case.params[rows_name], case.params[columns_name]
        row_values += [row] if row not in row_values else []
        column_values += [column] if column not in column_values else []
        cells[(row, column)] = case
    return rows_name, columns_name, row_values, column_values, cells


def grid_markdown_table(results: ResultsFile) -> str:
    """Rows × columns of median time per step, each with its ratio to the baseline row."""
    rows_name, _, row_values, column_values, cells = grid(results)
    baseline = results.params.get("baseline_mode")
    header = [rows_name.capitalize(), *map(str, column_values)]
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " --: |" * len(column_values)]
    for row in row_values:
        line = [f"**{row}**" if row == baseline else row]
        for column in column_values:
            case = cells.get((row, column))
            if case is None:
                line.append("not measured")
                continue
            m = case.measurement
            text = format_time(m.median_s) + _noisy_mark(m)
            base = cells.get((baseline, column))
            if base is not None and row != baseline:
                text += f" · {format_ratio(m.median_s / base.measurement.median_s)}"
            line.append(text)
        lines.append("| " + " | ".join(line) + " |")
    return "\n".join(lines)


def op_layers_markdown_table(results: ResultsFile) -> str:
    """Median per op of every entry point at every size, then what each layer costs (their differences)."""
    from tfspeedlab import layer_costs

    sizes = layer_costs.sizes(results)
    header = "| Entry point | " + " | ".join(f"{size:,} elements" if size > 1 else "scalar" for size in sizes) + " |"
    rule = "| --- |" + " --: |" * len(sizes)
    by_size = {size: layer_costs.entries(results, size) for size in sizes}
    lines = ["**Time per add**, median", "", header, rule]
    for index, first in enumerate(by_size[sizes[0]]):
        cells = [format_time(row.total_s) + _noisy_mark(row.source.measurement)
                 for row in (by_size[s][index] for s in sizes)]
        lines.append(f"| `{first.entry}` | " + " | ".join(cells) + " |")
    costs = {size: layer_costs.layer_costs(results, size) for size in sizes}
    lines += ["", "**What each layer adds**, per add (difference of the medians above)", "",
              header.replace("Entry point", "Layer"), rule]
    lines.append("| *empty `tf.function` call (subtracted, spread over the chain, from the graph's time)* | "
                 + " | ".join(format_time(layer_costs.median(results, layer_costs.EMPTY_CALL, s)) for s in sizes)
                 + " |")
    labels = {top: f"API layer of `{top}`" for top in layer_costs.TOPS}
    labels.update({"generated wrapper": "generated wrapper (Python)",
                   "C++ eager runtime": "C++ eager runtime", "kernel": "kernel (+ executor node)"})
    for key, label in labels.items():
        lines.append(f"| {_escape(label)} | " + " | ".join(signed_time(costs[s][key]) for s in sizes) + " |")
    return "\n".join(lines)


def signed_time(seconds: float) -> str:
    return ("−" + format_time(-seconds)) if seconds < 0 else format_time(seconds)


def memory_table(results: ResultsFile) -> str:
    """Per mode: the process's peak resident memory, what the mode added to it, and a GPU's peak."""
    on_gpu = any("gpu_peak_bytes" in case.metrics for case in results.cases)
    header = ["Mode", "Peak host memory (RSS)", "Added by the mode", *(["Peak GPU memory"] if on_gpu else [])]
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " --: |" * (len(header) - 1)]
    for case in results.cases:
        m = case.metrics
        cells = [case.label, format_bytes(m["peak_rss_bytes"]), format_bytes(m["peak_rss_growth_bytes"])]
        if on_gpu:
            cells.append(format_bytes(m["gpu_peak_bytes"]) if "gpu_peak_bytes" in m else "not recorded")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_bytes(count: float) -> str:
    """Binary units, three significant figures: ``763 MiB``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(count) >= size:
            return f"{format_significant(count / size, 3)} {unit}"
    return f"{int(count)} B"


SMALL_OPS_WORKLOAD = "150 small ops"
TRAINING_STEP_WORKLOAD = "training step"


def per_op_s(results: ResultsFile, mode: str) -> float:
    """A mode's median on the small-op loop divided by the loop's op count: the cost of one op."""
    return results.case(f"{mode} · {SMALL_OPS_WORKLOAD}").measurement.median_s / results.params["ops_per_call"]


def dispatch_table(results: ResultsFile) -> str:
    """Per mode: cost per small op, against the cheapest op-by-op mode (the floor of dispatch), the whole step.

    Only op-by-op modes dispatch each op; a compiled or graph mode's figure is
    a per-call cost spread over the ops, so it is not held against the floor.
    """
    small = [case for case in results.cases if case.params["workload"] == SMALL_OPS_WORKLOAD]
    costs = {case.params["mode"]: per_op_s(results, case.params["mode"]) for case in small}
    op_by_op = {case.params["mode"] for case in small if case.params["op_by_op"]}
    floor_mode = min(op_by_op, key=costs.get)
    ops = results.params["ops_per_call"]
    lines = [f"| Mode | Per op ({ops}-op loop ÷ {ops}) | Against {floor_mode} | Whole training step |",
             "| --- | --: | --: | --: |"]
    for mode, cost in costs.items():
        step = results.case(f"{mode} · {TRAINING_STEP_WORKLOAD}").measurement.median_s
        against = format_ratio(cost / costs[floor_mode]) if mode in op_by_op else "(one call, not per op)"
        label = mode if mode in op_by_op else f"*{mode}*"
        lines.append(f"| {label} | {format_time(cost)} | {against} | {format_time(step)} |")
    return "\n".join(lines)
