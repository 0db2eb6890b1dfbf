"""The kernel split table: per mode, how long each family of kernels took in a profiled step
(``core.kernel_split``), over the processes the mode ran in."""

from __future__ import annotations

import math
import statistics

from tfspeedlab.core.kernel_split import KERNEL_FAMILIES, KERNEL_FAMILY_LABELS
from tfspeedlab.core.results.schema import CaseResult, ResultsFile
from tfspeedlab.core.stats.intervals import Estimate, t975
from tfspeedlab.core.units import format_time
from tfspeedlab.core.wording import TOO_SMALL, time_with_interval
from tfspeedlab.render.markdown import Markdown, table


def across_processes(values: list[float]) -> Estimate | None:
    """One positive figure over a mode's processes: their geometric mean, with Student's t interval
    on the logarithms (each process profiled once, so the processes are the samples; on the log scale
    the interval stays above zero, as the "paired processes" interval of a speed-up does). None
    without a value; a zero (no such kernel ran) gives zero."""
    if not values:
        return None
    if min(values) <= 0:
        return Estimate(0.0, 0.0, 0.0) if max(values) <= 0 else Estimate(statistics.fmean(values), 0.0, max(values))
    if len(values) == 1:
        return Estimate(values[0], values[0], values[0])
    logs = [math.log(value) for value in values]
    centre = statistics.fmean(logs)
    half = t975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return Estimate(math.exp(centre), math.exp(centre - half), math.exp(centre + half))


def _kernels_sum(metrics) -> float | None:
    keys = [f"kernel_{family}_s" for family in KERNEL_FAMILIES]
    return sum(metrics[key] for key in keys) if all(key in metrics for key in keys) else None


def _over_processes(case: CaseResult, per_process) -> Estimate | None:
    """``across_processes`` of the figure ``per_process`` picks from each process's metrics (None where
    a process lacks it)."""
    return across_processes([value for metrics in case.metrics_by_process
                             if (value := per_process(metrics)) is not None])


def _time_cell(case: CaseResult, per_process) -> str:
    """A time per step over the case's processes (``per_process`` picks it from one's metrics)."""
    found = _over_processes(case, per_process)
    if found is None:
        return "not profiled"
    if found.high == 0:
        return "none ran"
    if len(case.metrics_by_process) < 2:
        return format_time(found.value)
    # Some processes ran none of the family's kernels and others did: too small to state.
    return time_with_interval(found) if found.low > 0 else TOO_SMALL


def _family_cell(case: CaseResult, family: str) -> str:
    return _time_cell(case, lambda metrics: metrics.get(f"kernel_{family}_s"))


def _ops_cell(case: CaseResult) -> str:
    found = _over_processes(case, lambda metrics: metrics.get("ops_per_call"))
    return "not profiled" if found is None else f"{found.value:.0f}"


def kernel_split_table(results: ResultsFile) -> Markdown:
    """Rows: each family of kernels, all of them together, the profiled step, the ops a step ran and
    the step's timed length; a column per mode."""
    header = ["Per step", *(case.label for case in results.cases)]
    body = [[f"Kernels: {KERNEL_FAMILY_LABELS[family]}", *(_family_cell(case, family) for case in results.cases)]
            for family in KERNEL_FAMILIES]
    body.append(["All kernels together", *(_time_cell(case, _kernels_sum) for case in results.cases)])
    body.append(["Whole step, profiled", *(_time_cell(case, lambda metrics: metrics.get("profiled_call_s"))
                                           for case in results.cases)])
    body.append(["Ops run", *(_ops_cell(case) for case in results.cases)])
    body.append(["Whole step, timed unprofiled", *(format_time(case.measurement.per_call_s) for case in results.cases)])
    return table(header, body)
