"""Named quantities of one results file (derived figures, recorded metrics), formatted for a sentence on a page.

``{{ derived op_chain break_even_ops }}`` on a page becomes the break-even op
count computed from ``results/cpu/op_chain.json`` at build time.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from tfspeedlab.core.results.schema import NotInResults, ResultsFile
from tfspeedlab.core.stats import sweeps
from tfspeedlab.core.units import format_significant
from tfspeedlab.core.wording import number_with_interval, speedup_by_value, time_with_interval


def _swept_value(results: ResultsFile, value: float | None) -> str:
    if value is None:
        return "nowhere in the sweep"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _extreme_gain(results: ResultsFile, faster: str, slower: str, pick: Callable = max) -> str:
    """The largest (or, with ``min``, the smallest) speed-up along the sweep, and where."""
    x, found = pick(sweeps.speedups(results, faster, slower), key=lambda point: point[1].value)
    return f"{speedup_by_value(found.value)} at {sweeps.sweep_parameter(results).replace('_', ' ')} {x}"


def _payback(results: ResultsFile) -> str:
    calls = sweeps.tracing_payback_calls(results)
    return "never (graph mode is not faster per call)" if math.isinf(calls) else f"{math.ceil(calls)}"


def _from_value_up(results: ResultsFile, value: float | None) -> str:
    """``from size 1000 up`` · ``at size 2048, the largest measured`` · ``at no measured size``."""
    noun = parameter_noun(results)
    if value is None:
        return f"at no measured {noun}"
    largest = sweeps.sweep(results, sweeps.modes(results)[0])[-1][0]
    name = _swept_value(results, value)
    return f"at {noun} {name}, the largest measured" if value == largest else f"from {noun} {name} up"


def _unclear_from(results: ResultsFile) -> float | None:
    """Smallest swept value from which neither eager nor graph is clearly faster: every larger value's
    interval of the speed-up holds 1× (a page reads each as the same or inconclusive)."""
    return sweeps.holds_from([(x, found.low <= 1.0 <= found.high)
                              for x, found in sweeps.speedups(results, "graph", "eager")])


def at_values(values: list, noun: str) -> str:
    """``at no measured size`` · ``at size 8`` · ``at sizes 8, 16 and 32``: a list as a sentence says it."""
    if not values:
        return f"at no measured {noun}"
    names = [f"{value:g}" if isinstance(value, float) else str(value) for value in values]
    if len(names) == 1:
        return f"at {noun} {names[0]}"
    return f"at {noun}s {', '.join(names[:-1])} and {names[-1]}"


def parameter_noun(results: ResultsFile) -> str:
    # A sweep's parameter as a reader says it: "size" for a size sweep, else its name.
    parameter = sweeps.sweep_parameter(results)
    return "size" if parameter in ("size", "n", "elements") else parameter.replace("_", " ")


def count(value: float, noun: str) -> str:
    """``once`` · ``twice`` · ``10 times`` for "time"; ``1 trace`` · ``3 traces`` for any other noun."""
    number = int(value)
    if noun == "time" and number in (1, 2):
        return ("once", "twice")[number - 1]
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


DERIVED: dict[str, Callable[[ResultsFile], str]] = {
    # op-count sweep: the two fitted lines and where they cross, each with its interval
    "graph_call_cost": lambda r: time_with_interval(sweeps.op_costs(r).graph.intercept),
    "eager_call_cost": lambda r: time_with_interval(sweeps.op_costs(r).eager.intercept),
    "eager_per_op": lambda r: time_with_interval(sweeps.op_costs(r).eager.slope),
    "graph_per_op": lambda r: time_with_interval(sweeps.op_costs(r).graph.slope),
    "per_op_ratio": lambda r: format_significant(
        sweeps.op_costs(r).eager.slope_s / sweeps.op_costs(r).graph.slope_s, 2) + "×",
    "xla_call_cost": lambda r: time_with_interval(sweeps.mode_fit(r, "xla").intercept),
    "xla_per_op": lambda r: time_with_interval(sweeps.mode_fit(r, "xla").slope),
    "break_even_ops": lambda r: number_with_interval(sweeps.op_costs(r).break_even),
    "measured_break_even": lambda r: _swept_value(r, sweeps.first_x_where_faster(r, "graph", "eager")),
    "fit_error": lambda r: f"{max(sweeps.op_costs(r).eager.worst_relative_error, sweeps.op_costs(r).graph.worst_relative_error):.0%}",
    # size sweep
    "clear_graph_gains": lambda r: at_values(sweeps.clear_gain_points(r), parameter_noun(r)),
    "eager_clearly_faster_up_to": lambda r: _swept_value(r, max(sweeps.clear_gain_points(r, "eager", "graph"),
                                                               default=None)),
    "gap_closes_where": lambda r: _from_value_up(r, sweeps.difference_fades_at(r)),
    "unclear_from": lambda r: _from_value_up(r, _unclear_from(r)),
    "best_xla_vs_graph": lambda r: _extreme_gain(r, "xla", "graph"),
    "worst_xla_vs_graph": lambda r: _extreme_gain(r, "xla", "graph", min),
    # tracing
    "tracing_payback": _payback,
}


def derived(results: ResultsFile, name: str) -> str:
    try:
        compute = DERIVED[name]
    except KeyError:
        raise NotInResults(f"no derived figure {name!r}; known: {', '.join(sorted(DERIVED))}") from None
    return compute(results)


def metric_value(results: ResultsFile, case: str, name: str) -> float:
    metrics = results.case(case).metrics
    if name not in metrics:
        raise NotInResults(f"case {case!r} of {results.example} has no metric {name!r}; it has {sorted(metrics)}")
    return metrics[name]


SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def metric(results: ResultsFile, case: str, name: str) -> str:
    """Whole numbers as such; three significant figures; below 0.001 as ``1.30 × 10⁻⁹`` (not ``0.000``)."""
    value = metric_value(results, case, name)
    if float(value).is_integer():
        return str(int(value))
    if abs(value) < 1e-3:
        mantissa, exponent = f"{value:.2e}".split("e")
        return f"{mantissa}\u00a0×\u00a010{str(int(exponent)).translate(SUPERSCRIPTS)}"
    return format_significant(value, 3)
