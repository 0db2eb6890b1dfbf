import pytest

from tfspeedlab import Case, Prepared, Workload


def noop():
    return None


def test_case_needs_exactly_one_of_fn_and_setup():
    with pytest.raises(ValueError, match="exactly one"):
        Case("both", fn=noop, setup=lambda: Prepared(noop))
    with pytest.raises(ValueError, match="exactly one"):
        Case("neither")


def test_env_needs_a_process():
    with pytest.raises(ValueError, match="process"):
        Case("x", fn=noop, env={"A": "1"})


def test_setup_is_called_only_when_prepared():
    calls = []

    def setup():
        calls.append(1)
        return Prepared(noop, ())

    case = Case("lazy", setup=setup)
    assert calls == []
    assert case.prepare().fn is noop and calls == [1]


def test_workload_process_groups_in_order_and_consistent():
    cases = [Case("a", fn=noop, process="p1"), Case("b", fn=noop, process="p2"), Case("c", fn=noop, process="p1")]
    assert Workload("w", "W", cases).processes == ["p1", "p2"]
    with pytest.raises(ValueError, match="every case a process, or none"):
        Workload("w", "W", [Case("a", fn=noop, process="p1"), Case("b", fn=noop)])
    with pytest.raises(ValueError, match="disagree on env"):
        Workload("w", "W", [Case("a", fn=noop, process="p", env={"X": "1"}), Case("b", fn=noop, process="p")])


def test_duplicate_labels_and_unknown_baseline_are_refused():
    with pytest.raises(ValueError, match="duplicate"):
        Workload("w", "W", [Case("a", fn=noop), Case("a", fn=noop)])
    with pytest.raises(ValueError, match="baseline"):
        Workload("w", "W", [Case("a", fn=noop)], baseline="b")
