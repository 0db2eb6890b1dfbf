"""What each layer of an eager op costs, from the op_layers results: differences of medians.

The entry points nest: ``tf.add``, ``x + y`` and ``tf.raw_ops.AddV2`` each end
in the generated wrapper ``gen_math_ops.add_v2``, which calls the C++ fast
path ``TFE_Py_FastPathExecute``, which ends in the kernel. The kernel alone is
timed inside a graph: a chain's time per add, less the graph call's fixed
cost spread over the chain. So, per tensor size:

* kernel = chain per add − empty graph call ÷ chain length (includes the
  executor's per-node work, a few hundred nanoseconds);
* C++ eager runtime = fast path − kernel;
* generated wrapper = ``gen_math_ops.add_v2`` − fast path;
* each top entry point's own layer = its time − ``gen_math_ops.add_v2``.

A difference can come out slightly negative when two layers cost the same
and noise decides the sign; tables show it signed, charts draw it as zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.results import CaseResult, ResultsFile

KERNEL = "in a graph"
EMPTY_CALL = "empty graph call"
FAST_PATH = "TFE_Py_FastPathExecute"
WRAPPER = "gen_math_ops.add_v2"
TOPS = ("tf.add", "x + y", "tf.raw_ops.AddV2")
# Bottom to top, as drawn; the names say what each difference measures.
STACK = ("kernel", "C++ eager runtime", "generated wrapper", "API layer")


@dataclass(frozen=True)
class EntryCost:
    """One entry point at one size: its median per op, split into the layers below it."""

    entry: str
    elements: int
    total_s: float
    layers_s: dict[str, float]
    # The measured case behind the total (for the kernel: the graph chain).
    source: CaseResult


def is_layer_results(results: ResultsFile) -> bool:
    return "op_layers" in results.params


def sizes(results: ResultsFile) -> list[int]:
    return sorted({case.params["elements"] for case in results.cases})


def case(results: ResultsFile, entry: str, elements: int) -> CaseResult:
    for found in results.cases:
        if found.params["entry"] == entry and found.params["elements"] == elements:
            return found
    raise KeyError(f"{results.example} has no case for entry {entry!r} at {elements} elements")


def median(results: ResultsFile, entry: str, elements: int) -> float:
    return case(results, entry, elements).measurement.median_s


def kernel_s(results: ResultsFile, elements: int) -> float:
    chain = case(results, KERNEL, elements)
    return chain.measurement.median_s - median(results, EMPTY_CALL, elements) / chain.params["chain"]


def layer_costs(results: ResultsFile, elements: int) -> dict[str, float]:
    """Seconds per op of each layer at one size (keys: STACK, API layer per top entry)."""
    kernel = kernel_s(results, elements)
    fast = median(results, FAST_PATH, elements)
    wrapper = median(results, WRAPPER, elements)
    costs = {"kernel": kernel, "C++ eager runtime": fast - kernel, "generated wrapper": wrapper - fast}
    for top in TOPS:
        costs[top] = median(results, top, elements) - wrapper
    return costs


def entries(results: ResultsFile, elements: int) -> list[EntryCost]:
    """Every entry point at one size, top of the stack first, each split into its layers."""
    costs = layer_costs(results, elements)
    base = {layer: costs[layer] for layer in STACK[:3]}

    def entry_cost(entry: str, layers: dict[str, float]) -> EntryCost:
        measured = case(results, entry, elements)
        return EntryCost(entry, elements, measured.measurement.median_s, layers, measured)

    rows = [entry_cost(top, {**base, "API layer": costs[top]}) for top in TOPS]
    rows.append(entry_cost(WRAPPER, base))
    rows.append(entry_cost(FAST_PATH, {layer: base[layer] for layer in STACK[:2]}))
    rows.append(EntryCost("kernel (in a graph)", elements, costs["kernel"], {"kernel": costs["kernel"]},
                          case(results, KERNEL, elements)))
    return rows
