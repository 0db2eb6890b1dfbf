"""A cost model of eager, graph and XLA calls, fitted from measured results.

For a function of ``ops`` elementwise ops on tensors of ``elements`` elements,
one call in mode m costs

    call_m + ops · (op_m + element_m · elements + split_m · [elements ≥ SPLIT_ELEMENTS])

``call_m`` is the fixed cost of entering the mode (a ``tf.function`` call),
``op_m`` the cost of issuing one op (Python and dispatch eagerly, executor
scheduling in a graph), ``element_m`` the kernels' cost per element, and
``split_m`` what each op pays once its tensor is large enough for TensorFlow's
CPU kernels to split it across threads (``SPLIT_ELEMENTS``): waking the other
threads and waiting for them. The first call adds
``trace_m + trace_op_m · ops``: tracing, and for XLA compiling.

The four per-call parameters of a mode are fitted at once to every point of
the two sweeps of ``results/<runner>/`` whose ``Sweep`` layout says
``fits_cost_model`` (ops vary on small tensors; tensors grow under a fixed
op count), by least squares on the *relative* error with every parameter
kept ≥ 0. The tracing line is fitted to the first calls of the op-count sweep.

What the model predicts, and is checked against, is each case's time by the
guide's estimator (``intervals.estimate_s``, the 10th percentile of all
blocks): a call that nothing else on the machine got in the way of. Medians
on a shared machine also carry whole processes that ran in a slow state,
which no model of the work can predict.

The same formulas are implemented in JavaScript for the simulator page
(``docs/assets/javascripts/simulator.js``); a test checks that both agree.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, replace
from functools import cached_property

import numpy as np

from tfspeedlab.core.results.schema import NotInResults, ResultsFile
from tfspeedlab.core.spec.layout import Sweep
from tfspeedlab.core.stats import intervals, sweeps

MODES = ("eager", "graph", "xla")
# The swept case parameters the two fitting sweeps run along.
FIT_PARAMETERS = ("n_ops", "elements")

# Tensor size (float32 elements) from which one elementwise op runs on several threads. Eigen,
# under TensorFlow's CPU kernels, splits an op once its estimated cost reaches kStartupCycles +
# 1.1 · kPerThreadCycles = 210,000 cycles (TensorCostModel::numThreads); for x · c, x + c and ReLU
# that is reached between 308 × 308 and 310 × 310 on the CPU runner: context switches per op (an
# op handing work to another thread) go from 0.02 to 1.2 there, in eager and graph mode alike
# (resource.getrusage around 20 calls of the 30-op chain, TF 2.21). Not fitted: the size sweep
# only brackets it between its 100 × 100 and 316 × 316 points.
SPLIT_ELEMENTS = 96_000


@dataclass(frozen=True)
class ModeCosts:
    call_s: float
    op_s: float
    element_s: float
    split_s: float
    trace_s: float
    trace_op_s: float

    def per_op(self, elements: float) -> float:
        split = self.split_s if elements >= SPLIT_ELEMENTS else 0.0
        return self.op_s + self.element_s * elements + split

    def per_call(self, ops: float, elements: float) -> float:
        return self.call_s + ops * self.per_op(elements)

    def first_call_extra(self, ops: float) -> float:
        return self.trace_s + self.trace_op_s * ops


@dataclass(frozen=True)
class CostModel:
    runner: str
    modes: dict[str, ModeCosts]
    # Worst relative miss of each mode's per-call time on the points it was fitted to.
    fit_error: dict[str, float]
    # Worst relative miss of each mode's per-call time on every measured chain, fitted or held out
    # (those measured like the fitting sweeps): the ± the simulator shows beside a prediction.
    band: dict[str, float]
    # Worst relative miss of each mode's tracing line on the first calls it was fitted to.
    trace_error: dict[str, float]
    # The largest op count and tensor size measured: beyond them the model extrapolates.
    measured_ops: int
    measured_elements: int

    def per_call(self, mode: str, ops: float, elements: float) -> float:
        return self.modes[mode].per_call(ops, elements)

    def total(self, mode: str, ops: float, elements: float, calls: int) -> float:
        """``calls`` calls, the first one paying for tracing (and compiling)."""
        return self.modes[mode].first_call_extra(ops) + calls * self.per_call(mode, ops, elements)

    def total_band(self, mode: str, ops: float, elements: float, calls: int) -> float:
        """The total's ±: each part's worst miss, weighted by that part's share of the total."""
        extra = self.modes[mode].first_call_extra(ops)
        repeated = calls * self.per_call(mode, ops, elements)
        return (extra * self.trace_error[mode] + repeated * self.band[mode]) / (extra + repeated)

    def break_even_ops(self, elements: float, mode: str = "graph") -> float | None:
        """Ops per call above which ``mode`` beats eager; None if it never does."""
        eager, other = self.modes["eager"], self.modes[mode]
        per_op_saving = eager.per_op(elements) - other.per_op(elements)
        if per_op_saving <= 0:
            return None
        return max((other.call_s - eager.call_s) / per_op_saving, 0.0)

    def payback_calls(self, ops: float, elements: float, mode: str = "graph") -> float | None:
        """Calls after which ``mode``'s tracing has paid for itself; None if never."""
        saving = self.per_call("eager", ops, elements) - self.per_call(mode, ops, elements)
        if saving <= 0:
            return None
        return self.modes[mode].first_call_extra(ops) / saving

    def with_reader_costs(self, graph_call_s: float | None, eager_op_s: float | None) -> CostModel:
        """The model with a reader's own fixed cost of a ``tf.function`` call (for the plain graph and
        XLA alike) and cost of one eager op (measured on their machine) in place of the fitted ones:
        the two costs every break-even rests on. ``None`` keeps the fitted cost. The simulator's
        inputs do this in the browser."""
        modes = dict(self.modes)
        if graph_call_s is not None:
            # An XLA-compiled function is called through the same tf.function machinery.
            for mode in ("graph", "xla"):
                modes[mode] = replace(modes[mode], call_s=graph_call_s)
        if eager_op_s is not None:
            modes["eager"] = replace(modes["eager"], op_s=eager_op_s)
        return replace(self, modes=modes)

    def to_json(self) -> dict:
        return {"runner": self.runner, "split_elements": SPLIT_ELEMENTS,
                "modes": {m: asdict(c) for m, c in self.modes.items()},
                "fit_error": self.fit_error, "band": self.band, "trace_error": self.trace_error,
                "measured_ops": self.measured_ops, "measured_elements": self.measured_elements}


