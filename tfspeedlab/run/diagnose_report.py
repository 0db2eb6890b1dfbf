"""A diagnosis as a reader sees it: aligned columns for the terminal, or JSON to keep."""

from __future__ import annotations

from typing import Any

from tfspeedlab.analysis.summary import format_speedup
from tfspeedlab.run.diagnose import MODES, Diagnosis
from tfspeedlab.run.report import text_columns
from tfspeedlab.units import format_time


def text_report(diagnosis: Diagnosis, target: str) -> str:
    rows = [("Mode", "Per call (median)", "Speed-up over eager [95%]", "First call", "Paid back after")]
    for mode in MODES:
        result = diagnosis.modes[mode]
        if result.measurement is None:
            rows.append((mode, f"could not run: {result.error}", "", "", ""))
            continue
        speedup = diagnosis.speedups.get(mode)
        calls = diagnosis.break_even_calls.get(mode)
        rows.append((mode, format_time(result.measurement.median_s),
                     format_speedup(speedup) if speedup else "—", format_time(result.first_call_s),
                     "—" if mode == "eager" else "never" if calls is None else f"{calls:,.0f} calls"))
    probe = diagnosis.retracing
    traces = [f"{probe.first_traces} on the first call"]
    if probe.batch_size_traces is not None:
        traces.append(f"{probe.batch_size_traces} more for another batch size")
    if probe.python_number_traces is not None:
        traces.append(f"{probe.python_number_traces} more for two other Python numbers")
    ops = "unknown (it could not be traced)" if diagnosis.op_count is None else f"{diagnosis.op_count:,}"
    return "\n".join([f"tfspeedlab diagnose {target}", "", text_columns(rows), "",
                      f"Ops in the traced graph: {ops}", f"Traces: {', '.join(traces)}", "",
                      f"Verdict: {diagnosis.verdict}"])


def markdown_report(diagnosis: Diagnosis, target: str) -> str:
    """The terminal report as a Markdown file to keep or share: the table as a code block (its
    columns stay aligned anywhere), then the verdict as prose."""
    table, verdict_line = text_report(diagnosis, target).rsplit("\n\nVerdict: ", 1)
    fence = "```"
    return (f"# Diagnosis of `{target.replace('`', '')}`\n\n{fence}text\n{table}\n{fence}\n\n"
            f"**Verdict.** {verdict_line}\n")


def json_report(diagnosis: Diagnosis, target: str) -> dict[str, Any]:
    def ratio(found):
        return None if found is None else {"value": found.value, "low": found.low, "high": found.high}

    modes = {}
    for mode, result in diagnosis.modes.items():
        measurement = result.measurement
        modes[mode] = {"error": result.error} if measurement is None else {
            "median_s": measurement.median_s, "first_call_s": measurement.first_call_s,
            "samples_s": list(measurement.samples_s), "calls_per_block": measurement.calls_per_block,
            "speedup_over_eager": ratio(diagnosis.speedups.get(mode)),
            "break_even_calls": diagnosis.break_even_calls.get(mode)}
    probe = diagnosis.retracing
    return {"target": target, "modes": modes, "xla_over_tf_function": ratio(diagnosis.xla_over_graph),
            "op_count": diagnosis.op_count,
            "retracing": {"first_traces": probe.first_traces, "batch_size_traces": probe.batch_size_traces,
                          "python_number_traces": probe.python_number_traces, "fixes": probe.fixes},
            "verdict": diagnosis.verdict}
