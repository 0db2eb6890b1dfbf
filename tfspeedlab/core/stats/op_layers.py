"""What each layer of an eager op costs, from the op_layers results: differences of times per call.

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

Each difference comes with its 95% interval: the same difference on every hierarchical resample
of the cases it subtracts. One whose interval holds zero is not measurable on this run (two
layers that cost the same, or noise larger than the layer), never a negative cost; charts draw it
as zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tfspeedlab.core.results.schema import CaseResult, NotInResults, ResultsFile
from tfspeedlab.core.spec.layout import OpLayers
from tfspeedlab.core.stats import intervals

# Bottom to top, as drawn; the names say what each difference measures.
STACK = ("kernel", "C++ eager runtime", "generated wrapper", "API layer")
# Dispatch costs the same whatever the tensor's size. Where what lies above the kernel (the top entry
# point's time less the kernel's) costs more than this many times what it cost at the smallest size,
# the differences hold work that grows with the tensor: each eager call writes a fresh output, which
# the chain in a graph may not. They are then no layer breakdown. On the committed run: 1.08× at
# 10,000 elements, 5.1× at 1,000,000.
DISPATCH_GROWTH = 2.0


@dataclass(frozen=True)
class EntryCost:
    """One entry point at one size: its time per op, split into the layers below it."""

    entry: str
    elements: int
    total_s: float
    layers_s: dict[str, intervals.Estimate]
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


def per_call_s(results: ResultsFile, entry: str, elements: int) -> float:
    """An entry point's time per op at one size."""
    return case(results, entry, elements).measurement.per_call_s


def _resampled(results: ResultsFile, entry: str, elements: int) -> np.ndarray:
    return intervals.resampled_estimates(case(results, entry, elements))


def _kernel(results: ResultsFile, elements: int) -> tuple[float, np.ndarray]:
    roles = stack(results)
    length = case(results, roles.kernel, elements).params[roles.chain]
    point = per_call_s(results, roles.kernel, elements) - per_call_s(results, roles.empty_call, elements) / length
    resampled = _resampled(results, roles.kernel, elements) - _resampled(results, roles.empty_call, elements) / length
    return point, resampled


def kernel_s(results: ResultsFile, elements: int) -> float:
    return _kernel(results, elements)[0]


def above_kernel_s(results: ResultsFile, elements: int) -> float:
    """What the top entry point's time adds to the kernel's at one size: every layer above it."""
    return per_call_s(results, stack(results).top_entries[0], elements) - kernel_s(results, elements)


def is_breakdown(results: ResultsFile, elements: int) -> bool:
    """Whether the differences at this size split a call into its layers (see ``DISPATCH_GROWTH``)."""
    return above_kernel_s(results, elements) <= DISPATCH_GROWTH * above_kernel_s(results, sizes(results)[0])


def layer_costs(results: ResultsFile, elements: int) -> dict[str, intervals.Estimate]:
    """Seconds per op of each layer at one size, with intervals (keys: STACK, API layer per top entry)."""
    roles = stack(results)
    kernel = _kernel(results, elements)
    fast = (per_call_s(results, roles.fast_path, elements), _resampled(results, roles.fast_path, elements))
    wrapper = (per_call_s(results, roles.wrapper, elements), _resampled(results, roles.wrapper, elements))

    def difference(upper, lower) -> intervals.Estimate:
        return intervals.estimate_of(upper[0] - lower[0], upper[1] - lower[1])

    costs = {"kernel": intervals.estimate_of(*kernel), "C++ eager runtime": difference(fast, kernel),
             "generated wrapper": difference(wrapper, fast)}
    for top in roles.top_entries:
        costs[top] = difference((per_call_s(results, top, elements), _resampled(results, top, elements)), wrapper)
    return costs


def entries(results: ResultsFile, elements: int) -> list[EntryCost]:
    """Every entry point at one size, top of the stack first, each split into its layers."""
    roles = stack(results)
    costs = layer_costs(results, elements)
    base = {layer: costs[layer] for layer in STACK[:3]}

    def entry_cost(entry: str, layers: dict[str, intervals.Estimate]) -> EntryCost:
        measured = case(results, entry, elements)
        return EntryCost(entry, elements, measured.measurement.per_call_s, layers, measured)

    rows = [entry_cost(top, {**base, "API layer": costs[top]}) for top in roles.top_entries]
    rows.append(entry_cost(roles.wrapper, base))
    rows.append(entry_cost(roles.fast_path, {layer: base[layer] for layer in STACK[:2]}))
    rows.append(EntryCost(f"kernel ({roles.kernel})", elements, costs["kernel"].value, {"kernel": costs["kernel"]},
                          case(results, roles.kernel, elements)))
    return rows