def fitting_sweeps(results: dict[str, ResultsFile]) -> dict[str, ResultsFile]:
    """The results the model is fitted from, by swept parameter (``n_ops``, ``elements``)."""
    found = {}
    for candidate in results.values():
        layout = candidate.layout
        if isinstance(layout, Sweep) and layout.fits_cost_model and layout.parameter in FIT_PARAMETERS:
            if layout.parameter in found:
                raise ValueError(f"two sweeps over {layout.parameter} claim to fit the cost model: "
                                 f"{found[layout.parameter].example} and {candidate.example}")
            found[layout.parameter] = candidate
    return found


def can_fit(results: dict[str, ResultsFile]) -> bool:
    return set(fitting_sweeps(results)) == set(FIT_PARAMETERS)


@dataclass(frozen=True)
class Point:
    """One measured case of an elementwise chain: its shape and its time per call."""

    example: str
    case: str
    mode: str
    ops: int
    elements: int
    measured_s: float
    first_call_s: float


def workload_shape(results: ResultsFile, params: dict) -> tuple[int, int] | None:
    """(ops per call, elements per tensor) of an elementwise-chain case, or None."""
    ops = params.get("n_ops", results.params.get("ops_per_call", results.params.get("n_ops")))
    elements = params.get("elements")
    if elements is None and "shape" in results.params:
        elements = math.prod(results.params["shape"])
    if ops is None or elements is None or params.get("mode") not in MODES:
        return None
    return int(ops), int(elements)


def chain_points(results: ResultsFile) -> list[Point]:
    """Every case of ``results`` that is an elementwise chain the model describes."""
    points = []
    for case in results.cases:
        shape = workload_shape(results, dict(case.params))
        if shape is not None:
            points.append(Point(results.example, case.label, case.params["mode"], *shape,
                                intervals.estimate_s(case), case.measurement.first_call_s))
    return points


# Each per-call parameter's column in the least-squares fit: its coefficient in the time of a call.
_COLUMNS = {
    "call_s": lambda ops, elements: 1.0,
    "op_s": lambda ops, elements: ops,
    "element_s": lambda ops, elements: ops * elements,
    "split_s": lambda ops, elements: ops if elements >= SPLIT_ELEMENTS else 0.0,
}


def fit_per_call(points: list[Point]) -> dict[str, float]:
    """The per-call parameters minimising the summed squared *relative* miss, all kept ≥ 0.

    Dividing each row by its measured time makes a 10% miss at 50 µs count as much as one at
    15 ms. A parameter the least-squares solution wants below zero is set to zero and the rest
    refitted (a small non-negative least squares): a negative cost has no physical meaning."""
    names = list(_COLUMNS)
    design = np.array([[_COLUMNS[name](p.ops, p.elements) / p.measured_s for name in names] for p in points])
    target = np.ones(len(points))
    # A column no point exercises (no tensor past SPLIT_ELEMENTS) says nothing about its parameter.
    free = [i for i in range(len(names)) if design[:, i].any()]
    while True:
        solution, *_ = np.linalg.lstsq(design[:, free], target, rcond=None)
        if (solution >= 0).all():
            break
        free.pop(int(np.argmin(solution)))
    fitted = dict.fromkeys(names, 0.0)
    fitted.update({names[i]: float(value) for i, value in zip(free, solution)})
    return fitted


def _worst_miss(costs: ModeCosts, points: list[Point]) -> float:
    return max(abs(costs.per_call(p.ops, p.elements) - p.measured_s) / p.measured_s for p in points)


