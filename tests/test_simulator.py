"""The cost model: its fit, its agreement with the page's JavaScript, and the page in a real browser."""

import json
import math
import shutil
import subprocess

import pytest

from conftest import REPO
from tfspeedlab.analysis import cost_model, sweeps
from tfspeedlab.results.store import load_runner

SIMULATOR_JS = REPO / "docs" / "assets" / "javascripts" / "simulator.js"
GRID = [(ops, side * side, calls) for ops in (1, 7, 150, 2000) for side in (1, 10, 300) for calls in (1, 50, 10**5)]


@pytest.fixture(scope="module")
def fitted(quick_results):
    return cost_model.fit(load_runner(quick_results / "cpu"), "cpu")


def test_fit_recovers_the_sweeps_it_came_from(fitted, quick_results):
    results = load_runner(quick_results / "cpu")
    predictions, outside = cost_model.validate(fitted, results)
    assert {"op_chain", "elementwise_size", "small_ops", "holdout"} <= {p.example for p in predictions}
    assert "matmul" in outside and "train_step" in outside
    assert not any(p.held_out for p in predictions if p.example in {r.example for r in cost_model.fitting_sweeps(results).values()})
    # On the op-count sweep, call + ops · (op + element · elements) is that sweep's own fitted line, so
    # the model misses its points exactly as that line does, and by no more than the fit error it
    # reports. A fixed cost or a per-op cost that noise fits below zero is clamped to zero, moving the
    # model off the line: that mode is then only held to its reported error.
    op_sweep = cost_model.fitting_sweeps(results)["n_ops"]
    checked = [p for p in predictions if p.example == op_sweep.example]
    assert {p.mode for p in checked} == set(cost_model.MODES) and len(checked) >= 3 * len(cost_model.MODES)
    for p in checked:
        line = sweeps.mode_fit(op_sweep, p.mode)
        assert line.worst_relative_error <= fitted.fit_error[p.mode]
        if line.intercept_s >= 0 and fitted.modes[p.mode].op_s > 0:
            assert abs(p.relative_error) <= line.worst_relative_error + 1e-9, (p, line)
    # Eager pays per op far more than a graph does: the whole point of the guide.
    assert fitted.modes["eager"].op_s > 5 * fitted.modes["graph"].op_s
    assert fitted.modes["graph"].trace_s > 0


def test_break_even_and_payback_follow_from_the_parameters(fitted):
    k = fitted.break_even_ops(100)
    assert k is not None
    assert fitted.per_call("eager", k, 100) == pytest.approx(fitted.per_call("graph", k, 100), rel=1e-9)
    calls = fitted.payback_calls(500, 100)
    saving = fitted.per_call("eager", 500, 100) - fitted.per_call("graph", 500, 100)
    assert calls * saving == pytest.approx(fitted.modes["graph"].first_call_extra(500))


def test_javascript_and_python_agree_on_a_grid(fitted):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = (
        f"const m = require({json.dumps(str(SIMULATOR_JS))});"
        f"const model = {json.dumps(fitted.to_json())};"
        f"const grid = {json.dumps(GRID)};"
        "console.log(JSON.stringify(grid.map(([k, e, n]) => m.predict(model, k, e, n))));"
    )
    completed = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60, check=True)
    for (ops, elements, calls), js in zip(GRID, json.loads(completed.stdout)):
        for mode in cost_model.MODES:
            assert js["perCall"][mode] == pytest.approx(fitted.per_call(mode, ops, elements), rel=1e-12)
            assert js["total"][mode] == pytest.approx(fitted.total(mode, ops, elements, calls), rel=1e-12)
        python_break_even = fitted.break_even_ops(elements)
        assert (js["breakEvenOps"] is None) == (python_break_even is None)
        if python_break_even is not None:
            assert js["breakEvenOps"] == pytest.approx(python_break_even, rel=1e-12)
        python_payback = fitted.payback_calls(ops, elements)
        assert (js["paybackCalls"] is None) == (python_payback is None)
        if python_payback is not None:
            assert js["paybackCalls"] == pytest.approx(python_payback, rel=1e-12)
        assert not math.isnan(js["speedupGraph"])
