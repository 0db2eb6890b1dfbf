"""A cost model of eager, graph and XLA calls, fitted from measured results.

For a function of ``ops`` elementwise ops on tensors of ``elements`` elements,
one call in mode m costs

    call_m + ops · (op_m + element_m · elements)

``call_m`` is the fixed cost of entering the mode (a ``tf.function`` call),
``op_m`` the cost of issuing one op (Python and dispatch eagerly, executor
scheduling in a graph), ``element_m`` the kernels' cost per element. The
first call adds ``trace_m + trace_op_m · ops``: tracing, and for XLA
compiling. Parameters come from the two sweeps of ``results/<runner>/``
whose ``Sweep`` layout says ``fits_cost_model``:

* the sweep over ``n_ops`` (fixed ``shape``): slope = op + element · elements,
  intercept = call, and the first calls give the tracing line;
* the sweep over ``elements`` (fixed ``n_ops``): slope = n_ops · element.

The same formulas are implemented in JavaScript for the simulator page
(``docs/assets/javascripts/simulator.js``); a test checks that both agree.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from tfspeedlab.analysis import sweeps
from tfspeedlab.results.schema import ResultsFile
from tfspeedlab.spec.layout import Sweep

MODES = ("eager", "graph", "xla")
# The swept case parameters the two fitting sweeps run along.
FIT_PARAMETERS = ("n_ops", "elements")


@dataclass(frozen=True)
class ModeCosts:
    call_s: float
    op_s: float
    element_s: float
    trace_s: float
    trace_op_s: float

    def per_call(self, ops: float, elements: float) -> float:
        return self.call_s + ops * (self.op_s + self.element_s * elements)

    def first_call_extra(self, ops: float) -> float:
        return self.trace_s + self.trace_op_s * ops


@dataclass(frozen=True)
class CostModel:
    runner: str
    modes: dict[str, ModeCosts]
    # Worst relative miss of each mode's fitted lines on the points they were fitted to.
    fit_error: dict[str, float]

    def per_call(self, mode: str, ops: float, elements: float) -> float:
        return self.modes[mode].per_call(ops, elements)

    def total(self, mode: str, ops: float, elements: float, calls: int) -> float:
        """``calls`` calls, the first one paying for tracing (and compiling)."""
        return self.modes[mode].first_call_extra(ops) + calls * self.per_call(mode, ops, elements)

    def break_even_ops(self, elements: float, mode: str = "graph") -> float | None:
        """Ops per call above which ``mode`` beats eager; None if it never does."""
        eager, other = self.modes["eager"], self.modes[mode]
        per_op_saving = (eager.op_s + eager.element_s * elements) - (other.op_s + other.element_s * elements)
        if per_op_saving <= 0:
            return None
        return max((other.call_s - eager.call_s) / per_op_saving, 0.0)

    def payback_calls(self, ops: float, elements: float, mode: str = "graph") -> float | None:
        """Calls after which ``mode``'s tracing has paid for itself; None if never."""
        saving = self.per_call("eager", ops, elements) - self.per_call(mode, ops, elements)
        if saving <= 0:
            return None
        return self.modes[mode].first_call_extra(ops) / saving

    def to_json(self) -> dict:
        return {"runner": self.runner, "modes": {m: asdict(c) for m, c in self.modes.items()},
                "fit_error": self.fit_error}


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


def fit(results: dict[str, ResultsFile], runner: str) -> CostModel:
    """Fit every mode's parameters from the op-count and tensor-size sweeps."""
    fitting = fitting_sweeps(results)
    missing = [name for name in FIT_PARAMETERS if name not in fitting]
    if missing:
        raise KeyError(f"the cost model needs a sweep over {', '.join(missing)} on {runner}")
    op_chain, sizes = fitting["n_ops"], fitting["elements"]
    chain_elements = math.prod(op_chain.params["shape"])
    sweep_ops = sizes.params["n_ops"]
    modes, errors = {}, {}
    for mode in MODES:
        by_ops = sweeps.mode_fit(op_chain, mode)
        by_elements = sweeps.mode_fit(sizes, mode)
        element_s = max(by_elements.slope_s / sweep_ops, 0.0)
        points = sweeps.sweep(op_chain, mode)
        # Tracing (and compiling) is what the first call costs beyond a later one.
        extra = [max(m.first_call_s - m.median_s, 1e-9) for _, m in points]
        trace = sweeps.fit_line([x for x, _ in points], extra) if mode != "eager" else None
        modes[mode] = ModeCosts(
            call_s=max(by_ops.intercept_s, 0.0),
            op_s=max(by_ops.slope_s - element_s * chain_elements, 0.0),
            element_s=element_s,
            trace_s=max(trace.intercept_s, 0.0) if trace else 0.0,
            trace_op_s=max(trace.slope_s, 0.0) if trace else 0.0,
        )
        errors[mode] = max(by_ops.worst_relative_error, by_elements.worst_relative_error)
    return CostModel(runner, modes, errors)


@dataclass(frozen=True)
class Prediction:
    example: str
    case: str
    mode: str
    ops: int
    elements: int
    measured_s: float
    predicted_s: float
    held_out: bool

    @property
    def relative_error(self) -> float:
        return (self.predicted_s - self.measured_s) / self.measured_s


def workload_shape(results: ResultsFile, params: dict) -> tuple[int, int] | None:
    """(ops per call, elements per tensor) of an elementwise-chain case, or None."""
    ops = params.get("n_ops", results.params.get("ops_per_call", results.params.get("n_ops")))
    elements = params.get("elements")
    if elements is None and "shape" in results.params:
        elements = math.prod(results.params["shape"])
    if ops is None or elements is None or params.get("mode") not in MODES:
        return None
    return int(ops), int(elements)


def validate(model: CostModel, results: dict[str, ResultsFile]) -> tuple[list[Prediction], list[str]]:
    """Predictions for every case the model describes; the examples it does not."""
    predictions, outside = [], []
    fitted = {found.example for found in fitting_sweeps(results).values()}
    for name, found in sorted(results.items()):
        rows = []
        for case in found.cases:
            shape = workload_shape(found, dict(case.params))
            if shape is None:
                continue
            ops, elements = shape
            mode = case.params["mode"]
            rows.append(Prediction(name, case.label, mode, ops, elements, case.measurement.median_s,
                                   model.per_call(mode, ops, elements), name not in fitted))
        if rows:
            predictions += rows
        else:
            outside.append(name)
    return predictions, outside
