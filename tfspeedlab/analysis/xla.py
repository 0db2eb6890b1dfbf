"""XLA against the plain graph, wherever a results file measured both modes of the same call."""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.analysis import intervals
from tfspeedlab.results.schema import ResultsFile
from tfspeedlab.spec.layout import Sweep

GRAPH, XLA = "graph", "xla"


@dataclass(frozen=True)
class XlaPair:
    """One call measured as a graph and with XLA: medians and first calls."""

    label: str
    graph_s: float
    xla_s: float
    graph_first_s: float
    xla_first_s: float
    # Graph's time over XLA's: above 1, XLA is faster.
    speedup: intervals.Ratio

    @property
    def verdict(self) -> str:
        """A win or a loss only when the whole interval of the speed-up says so."""
        return {"faster": "XLA faster", "slower": "XLA slower"}.get(intervals.verdict(self.speedup),
                                                                    "no clear difference")


def xla_pairs(results: ResultsFile) -> list[XlaPair]:
    """Every graph/XLA pair of cases: per swept value for a sweep, else the one ``mode`` pair."""
    swept = results.layout.parameter if isinstance(results.layout, Sweep) else None
    series = results.layout.series if isinstance(results.layout, Sweep) else "mode"
    by_key: dict[object, dict[str, object]] = {}
    for case in results.cases:
        mode = case.params.get(series)
        if mode in (GRAPH, XLA):
            key = case.params.get(swept) if swept else None
            by_key.setdefault(key, {})[mode] = case
    pairs = []
    for key, pair in by_key.items():
        if {GRAPH, XLA} <= pair.keys():
            label = "—" if key is None else f"{swept.replace('_', ' ')} {key}"
            graph, xla = pair[GRAPH].measurement, pair[XLA].measurement
            # The same seed as {{ speedup NAME GRAPH XLA }}: one comparison, one interval, everywhere.
            pairs.append(XlaPair(label, graph.median_s, xla.median_s, graph.first_call_s, xla.first_call_s,
                                 intervals.speedup(results, pair[GRAPH].label, pair[XLA].label)))
    return pairs
