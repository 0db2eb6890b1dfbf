"""XLA against the plain graph, wherever a results file measured both modes of the same call."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.spec.layout import Sweep
from tfspeedlab.core.stats import intervals

GRAPH, XLA = "graph", "xla"


@dataclass(frozen=True)
class XlaPair:
    """One call measured as a graph and with XLA: times per call and first calls."""

    label: str
    graph_s: float
    xla_s: float
    graph_first_s: float
    xla_first_s: float
    # Graph's time over XLA's: above 1, XLA is faster.
    speedup: intervals.Ratio
    # What was run, for a reader: the graph case's parameters (its mode left out) and both modes.
    workload: tuple[tuple[str, object], ...] = ()
    modes: tuple[str, str] = (GRAPH, XLA)
    # Each process's first call of each mode, in the order of the file's runs (graph, then XLA).
    first_calls_s: tuple[tuple[float, ...], tuple[float, ...]] = ((), ())


# The same call without and with XLA, as the examples name their modes.
MODE_PAIRS = (
    (GRAPH, XLA),
    ("TensorFlow graph", "TensorFlow XLA"),  # frameworks
    ("tf.function step", "tf.function step + XLA"),  # tf1_vs_tf2: the hand-written step
    ("Keras 3 train_on_batch", "Keras 3 jit_compile"),  # tf1_vs_tf2: Keras's own step
)
# Parameters that describe how a case ran rather than what it ran.
_NOT_WORKLOAD = frozenset({"mode", "env", "steps_per_call"})


def xla_pairs(results: ResultsFile) -> list[XlaPair]:
    """Every pair of cases that ran the same call without and with XLA (``MODE_PAIRS``), in the
    order of the file: per swept value for a sweep, per other parameter (model, workload, size) else."""
    series = results.layout.series if isinstance(results.layout, Sweep) else "mode"
    by_key: dict[tuple, dict[str, object]] = {}
    for case in results.cases:
        key = tuple(sorted((name, repr(value)) for name, value in case.params.items()
                           if name not in _NOT_WORKLOAD and name != series))
        by_key.setdefault(key, {})[case.params.get(series)] = case
    found = []
    for cases in by_key.values():
        for graph_mode, xla_mode in MODE_PAIRS:
            if graph_mode in cases and xla_mode in cases:
                found.append((_where(results, cases[graph_mode], graph_mode), cases[graph_mode], cases[xla_mode]))
    # Name the modes only where one workload has several pairs (TF1 vs TF2: Keras's step and a hand-written one).
    ambiguous = len({where for where, _, _ in found}) < len(found)
    pairs = []
    for where, graph_case, xla_case in found:
        graph, xla = graph_case.measurement, xla_case.measurement
        label = f"{where}: {xla_case.params[series]} vs {graph_case.params[series]}" if ambiguous else where
        workload = tuple((name, value) for name, value in graph_case.params.items() if name not in _NOT_WORKLOAD)
        pairs.append(XlaPair(label, graph.per_call_s, xla.per_call_s, graph.first_call_s, xla.first_call_s,
                             intervals.speedup(results, graph_case.label, xla_case.label), workload,
                             (graph_case.params[series], xla_case.params[series]),
                             (tuple(run.first_call_s for run in graph_case.runs),
                              tuple(run.first_call_s for run in xla_case.runs))))
    return pairs


def pair_named(results: ResultsFile, label: str | None = None) -> XlaPair:
    """The file's XLA pair of that label (``elements 1000000``, ``—``); its only pair where none is
    named. ``ValueError`` naming the labels there are, where none or several match."""
    pairs = xla_pairs(results)
    found = [pair for pair in pairs if label is None or pair.label == label]
    if len(found) != 1:
        labels = ", ".join(repr(pair.label) for pair in pairs) or "none"
        raise ValueError(f"{results.example} has no single XLA pair {label or ''!r}; its pairs: {labels}")
    return found[0]


def compile_added_s(pair: XlaPair) -> float:
    """What XLA added to the first call over the plain graph's: both trace, XLA also compiles. Each
    first call is the median over processes, as the tables show it."""
    return pair.xla_first_s - pair.graph_first_s


def payback_calls(pair: XlaPair) -> float:
    """Calls after which XLA's saving per call has repaid what it added to the first call; infinite
    where XLA saves nothing per call (read with ``pair.speedup``'s verdict: only a clear win repays)."""
    saving = pair.graph_s - pair.xla_s
    added = compile_added_s(pair)
    if added <= 0:
        return 0.0
    return added / saving if saving > 0 else math.inf


def _where(results: ResultsFile, graph_case, graph_mode: str) -> str:
    """What the pair ran: the swept value, or the graph case's label without its mode."""
    if isinstance(results.layout, Sweep):
        parameter = results.layout.parameter
        return f"{parameter.replace('_', ' ')} {graph_case.params.get(parameter)}"
    return graph_case.label.replace(graph_mode, "").strip(" ·") or "—"
