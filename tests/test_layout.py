"""Layouts: their JSON record in a results file, its validation, and the case parameters they need."""

import json
from dataclasses import replace

import pytest

from conftest import synthetic_results
from tfspeedlab.core.results import schema
from tfspeedlab.core.spec.layout import Cases, Grid, LayoutError, OpLayers, PerOp, Sweep, from_record, to_record
from tfspeedlab.core.spec.workload import Case, Workload

LAYOUTS = {
    "cases": Cases(),
    "sweep": Sweep("n_ops", series="mode", baseline="eager", fits_cost_model=True),
    "sweep, defaults": Sweep("elements"),
    "grid": Grid(rows="mode", columns="workload", baseline="NumPy", time_per="call"),
    "grid with per-op column": Grid(rows="mode", columns="workload", baseline="eager",
                                    per_op=PerOp(column="150 small ops", ops=150, step_column="training step",
                                                 op_by_op="eager_like")),
    "op layers": OpLayers(top_entries=("tf.add", "x + y", "tf.raw_ops.AddV2"), wrapper="gen_math_ops.add_v2",
                          fast_path="TFE_Py_FastPathExecute", kernel="graph chain", empty_call="empty call",
                          entry="entry point", size="n", chain="length"),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_every_layout_survives_a_trip_through_json(name):
    layout = LAYOUTS[name]
    record = json.loads(json.dumps(to_record(layout)))
    assert record["kind"] == layout.kind
    again = from_record(record)
    assert again == layout and type(again) is type(layout)


def test_records_spell_out_every_field():
    assert to_record(Cases()) == {"kind": "cases"}
    assert to_record(LAYOUTS["grid with per-op column"])["per_op"] == {
        "column": "150 small ops", "ops": 150, "step_column": "training step", "op_by_op": "eager_like"}
    assert to_record(LAYOUTS["op layers"])["top_entries"] == ["tf.add", "x + y", "tf.raw_ops.AddV2"]


def test_omitted_fields_take_their_defaults():
    assert from_record({"kind": "sweep", "parameter": "n_ops"}) == Sweep("n_ops", "mode", None, False)


SWEEP = {"kind": "sweep", "parameter": "n_ops"}
GRID = {"kind": "grid", "rows": "mode", "columns": "workload"}
PER_OP = {"column": "loop", "ops": 150, "step_column": "step"}


@pytest.mark.parametrize("record, message", [
    (["sweep"], "must be a JSON object"),
    ({"kind": "pie"}, r"kind must be one of \['cases', 'grid', 'op_layers', 'sweep'\], found 'pie'"),
    ({"parameter": "n_ops"}, "kind must be one of .* found None"),
    ({**SWEEP, "colour": "red"}, r"Sweep has no field\(s\) colour; its fields are parameter, series"),
    ({"kind": "cases", "rows": "mode"}, r"Cases has no field\(s\) rows; its fields are \(none\)"),
    ({**SWEEP, "fits_cost_model": "yes"}, "fits_cost_model must be bool, found 'yes'"),
    ({**SWEEP, "fits_cost_model": 1}, "fits_cost_model must be bool, found 1"),
    ({**SWEEP, "parameter": 3}, "parameter must be str, found 3"),
    ({**SWEEP, "baseline": ["eager"]}, r"baseline must be str \| None, found \['eager'\]"),
    ({"kind": "sweep"}, "Sweep: .*missing 1 required positional argument: 'parameter'"),
    ({**GRID, "per_op": {**PER_OP, "ops": "150"}}, "per_op.ops must be int, found '150'"),
    ({**GRID, "per_op": {**PER_OP, "ops": True}}, "per_op.ops must be int, found True"),
    ({**GRID, "per_op": {**PER_OP, "size": 3}}, r"PerOp has no field\(s\) per_op.size"),
    ({**GRID, "per_op": "loop"}, r"per_op must be PerOp \| None, found 'loop'"),
    ({"kind": "op_layers", "top_entries": "tf.add", "wrapper": "w", "fast_path": "f", "kernel": "k", "empty_call": "e"},
     "top_entries must be tuple"),
])
def test_a_bad_record_is_refused_naming_what_is_wrong(record, message):
    with pytest.raises(LayoutError, match=message):
        from_record(record)


def test_an_unhashable_kind_is_a_layout_error():
    with pytest.raises(LayoutError, match="kind must be one of"):
        from_record({"kind": ["sweep"]})


def test_tops_must_be_strings():
    with pytest.raises(LayoutError, match="top_entries"):
        from_record({"kind": "op_layers", "top_entries": [1, None], "wrapper": "w", "fast_path": "f", "kernel": "k",
                     "empty_call": "e"})


def case(label, **params):
    return Case(label, fn=lambda: None, params=params)


def test_a_sweep_needs_its_parameter_on_every_case():
    cases = [case("eager 1", mode="eager", n_ops=1), case("eager ?", mode="eager")]
    with pytest.raises(ValueError, match=r"Sweep layout reads the case parameters \['n_ops', 'mode'\], "
                                         r"which cases \['eager \?'\] lack"):
        Workload("chain", "Chain", cases, layout=Sweep("n_ops"))
    with pytest.raises(ValueError, match=r"which cases \['eager 1'\] lack"):
        Workload("chain", "Chain", cases[:1], layout=Sweep("n_ops", series="framework"))
    assert Workload("chain", "Chain", cases[:1], layout=Sweep("n_ops")).layout == Sweep("n_ops")


def test_a_grid_needs_its_rows_columns_and_op_by_op_flag():
    cases = [case("a", mode="eager", workload="step")]
    Workload("grid", "Grid", cases, layout=Grid("mode", "workload"))
    with pytest.raises(ValueError, match="op_by_op"):
        Workload("grid", "Grid", cases, layout=Grid("mode", "workload", per_op=PerOp("loop", 150, "step")))
    with pytest.raises(ValueError, match="model"):
        Workload("grid", "Grid", cases, layout=Grid("mode", "model"))


def test_op_layers_need_entry_and_size():
    with pytest.raises(ValueError, match=r"\['entry', 'elements'\]"):
        Workload("ops", "Ops", [case("tf.add", entry="tf.add")], layout=OpLayers(
            top_entries=("tf.add",), wrapper="w", fast_path="f", kernel="k", empty_call="e"))


def test_a_results_file_with_a_bad_layout_names_the_layout_field():
    data = schema.to_dict(synthetic_results())
    assert schema.from_dict(json.loads(json.dumps(data)), "demo.json") == synthetic_results()
    data["layout"] = {"kind": "sweep", "parameter": "n_ops", "fits_cost_model": "yes"}
    with pytest.raises(schema.ResultsFileError, match="fits_cost_model must be bool") as raised:
        schema.from_dict(data, "demo.json")
    assert raised.value.field == "layout"
    assert "demo.json: field 'layout'" in str(raised.value)


@pytest.mark.parametrize("layout, message", [
    ({"kind": "pie"}, "kind must be one of"),
    (["sweep"], "must be dict, found list"),
    ({"kind": "grid", "rows": "mode", "columns": "workload", "extra": 1}, r"no field\(s\) extra"),
])
def test_every_bad_layout_in_a_results_file_is_a_results_file_error(layout, message):
    data = {**schema.to_dict(synthetic_results()), "layout": layout}
    with pytest.raises(schema.ResultsFileError, match=message) as raised:
        schema.from_dict(data, "demo.json")
    assert raised.value.field == "layout"


def test_a_results_file_keeps_its_layout():
    sweep = Sweep("n_ops", series="mode", baseline="eager")
    base = synthetic_results()
    cases = tuple(replace(case, params={**case.params, "n_ops": 10}) for case in base.cases)
    results = replace(base, cases=cases, layout=sweep)
    assert schema.from_dict(schema.to_dict(results), "x.json").layout == sweep


def test_a_results_file_whose_cases_lack_what_its_layout_reads_is_refused():
    data = {**schema.to_dict(synthetic_results()), "layout": to_record(Sweep("n_ops"))}
    with pytest.raises(schema.ResultsFileError, match=r"cases\[0\]\.params.*n_ops"):
        schema.from_dict(data, "demo.json")
