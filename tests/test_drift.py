"""The drift between sittings: estimated net of each sitting's own noise, widening every interval of its
machine, checked only against sittings it was not estimated from, and only on the same CPU."""

import json
import math
import shutil
from dataclasses import replace

import numpy as np
import pytest

from conftest import REPO, synthetic_results
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.cpu import cpu_description, same_cpu
from tfspeedlab.core.results.schema import CaseResult, ResultsFileError
from tfspeedlab.core.spec.layout import Sweep
from tfspeedlab.core.stats import intervals, sweeps
from tfspeedlab.fairness import drift
from tfspeedlab.site import site_data

ZEN5 = {"cpu_model": "AMD EPYC", "cpu_flags": ["avx2", "avx512f", "avx_vnni"], "cpu_family": 26,
        "cpu_model_number": 2, "cpu_stepping": 1}
ZEN4 = {"cpu_model": "AMD EPYC", "cpu_flags": ["avx2", "avx512f"]}


def sitting(graph_scale, when, cpu=ZEN5, seed=0, example="small_ops"):
    """small_ops-shaped results of one sitting: eager at 10 ms, graph at ``graph_scale``, three processes."""
    rng = np.random.default_rng(seed)

    def runs(scale):
        return tuple(Measurement(tuple(scale * (1 + 0.02 * rng.random(20))), 10, scale, "test") for _ in range(3))

    cases = (CaseResult("eager", {"mode": "eager"}, runs(10e-3)), CaseResult("graph", {"mode": "graph"}, runs(graph_scale)),
             CaseResult("xla", {"mode": "xla"}, runs(graph_scale / 2)))
    base = synthetic_results(example=example)
    return replace(base, cases=cases, quick=False, environment={**base.environment, **cpu, "utc_time": when})


def test_the_same_cpu_needs_the_same_instruction_sets_and_ids():
    assert same_cpu(ZEN5, dict(ZEN5))
    assert not same_cpu(ZEN5, ZEN4)  # one model name, two generations
    assert not same_cpu(ZEN5, {**ZEN5, "cpu_stepping": 2})
    assert same_cpu(ZEN5, {k: v for k, v in ZEN5.items() if k != "cpu_stepping"})  # compared where both say
    assert not same_cpu(ZEN5, {"cpu_model": "AMD EPYC"})  # recorded no flags: cannot be told the same
    assert same_cpu({"cpu_model": "Test CPU"}, {"cpu_model": "Test CPU"})
    assert cpu_description(ZEN5) == "AMD EPYC (family 26, model 2, stepping 1; AVX2, AVX-512, AVX-VNNI)"


def test_drift_is_what_sittings_move_beyond_their_own_noise():
    committed = sitting(1e-3, "2026-12-02T10:00:00+00:00")
    quiet = [sitting(1e-3, f"2026-12-02T1{hour}:00:00+00:00", seed=hour) for hour in (1, 2)]
    moved = [sitting(1e-3 * factor, f"2026-12-02T1{hour}:00:00+00:00", seed=hour)
             for hour, factor in ((1, 1.25), (2, 0.8))]
    still = drift.for_runner({"small_ops": committed}, {str(i): {"small_ops": s} for i, s in enumerate(quiet)})
    shifted = drift.for_runner({"small_ops": committed}, {str(i): {"small_ops": s} for i, s in enumerate(moved)})
    assert still["small_ops"].typical_move < 0.02
    # The graph and XLA rungs moved by ln 1.25 and ln 0.8 (about 0.22 each way) in both sittings:
    # (0.22² ÷ 2) per deviation, so about 0.16 of drift.
    assert 0.13 < shifted["small_ops"].log_sd < 0.18 and shifted["small_ops"].own
    assert shifted["small_ops"].deviations == 4
    # Its t counts the two sittings, not the four deviations: one sitting's deviations share its shift.
    assert shifted["small_ops"].degrees_of_freedom == 2
    assert shifted["small_ops"].quantile == pytest.approx(4.303)


