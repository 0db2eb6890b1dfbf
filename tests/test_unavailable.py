"""A case that cannot run here (a backend's compiler refusing a layer) is recorded with its reason, and
the other cases are timed as usual; a results file's reasons are validated like every other field."""

import json
from dataclasses import replace

import pytest

from conftest import synthetic_results
from tfspeedlab.core.results.schema import ResultsFileError, to_dict
from tfspeedlab.core.results.store import load_results, write_json_atomic
from tfspeedlab.core.spec.workload import Case, CaseUnavailable, Prepared, Workload
from tfspeedlab.harness.cases import run_workload


def refuses_in_setup():
    raise CaseUnavailable("jax is not installed\nsecond line dropped")


def refuses_on_first_call():
    def compile_fails():
        raise CaseUnavailable("XlaRuntimeError: " + "x" * 400)

    return Prepared(compile_fails)


def workload():
    return Workload("demo", "Demo", [Case("works", fn=lambda: sum(range(10))),
                                     Case("no package", setup=refuses_in_setup),
                                     Case("no compile", setup=refuses_on_first_call)], budget_s=0.01)


def test_unavailable_cases_say_why_and_the_others_are_timed():
    results = run_workload(workload(), "cpu", quick=True, progress=lambda message: None)
    assert [case.label for case in results.cases] == ["works"]
    assert results.unavailable["no package"] == "jax is not installed"
    reason = results.unavailable["no compile"]
    assert reason.startswith("XlaRuntimeError: xxx") and len(reason) == 300 and reason.endswith("…")


def test_reasons_round_trip_and_files_without_them_read_as_before(tmp_path):
    results = replace(synthetic_results(), unavailable={"xla": "could not compile"})
    write_json_atomic(tmp_path / "demo.json", to_dict(results))
    assert load_results(tmp_path / "demo.json").unavailable == {"xla": "could not compile"}
    assert "unavailable" not in to_dict(synthetic_results())
    write_json_atomic(tmp_path / "plain.json", to_dict(synthetic_results()))
    assert load_results(tmp_path / "plain.json").unavailable == {}


@pytest.mark.parametrize("unavailable, field", [
    (["xla"], "unavailable"),
    ({"xla": 3}, "unavailable.xla"),
    ({"xla": "two\nlines"}, "unavailable.xla"),
    ({"eager": "measured and unavailable at once"}, "unavailable.eager"),
    ({"xla": "y" * 301}, "unavailable.xla"),
])
def test_a_malformed_reason_is_refused_naming_the_field(tmp_path, unavailable, field):
    data = {**to_dict(synthetic_results()), "unavailable": unavailable}
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsFileError) as error:
        load_results(path)
    assert error.value.field == field
