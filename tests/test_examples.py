import subprocess
import sys

import pytest

from conftest import REPO
from tfspeedlab import catalog
from tfspeedlab.results import load_results

EXAMPLES = sorted(catalog.discover())


def test_there_are_examples():
    assert "small_ops" in EXAMPLES


@pytest.mark.parametrize("name", EXAMPLES)
def test_quick_run_writes_a_valid_results_file(quick_results, name):
    results = load_results(quick_results / "cpu" / f"{name}.json")
    assert results.example == name and results.runner == "cpu" and results.quick
    assert results.environment["tensorflow"]
    for case in results.cases:
        assert case.measurement.blocks >= 5
        assert case.measurement.first_call_s > 0


def test_small_ops_measures_every_mode(quick_results):
    results = load_results(quick_results / "cpu" / "small_ops.json")
    assert [case.label for case in results.cases] == ["eager", "graph", "xla"]
    assert results.params["ops_per_call"] == 150
    assert results.case("graph").measurement.tracing_count == 1
    assert results.baseline == "eager"


def test_small_ops_modes_compute_the_same_thing():
    module = catalog.discover()["small_ops"].load()
    workload = module.workload(quick=True)
    outputs = [case.fn(*case.args).numpy() for case in workload.cases]
    for output in outputs[1:]:
        assert abs(output - outputs[0]).max() < 1e-5


def test_example_runs_as_a_plain_script_and_prints_its_table():
    completed = subprocess.run(
        [sys.executable, "examples/small_ops.py", "--quick"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "Median per call" in completed.stdout
    for mode in ("eager", "graph", "xla"):
        assert f"\n{mode} " in completed.stdout