def test_an_example_without_sittings_takes_the_pooled_drift_and_none_without_any():
    committed = {"small_ops": sitting(1e-3, "2026-12-02T10:00:00+00:00"),
                 "matmul": sitting(1e-3, "2026-12-02T10:00:00+00:00", example="matmul")}
    sittings = {"2026-12-02T1100": {"small_ops": sitting(1.3e-3, "2026-12-02T11:00:00+00:00", seed=1)}}
    found = drift.for_runner(committed, sittings)
    assert found["matmul"].log_sd == found["small_ops"].log_sd > 0 and not found["matmul"].own
    assert drift.for_runner(committed, {}) == {}


def test_a_sitting_on_another_cpu_or_pooled_into_the_committed_file_does_not_count():
    committed = sitting(1e-3, "2026-12-02T10:00:00+00:00")
    other_cpu = sitting(1.5e-3, "2026-12-02T11:00:00+00:00", cpu=ZEN4)
    assert drift.for_runner({"small_ops": committed}, {"a": {"small_ops": other_cpu}}) == {}
    pooled = replace(committed, environment={**committed.environment,
                                             "sittings": ["2026-12-02T10:00:00+00:00", "2026-12-02T11:00:00+00:00"]})
    again = sitting(1.5e-3, "2026-12-02T11:00:00+00:00")
    assert drift.remeasures_of("small_ops", pooled, {"a": {"small_ops": again}}) == {}


def test_attached_drift_widens_every_interval_drawn_from_the_file_and_keeps_the_value():
    committed = sitting(1e-3, "2026-12-02T10:00:00+00:00")
    moved = {"a": {"small_ops": sitting(1.3e-3, "2026-12-02T11:00:00+00:00", seed=1)}}
    found = drift.for_runner({"small_ops": committed}, moved)
    attached = drift.attach({"small_ops": committed}, found)["small_ops"]
    before = intervals.speedup(committed, "eager", "graph")
    after = intervals.speedup(attached, "eager", "graph")
    assert after.value == before.value and after.drift == found["small_ops"].log_sd
    quantile = intervals.t975(1)  # one re-measure sitting
    widened = math.sqrt(math.log(before.high / before.value) ** 2 + (quantile * after.drift) ** 2)
    assert math.log(after.high / after.value) == pytest.approx(widened)
    assert after.low < before.low and after.high > before.high
    # Either way round, one answer.
    turned = intervals.speedup(attached, "graph", "eager")
    assert turned.low == pytest.approx(1 / after.high) and turned.high == pytest.approx(1 / after.low)
    # The other methods keep one sitting's interval.
    assert intervals.ratio(attached.case("eager"), attached.case("graph"), "wider of both") == replace(before, drift=0.0)


def test_coverage_checks_each_sitting_against_a_drift_estimated_without_it():
    committed = {"small_ops": sitting(1e-3, "2026-12-02T10:00:00+00:00")}
    sittings = {"A": {"small_ops": sitting(1.3e-3, "2026-12-02T11:00:00+00:00", seed=1)},
                "B": {"small_ops": sitting(1.0e-3, "2026-12-02T12:00:00+00:00", seed=2)}}
    landed = drift.held_out_landings(committed, sittings)["small_ops"]
    # B is checked against the drift A shows (wide), so lands inside; A against B's (none), so it misses.
    by_value = {round(landing.remeasured[0], 1): landing.inside for landing in landed if "graph" in landing.comparison.faster}
    assert by_value == {round(10 / 1.3, 1): 0, 10.0: 1}


def test_refuses_no_degrees_of_freedom_and_is_normal_past_thirty():
    with pytest.raises(ValueError):
        intervals.t975(0)
    assert intervals.t975(1) == 12.706 and intervals.t975(31) == intervals.NORMAL_975