def measured_unlike(results: dict[str, ResultsFile]) -> list[str]:
    """Chains measured differently from the fitting sweeps (a quick run against full ones): left out.

    A quick run times each case for a fraction of a second, so a burst of load on a shared
    machine can fill all of its blocks, 10th percentile included. Set against a model fitted
    to full runs, it measures the machine's load that moment, not the model."""
    quick = {found.quick for found in fitting_sweeps(results).values()}
    return sorted(name for name, found in results.items() if found.quick not in quick and chain_points(found))


def fit(results: dict[str, ResultsFile], runner: str) -> CostModel:
    """Fit every mode's parameters from the op-count and tensor-size sweeps."""
    fitting = fitting_sweeps(results)
    missing = [name for name in FIT_PARAMETERS if name not in fitting]
    if missing:
        raise NotInResults(f"the cost model needs a sweep over {', '.join(missing)} on {runner}")
    fitted_points = chain_points(fitting["n_ops"]) + chain_points(fitting["elements"])
    unlike = measured_unlike(results)
    every_point = [p for name, found in results.items() if name not in unlike for p in chain_points(found)]
    modes, fit_error, band, trace_error = {}, {}, {}, {}
    for mode in MODES:
        own = [p for p in fitted_points if p.mode == mode]
        # Tracing (and compiling) is what the first call costs beyond a later one.
        op_sweep = sorted((p for p in chain_points(fitting["n_ops"]) if p.mode == mode), key=lambda p: p.ops)
        extra = [max(p.first_call_s - p.measured_s, 1e-9) for p in op_sweep]
        trace = sweeps.fit_line([p.ops for p in op_sweep], extra) if mode != "eager" else None
        costs = ModeCosts(**fit_per_call(own),
                          trace_s=max(trace.intercept_s, 0.0) if trace else 0.0,
                          trace_op_s=max(trace.slope_s, 0.0) if trace else 0.0)
        modes[mode] = costs
        fit_error[mode] = _worst_miss(costs, own)
        band[mode] = _worst_miss(costs, [p for p in every_point if p.mode == mode])
        trace_error[mode] = trace.worst_relative_error if trace else 0.0
    return CostModel(runner, modes, fit_error, band, trace_error,
                     measured_ops=max(p.ops for p in every_point),
                     measured_elements=max(p.elements for p in every_point))


class FittedModels(Mapping[str, CostModel]):
    """Each runner's cost model, by runner, fitted from ``results`` the first time one is asked for
    and kept: a build that holds one of these fits once, and not at all when nothing asks. A runner
    without both sweeps has none."""

    def __init__(self, results: Mapping[str, dict[str, ResultsFile]]) -> None:
        self.results = results

    @cached_property
    def fitted(self) -> dict[str, CostModel]:
        return {runner: fit(by_example, runner) for runner, by_example in self.results.items() if can_fit(by_example)}

    def __getitem__(self, runner: str) -> CostModel:
        return self.fitted[runner]

    def __iter__(self) -> Iterator[str]:
        return iter(self.fitted)

    def __len__(self) -> int:
        return len(self.fitted)


@dataclass(frozen=True)
class Prediction(Point):
    """A measured point beside what the model predicts for it; ``held_out``: its example was not fitted on."""

    predicted_s: float
    held_out: bool

    @property
    def relative_error(self) -> float:
        return (self.predicted_s - self.measured_s) / self.measured_s


def validate(model: CostModel, results: dict[str, ResultsFile]) -> tuple[list[Prediction], list[str]]:
    """Predictions for every case the model describes; the examples it does not. Chains measured
    unlike the fitting sweeps (``measured_unlike``) are in neither."""
    predictions, outside = [], []
    fitted = {found.example for found in fitting_sweeps(results).values()}
    unlike = measured_unlike(results)
    for name, found in sorted(results.items()):
        if name in unlike:
            continue
        points = chain_points(found)
        if not points:
            outside.append(name)
        predictions += [Prediction(**asdict(p), predicted_s=model.per_call(p.mode, p.ops, p.elements),
                                   held_out=name not in fitted) for p in points]
    return predictions, outside


@dataclass(frozen=True)
class Misses:
    """How far predictions miss, over a group of them (fitted points, or held-out ones)."""

    count: int
    median: float
    worst: float


def misses(predictions: list[Prediction], held_out: bool) -> Misses | None:
    """The typical and worst relative miss of the fitted (or held-out) predictions; None if none."""
    errors = [abs(p.relative_error) for p in predictions if p.held_out == held_out]
    if not errors:
        return None
    return Misses(len(errors), statistics.median(errors), max(errors))

def break_even(before_s: float, before_first_s: float, after_s: float, after_first_s: float) -> float | None:
    """Calls after which a mode's costlier first call (tracing, compiling) is paid back by its
    cheaper calls, against the mode it replaces; None when it is not cheaper per call."""
    saving = before_s - after_s
    if saving <= 0:
        return None
    extra = after_first_s - before_first_s
    # The tolerance keeps 9 ms ÷ 0.9 ms at 10 calls, not the 11 that rounding error would give.
    return max(1.0, math.ceil(extra / saving - 1e-9)) if extra > 0 else 1.0
