"""``diagnose`` sets the reader's function against the guide's cost model with the model's costs
of an eager op and of a ``tf.function`` call timed on the reader's machine first, and
says which machine each figure is from; where it could not time them, it says the costs are the
guide's machine's and does not lay the difference at the reader's code."""

from __future__ import annotations

import json

import pytest

from conftest import synthetic_results
from tfspeedlab.core.results.schema import from_dict
from tfspeedlab.diagnosis import function as diagnose_module
from tfspeedlab.diagnosis.calibration import measure_machine_costs
from tfspeedlab.diagnosis.codec import UNSAVED, from_results, to_json
from tfspeedlab.diagnosis.function_core import CALIBRATION_PART, Calibration, MachineCosts, Placement
from tfspeedlab.diagnosis.report import function_report
from tfspeedlab.diagnosis.verdict import placement_reading
from tfspeedlab.harness import machine

ENVIRONMENT = synthetic_results().environment
ROOMY_BUDGET_S = 60.0
PER_MODE = {"eager": 1e-4, "tf.function": 1e-4, "XLA": 1e-4}


@pytest.mark.slow  # TensorFlow's runtime started
def test_this_machines_two_costs_are_timed_as_the_simulator_page_times_them():
    found = measure_machine_costs(0.2)
    # One ReLU on a 10 × 10 tensor and an empty tf.function call: microseconds to a millisecond on any
    # machine this runs on, however loaded; what is checked is that each is a time per call, not a sum.
    assert 1e-7 < found.eager_op_s < 1e-2 and 1e-7 < found.graph_call_s < 1e-2


def _placement(calibration):
    return Placement("cpu", "Guide CPU", 50, 100, dict(PER_MODE), {"eager": 0.2, "tf.function": 0.2, "XLA": 0.2},
                     False, calibration)


def test_without_this_machines_costs_a_cheap_reading_is_not_laid_at_the_readers_code():
    reading = placement_reading(_placement(None), 0.1)
    assert "on the guide's machine" in reading and "or this machine issues ops in less time" in reading
    timed = Calibration("Reader CPU", MachineCosts(1e-5, 1e-4), MachineCosts(2e-5, 2e-4))
    reading = placement_reading(_placement(timed), 0.1)
    assert "on this machine" in reading and "cheaper to issue than a multiply" in reading


@pytest.mark.slow  # three modes timed, and this machine's two costs
class TestOnThisMachine:
    @pytest.fixture(autouse=True)
    def small_timing_share(self, monkeypatch):
        # As in test_diagnose.py: the timed blocks take a small share, and the profiler is left out.
        monkeypatch.setattr(diagnose_module, "TIMING_SHARE", 0.02)
        monkeypatch.setattr(diagnose_module, "PROFILE_FIXED_S", float("inf"))

    @staticmethod
    def many_small_ops(x):
        import tensorflow as tf

        for _ in range(20):
            x = tf.nn.relu(x * 0.99 + 0.01)
        return x

    def diagnosis(self, budget_s=ROOMY_BUDGET_S):
        import tensorflow as tf

        return diagnose_module.diagnose(self.many_small_ops, tf.ones([10, 10]), budget_s=budget_s)

    def test_the_prediction_uses_this_machines_costs_and_the_report_names_both_machines(self):
        found = self.diagnosis()
        placement = found.placement
        timed = placement.calibration
        assert timed is not None and timed.cpu == machine.cpu_model()
        fitted = diagnose_module.guide_cost_model()
        assert timed.guide == MachineCosts(fitted.model.modes["eager"].op_s, fitted.model.modes["graph"].call_s)
        mine = fitted.model.with_reader_costs(graph_call_s=timed.here.graph_call_s, eager_op_s=timed.here.eager_op_s)
        assert placement.predicted_s["eager"] == pytest.approx(mine.per_call("eager", placement.ops, placement.elements))
        assert placement.predicted_s["tf.function"] == pytest.approx(
            mine.per_call("graph", placement.ops, placement.elements))
        text = " ".join(function_report(found).text().split())
        assert f"timed on this machine, {timed.cpu}" in text and f"runner, {placement.fitted_on}" in text
        assert "on the guide's" in text and CALIBRATION_PART not in found.skipped
        again = from_results(from_dict(json.loads(json.dumps(to_json(found, ENVIRONMENT))), UNSAVED))
        assert again.placement == placement

    def test_a_budget_with_no_room_for_them_keeps_the_guides_costs_and_says_so(self, monkeypatch):
        monkeypatch.setattr(diagnose_module, "CALIBRATION_S", (1000.0, 1000.0))
        found = self.diagnosis()
        assert found.placement is not None and found.placement.calibration is None
        assert found.skipped[CALIBRATION_PART].startswith("the budget was spent")
        text = " ".join(function_report(found).text().split())
        assert "every cost fitted on the guide's CPU runner" in text

    def test_a_diagnosis_kept_before_these_costs_were_timed_still_loads(self):
        data = json.loads(json.dumps(to_json(self.diagnosis(), ENVIRONMENT)))
        del data["diagnosis"]["placement"]["calibration"]
        assert from_results(from_dict(data, UNSAVED)).placement.calibration is None