def test_a_sweep_table_and_a_sentence_quoting_one_of_its_points_give_one_interval():
    # The sweep's speed-ups come from its cases, so the drift attached to them widens the table's
    # intervals as it widens the `factor` directive's (before, the table took the bare measurements).
    rng = np.random.default_rng(3)

    def runs(scale):
        return tuple(Measurement(tuple(scale * (1 + 0.05 * rng.random(20))), 10, scale, "test") for _ in range(3))

    cases = tuple(CaseResult(f"{mode} {n}", {"mode": mode, "n_ops": n}, runs(scale * n if mode == "eager" else scale))
                  for n in (1, 10, 100) for mode, scale in (("eager", 5e-5), ("graph", 3e-4)))
    base = synthetic_results(example="op_chain")
    sweep_file = replace(base, cases=cases, layout=Sweep("n_ops", baseline="eager"))
    widened = replace(sweep_file, cases=tuple(replace(case, drift=(0.05, 12)) for case in cases))
    for n, found in sweeps.speedups(widened, "graph", "eager"):
        quoted = intervals.speedup(widened, f"eager {n}", f"graph {n}")
        assert (found.low, found.value, found.high) == (quoted.low, quoted.value, quoted.high)
        bare = dict(sweeps.speedups(sweep_file, "graph", "eager"))[n]
        assert found.low < bare.low and found.high > bare.high


def test_the_release_history_is_widened_by_the_pooled_drift():
    """A release's passes are sittings on a machine no re-measure checked: its intervals take the
    drift pooled over the re-measured examples, as a committed file on another CPU does."""
    from tfspeedlab.core.results.history import ReleaseResults
    from tfspeedlab.core.spec.releases import Release

    committed = {"small_ops": sitting(1e-3, "2026-12-02T10:00:00+00:00"),
                 "matmul": sitting(1e-3, "2026-12-02T10:00:00+00:00", example="matmul")}
    sittings = {"2026-12-02T1100": {"small_ops": sitting(1.3e-3, "2026-12-02T11:00:00+00:00", seed=1)}}
    drifts = drift.for_runner(committed, sittings)
    release = sitting(1e-3, "2026-11-30T18:00:00+00:00", seed=3)
    history = [ReleaseResults(Release(2, 21), {"small_ops": release})]
    widened = drift.attach_history(history, drifts)[0].results["small_ops"]
    pooled = drifts["matmul"]
    assert all(case.drift == pooled.widening for case in widened.cases)
    before, after = intervals.speedup(release, "eager", "graph"), intervals.speedup(widened, "eager", "graph")
    assert after.value == before.value and after.low < before.low and after.high > before.high
    # No re-measures anywhere: the history keeps one sitting's intervals.
    assert drift.attach_history(history, {}) is history


# ------------------------------------------------------------ what counts as a re-measure

COMMITTED_TIME, SITTING_TIME = "2026-12-02T10:00:00+00:00", "2026-12-02T11:00:00+00:00"


def _refused(committed, again) -> ResultsFileError:
    """The refusal of ``again`` as a re-measure of ``committed``, wherever the drift reads sittings."""
    with pytest.raises(ResultsFileError) as raised:
        drift.for_runner({"small_ops": committed}, {"a": {"small_ops": again}})
    with pytest.raises(ResultsFileError):
        drift.same_machine(committed, again)
    assert "\n" not in str(raised.value)
    return raised.value


def test_a_quick_sitting_is_refused_not_counted_as_a_re_measure():
    # Before, a quick run (one process, shorter blocks) counted as a sitting of the machine: it
    # inflated the drift and widened every interval of the machine (small-ops [22.8–30.6×] became
    # [12.2–57.1×]).
    committed = sitting(1e-3, COMMITTED_TIME)
    quick = replace(sitting(1.6e-3, SITTING_TIME, seed=1), quick=True)
    error = _refused(committed, quick)
    assert error.field == "quick" and "is true" in str(error) and "full run" in str(error)


