"""``tfspeedlab.main`` where there is no script file: a notebook's ``__main__`` has no ``__file__``."""

import sys
import types

import tfspeedlab
from tfspeedlab.run import standalone


def _notebook_module(monkeypatch, source: str) -> types.ModuleType:
    module = types.ModuleType("__notebook__")  # like a kernel's __main__: no __file__
    monkeypatch.setitem(sys.modules, "__notebook__", module)
    exec(compile(source, "<cell>", "exec"), module.__dict__)
    return module


def test_a_workload_defined_in_a_notebook_runs_in_the_kernel(monkeypatch, capsys):
    module = _notebook_module(monkeypatch, (
        "import time, tfspeedlab\n"
        "def workload(quick=False):\n"
        "    return tfspeedlab.Workload(name='cell', title='Cell', budget_s=0.02,\n"
        "        cases=[tfspeedlab.Case('sleep', time.sleep, (0.001,))])\n"))
    tfspeedlab.main(module.workload, argv=[])
    out = capsys.readouterr().out
    assert "Cell — runner: cpu" in out and "sleep" in out


def test_process_groups_from_a_notebook_use_the_example_script_or_say_what_to_do(monkeypatch, capsys):
    module = _notebook_module(monkeypatch, (
        "import time, tfspeedlab\n"
        "def workload(quick=False):\n"
        "    return tfspeedlab.Workload(name='no_such_script', title='Groups', budget_s=0.02, cases=[\n"
        "        tfspeedlab.Case('a', time.sleep, (0.001,), process='a'),\n"
        "        tfspeedlab.Case('b', time.sleep, (0.001,), process='b')])\n"))
    assert standalone.script_of(module.workload, "small_ops").name == "small_ops.py"
    tfspeedlab.main(module.workload, argv=[])
    out = capsys.readouterr().out
    assert "separate Python processes" in out and "tfspeedlab run no_such_script" in out
