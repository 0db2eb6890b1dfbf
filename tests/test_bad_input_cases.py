"""Cases a page could not tell apart: a label given twice, two cases on one coordinate of a grid, a
sweep or op layers. Pages find a case by its label or its coordinate, so the second of two would be
read silently (a grid kept the last case of a cell: on the CPU settings page, every setting then read
~10× faster than the default). Each is refused at load in one line naming the file and the field,
and a workload that would write one is refused before it runs."""

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO
from tfspeedlab.core.results.schema import ResultsFileError
from tfspeedlab.core.results.store import load_results
from tfspeedlab.core.spec.layout import Grid, Sweep
from tfspeedlab.core.spec.workload import Case, Workload
from tfspeedlab.site import site_data

COMMITTED = REPO / "results" / "cpu"


def _edited(tmp_path: Path, example: str, change) -> Path:
    """The committed ``example`` file with ``change`` applied to its JSON, in a tree of its own."""
    data = json.loads((COMMITTED / f"{example}.json").read_text())
    change(data)
    path = tmp_path / "cpu" / f"{example}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _refusal(path: Path) -> ResultsFileError:
    with pytest.raises(ResultsFileError) as raised:
        load_results(path)
    assert "\n" not in str(raised.value) and str(path) in str(raised.value)
    return raised.value


def test_a_grid_case_on_the_coordinate_of_another_is_refused_naming_both(tmp_path):
    moved = []

    def onto_the_default(data):
        # The last "inter 1 · intra 1" case moved onto the default row of its column.
        moved.append(max(i for i, case in enumerate(data["cases"]) if case["params"]["setting"] == "inter 1 · intra 1"))
        data["cases"][moved[0]]["params"]["setting"] = "default"

    error = _refusal(_edited(tmp_path, "cpu_settings", onto_the_default))
    assert error.field == f"cases[{moved[0]}].params"
    assert "grid coordinate of cases[" in str(error) and "setting='default'" in str(error)


def test_a_label_given_twice_is_refused_at_load(tmp_path):
    def twice(data):
        data["cases"][2]["label"] = data["cases"][1]["label"]

    error = _refusal(_edited(tmp_path, "small_ops", twice))
    assert error.field == "cases[2].label" and "cases[1]" in str(error) and "unique" in str(error)


def test_a_sweep_point_measured_twice_is_refused(tmp_path):
    def onto_the_first(data):
        layout, first = data["layout"], data["cases"][0]["params"]
        for name in (layout["series"], layout["parameter"]):
            data["cases"][-1]["params"][name] = first[name]
        moved.append(len(data["cases"]) - 1)

    moved = []
    error = _refusal(_edited(tmp_path, "op_chain", onto_the_first))
    assert error.field == f"cases[{moved[0]}].params" and "sweep coordinate of cases[0]" in str(error)


def test_the_site_build_stops_on_a_grid_with_two_cases_in_one_cell(tmp_path):
    root = tmp_path / "results"
    shutil.copytree(REPO / "results", root)
    path = root / "cpu" / "cpu_settings.json"
    data = json.loads(path.read_text())
    data["cases"][-1]["params"]["setting"] = "default"
    data["cases"][-1]["params"]["workload"] = data["cases"][0]["params"]["workload"]
    path.write_text(json.dumps(data))
    with pytest.raises(site_data.SiteDataError, match=r"cpu_settings.json: field 'cases\[\d+\].params'"):
        site_data.load(root)


def test_a_workload_with_two_cases_on_one_coordinate_is_refused_before_it_runs():
    def case(label, **params):
        return Case(label, fn=lambda: None, params=params)

    with pytest.raises(ValueError, match="'a' and 'b' sit on one grid coordinate"):
        Workload("demo", "Demo", [case("a", mode="eager", size=1), case("b", mode="eager", size=1)],
                 layout=Grid(rows="mode", columns="size"))
    with pytest.raises(ValueError, match="sweep coordinate"):
        Workload("demo", "Demo", [case("a", mode="eager", n=1), case("b", mode="eager", n=1.0)],
                 layout=Sweep(parameter="n"))
    Workload("demo", "Demo", [case("a", mode="eager", size=1), case("b", mode="graph", size=1)],
             layout=Grid(rows="mode", columns="size"))  # one case per cell is fine
