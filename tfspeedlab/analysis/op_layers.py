"""What each layer of an eager op costs, from the op_layers results: differences of medians.

The entry points nest (the example names them in its ``OpLayers`` layout):
``tf.add``, ``x + y`` and ``tf.raw_ops.AddV2`` each end in the generated
wrapper ``gen_math_ops.add_v2``, which calls the C++ fast path
``TFE_Py_FastPathExecute``, which ends in the kernel. The kernel alone is
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

from tfspeedlab.results.schema import CaseResult, NotInResults, ResultsFile
from tfspeedlab.spec.layout import OpLayers

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


def stack(results: ResultsFile) -> OpLayers:
    """The entry points of an op-layers results file, by role."""
    if not isinstance(results.layout, OpLayers):
        raise NotInResults(f"{results.example} does not measure op layers (its layout is {results.layout.kind!r})")
    return results.layout


def sizes(results: ResultsFile) -> list[int]:
    return sorted({case.params[stack(results).size] for case in results.cases})


def case(results: ResultsFile, entry: str, elements: int) -> CaseResult:
    roles = stack(results)
    for found in results.cases:
        if found.params[roles.entry] == entry and found.params[roles.size] == elements:
            return found
    raise NotInResults(f"{results.example} has no case for entry {entry!r} at {elements} elements")


def median(results: ResultsFile, entry: str, elements: int) -> float:
    return case(results, entry, elements).measurement.median_s


def kernel_s(results: ResultsFile, elements: int) -> float:
    roles = stack(results)
    chain = case(results, roles.kernel, elements)
    return chain.measurement.median_s - median(results, roles.empty_call, elements) / chain.params[roles.chain]


def layer_costs(results: ResultsFile, elements: int) -> dict[str, float]:
    """Seconds per op of each layer at one size (keys: STACK, API layer per top entry)."""
    roles = stack(results)
    kernel = kernel_s(results, elements)
    fast = median(results, roles.fast_path, elements)
    wrapper = median(results, roles.wrapper, elements)
    costs = {"kernel": kernel, "C++ eager runtime": fast - kernel, "generated wrapper": wrapper - fast}
    for top in roles.top_entries:
        costs[top] = median(results, top, elements) - wrapper
    return costs


def entries(results: ResultsFile, elements: int) -> list[EntryCost]:
    """Every entry point at one size, top of the stack first, each split into its layers."""
    roles = stack(results)
    costs = layer_costs(results, elements)
    base = {layer: costs[layer] for layer in STACK[:3]}

    def entry_cost(entry: str, layers: dict[str, float]) -> EntryCost:
        measured = case(results, entry, elements)
        return EntryCost(entry, elements, measured.measurement.median_s, layers, measured)

    rows = [entry_cost(top, {**base, "API layer": costs[top]}) for top in roles.top_entries]
    rows.append(entry_cost(roles.wrapper, base))
    rows.append(entry_cost(roles.fast_path, {layer: base[layer] for layer in STACK[:2]}))
    rows.append(EntryCost(f"kernel ({roles.kernel})", elements, costs["kernel"], {"kernel": costs["kernel"]},
                          case(results, roles.kernel, elements)))
    return rows
