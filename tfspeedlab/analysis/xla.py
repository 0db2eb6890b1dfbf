"""XLA against the plain graph, wherever a results file measured both modes of the same call."""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.results.schema import ResultsFile
from tfspeedlab.spec.layout import Sweep

# XLA is called a win or a loss only beyond this ratio against the plain graph;
# closer than that is within the spread a shared 2-core runner produces.
XLA_VERDICT_MARGIN = 1.10
GRAPH, XLA = "graph", "xla"


@dataclass(frozen=True)
class XlaPair:
    """One call measured as a graph and with XLA: medians and first calls."""

    label: str
    graph_s: float
    xla_s: float
    graph_first_s: float
    xla_first_s: float

    @property
    def speedup(self) -> float:
        """Graph over XLA: above 1, XLA is faster."""
        return self.graph_s / self.xla_s

    @property
    def verdict(self) -> str:
        if self.speedup >= XLA_VERDICT_MARGIN:
            return "XLA faster"
        if self.speedup <= 1 / XLA_VERDICT_MARGIN:
            return "XLA slower"
        return "no clear difference"


def xla_pairs(results: ResultsFile) -> list[XlaPair]:
    """Every graph/XLA pair of cases: per swept value for a sweep, else the one ``mode`` pair."""
    swept = results.layout.parameter if isinstance(results.layout, Sweep) else None
    series = results.layout.series if isinstance(results.layout, Sweep) else "mode"
    by_key: dict[object, dict[str, object]] = {}
    for case in results.cases:
        mode = case.params.get(series)
        if mode in (GRAPH, XLA):
            key = case.params.get(swept) if swept else None
            by_key.setdefault(key, {})[mode] = case.measurement
    pairs = []
    for key, pair in by_key.items():
        if {GRAPH, XLA} <= pair.keys():
            label = "—" if key is None else f"{swept.replace('_', ' ')} {key}"
            graph, xla = pair[GRAPH], pair[XLA]
            pairs.append(XlaPair(label, graph.median_s, xla.median_s, graph.first_call_s, xla.first_call_s))
    return pairs