def test_a_sitting_of_other_workload_parameters_is_refused_naming_the_parameter():
    committed = sitting(1e-3, COMMITTED_TIME)
    again = sitting(1e-3, SITTING_TIME, seed=1)
    error = _refused(committed, replace(again, params={**again.params, "n": 20000}))
    assert error.field == "params.n" and "20000" in str(error)
    moved = replace(again, cases=(again.cases[0], replace(again.cases[1], params={"mode": "graph", "size": 2}),
                                  again.cases[2]))
    assert _refused(committed, moved).field == "cases[1].params"


def test_a_sitting_timed_in_fewer_processes_is_refused():
    committed = sitting(1e-3, COMMITTED_TIME)
    again = sitting(1e-3, SITTING_TIME, seed=1)
    one_process = replace(again, cases=tuple(replace(case, runs=case.runs[:1]) for case in again.cases))
    error = _refused(committed, one_process)
    assert error.field == "cases[0].runs" and "1 process(es) per sitting" in str(error) and "in 3" in str(error)


def test_a_narrowed_sitting_and_one_pooled_from_two_of_the_same_size_still_count():
    committed = sitting(1e-3, COMMITTED_TIME)
    again = sitting(1.2e-3, SITTING_TIME, seed=1)
    narrowed = replace(again, params={**again.params, "only": {"mode": "graph"}}, cases=again.cases[:2])
    assert drift.same_machine(committed, narrowed)
    later = sitting(1.2e-3, "2026-12-02T12:00:00+00:00", seed=2)
    pooled = replace(again, cases=tuple(replace(case, runs=case.runs + other.runs)
                                        for case, other in zip(again.cases, later.cases)),
                     environment={**again.environment, "sitting_runs": [3, 3],
                                  "sittings": [SITTING_TIME, "2026-12-02T12:00:00+00:00"]})
    assert drift.same_machine(committed, pooled)
    assert drift.for_runner({"small_ops": committed}, {"a": {"small_ops": narrowed}, "b": {"small_ops": pooled}})


def test_the_build_refuses_a_quick_coverage_sitting_naming_its_file(tmp_path):
    root = tmp_path / "results"
    shutil.copytree(REPO / "results", root)
    sittings = sorted((root / "cpu" / "coverage").glob("*/small_ops.json"))
    path = sittings[-1]
    data = json.loads(path.read_text())
    data["quick"] = True
    path.write_text(json.dumps(data))
    with pytest.raises(site_data.SiteDataError) as raised:
        site_data.load(root)
    assert f"{path}: field 'quick' is true" in str(raised.value) and "\n" not in str(raised.value)


def test_the_drift_is_estimated_once_per_samples_and_afresh_for_changed_ones(monkeypatch):
    committed = {"small_ops": sitting(1e-3, "2026-12-02T10:00:00+00:00")}
    sittings = {str(hour): {"small_ops": sitting(1e-3 * factor, f"2026-12-02T1{hour}:00:00+00:00", seed=hour)}
                for hour, factor in ((1, 1.25), (2, 0.8), (3, 1.1))}
    drift.LOG_AND_VARIANCE_CACHE.clear()
    counted, estimator = [], drift.PER_CALL

    class Counted:
        def of(self, runs):
            counted.append(len(runs))
            return estimator.of(runs)

    first = drift.held_out_landings(committed, sittings)
    monkeypatch.setattr(drift, "PER_CALL", Counted())
    assert drift.held_out_landings(committed, sittings) == first and counted == []  # every sitting left out in turn
    changed = {**sittings, "3": {"small_ops": sitting(1e-3 * 1.3, "2026-12-02T13:00:00+00:00", seed=3)}}
    again = drift.for_runner(committed, changed)
    assert counted  # the changed sitting's samples: estimated afresh
    monkeypatch.undo()
    drift.LOG_AND_VARIANCE_CACHE.clear()
    assert drift.for_runner(committed, changed) == again != drift.for_runner(committed, sittings)
