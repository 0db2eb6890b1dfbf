"""Figures that move from one CPU model to the next, one row per CPU model measured: a speed-up
(the committed file's and the newest re-measure on each other CPU model), and the fixed cost of a
``tf.function`` call with the break-even it implies, from every example that times both a
one-op call and a longer chain.

The headline factors of the guide were measured on one CPU model, and they move between models
(the small-ops speed-up read 26.4× on one, 9.85–12.6× on three others): a reader's machine is
more like the range than like any one row, so the home and question pages lead with these."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tfspeedlab.core import wording
from tfspeedlab.core.results.cpu import same_cpu
from tfspeedlab.core.results.schema import NotInResults, ResultsFile
from tfspeedlab.core.stats import intervals, line_fit, sweeps
from tfspeedlab.core.units import format_significant, format_time


# ------------------------------------------------------------ the fixed cost of a call, per CPU model


@dataclass(frozen=True)
class CostSource:
    """An example that times a ``tf.function`` call of one op and a longer chain, and eager ops:
    (ops per call, case) for each mode. One eager point makes a line through zero: eager's own
    cost per call, apart from its ops, was too small to measure on the op-count sweep."""

    example: str
    page: str  # the page that shows the example, relative to docs/
    eager: tuple[tuple[int, str], ...]
    graph: tuple[tuple[int, str], ...]
    # How the line was fitted, for the table's "Fitted from" column (``fitted_from``): ``{count}``,
    # ``{first}`` and ``{last}`` are the graph line's points, so that a line fitted to seven points
    # and one drawn through two never read alike.
    how: str


SOURCES = (
    CostSource("op_chain", "op-count.md", (), (), "a line fitted to {count} chain lengths, {first} to {last}"),
    CostSource("releases", "releases.md",
               ((1, "chain of 1 op · eager"), (1000, "chain of 1,000 ops · eager")),
               ((1, "chain of 1 op · tf.function"), (1000, "chain of 1,000 ops · tf.function")),
               "a line through {count} chain lengths, {first} and {last}"),
    CostSource("cpu_settings", "cpu-settings.md",
               ((150, "default · small ops · eager"),),
               ((1, "default · one-op tf.function"), (150, "default · small ops · graph")),
               "a line through a one-op call and the {last}-op loop"),
)


@dataclass(frozen=True)
class CallCosts:
    """One CPU model's line for each mode: the fixed cost of a ``tf.function`` call, the cost of
    one eager op, and the op count where the two modes cost the same."""

    source: CostSource
    results: ResultsFile
    graph_call: intervals.Estimate
    eager_per_op: intervals.Estimate
    break_even: intervals.Estimate


def _line(results: ResultsFile, points) -> tuple[float, float, np.ndarray, np.ndarray]:
    """(fixed, per op) through the points, and the same on every resample of their cases."""
    n = np.array([float(ops) for ops, _ in points])
    cases = [results.case(case) for _, case in points]
    times = np.array([case.measurement.per_call_s for case in cases])
    resampled = np.stack([intervals.resampled_estimates(case, line_fit.RESAMPLES) for case in cases])
    if len(points) == 1:  # through zero
        return 0.0, float(times[0] / n[0]), np.zeros(resampled.shape[1]), resampled[0] / n[0]
    (fixed,), (per_op,) = line_fit.fit_line(n, times)
    fixed_resamples, per_op_resamples = line_fit.fit_line(n, resampled)
    return float(fixed), float(per_op), fixed_resamples, per_op_resamples


def call_costs(source: CostSource, results: ResultsFile) -> CallCosts:
    """``source``'s two lines on ``results``; ``NotInResults`` where a case is missing (a quick run)."""
    if source.example == "op_chain":  # the op-count page's own fit, so both pages state one figure
        fit = sweeps.op_costs(results)
        return CallCosts(source, results, fit.graph.intercept, fit.eager.slope, fit.break_even)
    eager_fixed, eager_slope, eager_fixed_r, eager_slope_r = _line(results, source.eager)
    graph_fixed, graph_slope, graph_fixed_r, graph_slope_r = _line(results, source.graph)
    crossing = (graph_fixed - eager_fixed) / (eager_slope - graph_slope)
    crossings = (graph_fixed_r - eager_fixed_r) / (eager_slope_r - graph_slope_r)
    return CallCosts(source, results, intervals.estimate_of(graph_fixed, graph_fixed_r),
                     intervals.estimate_of(eager_slope, eager_slope_r), intervals.estimate_of(crossing, crossings))


def fitted_from(found: CallCosts) -> str:
    """How ``found``'s lines were fitted, with the graph line's points: ``a line fitted to 7 chain
    lengths, 1 to 1,000``, ``a line through 2 chain lengths, 1 and 1,000``."""
    if found.source.graph:
        ops = [ops for ops, _ in found.source.graph]
    else:  # the op-count sweep: every chain length it measured
        ops = [ops for ops, _ in sweeps.sweep_cases(found.results, "graph")]
    return found.source.how.format(count=len(ops), first=f"{min(ops):,}", last=f"{max(ops):,}")


def all_call_costs(results: dict[str, ResultsFile]) -> list[CallCosts]:
    """Every source the results hold, in ``SOURCES``' order; one whose cases a run left out is skipped."""
    found = []
    for source in SOURCES:
        if source.example not in results:
            continue
        try:
            found.append(call_costs(source, results[source.example]))
        except NotInResults:
            continue
    return found


def cpu_models(files: list[ResultsFile]) -> int:
    """How many CPU models the files were measured on, one by ``same_cpu``'s rule."""
    seen: list[ResultsFile] = []
    for found in files:
        if not any(same_cpu(found.environment, other.environment) for other in seen):
            seen.append(found)
    return len(seen)


def on_models(count: int) -> str:
    return "on one CPU model" if count == 1 else f"on {count} CPU models"


def value_range(values: list[str], count: int) -> str:
    """``5.0 to 12 on 3 CPU models``; one figure where the ends read alike."""
    low, high = values[0], values[-1]
    return f"{low if low == high else f'{low} to {high}'} {on_models(count)}"


def break_even_range(costs: list[CallCosts]) -> str:
    """``5.0 to 12 ops per call on 3 CPU models``: where eager and ``tf.function`` calls cost the same."""
    if not costs:
        return "not measured"
    # Each end with the figures its table cell prints (``wording.number_with_interval``).
    values = [format_significant(found.break_even.value, wording.count_digits(found.break_even))
              for found in sorted(costs, key=lambda found: found.break_even.value)]
    return value_range([f"{values[0]}", f"{values[-1]} ops per call"] if values[0] != values[-1]
                       else [f"{values[0]} ops per call"] * 2, cpu_models([found.results for found in costs]))


def call_cost_range(costs: list[CallCosts]) -> str:
    """``152 µs to 262 µs on 3 CPU models``: a ``tf.function`` call's fixed cost."""
    if not costs:
        return "not measured"
    values = [format_time(value) for value in sorted(found.graph_call.value for found in costs)]
    return value_range(values, cpu_models([found.results for found in costs]))
