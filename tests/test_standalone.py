"""``tfspeedlab.main`` where there is no script file: a notebook's ``__main__`` has no ``__file__``."""

import sys
import types

import tfspeedlab
from tfspeedlab.harness import standalone


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


QUICK_RECORDER = (
    "import time, tfspeedlab\n"
    "asked = []\n"
    "def workload(quick=False):\n"
    "    asked.append(quick)\n"
    "    return tfspeedlab.Workload(name='cell', title='Cell', budget_s=0.02,\n"
    "        cases=[tfspeedlab.Case('sleep', time.sleep, (0.001,))])\n")


def test_a_notebook_runs_quick_unless_asked_for_the_full_run(monkeypatch, capsys):
    module = _notebook_module(monkeypatch, QUICK_RECORDER)
    monkeypatch.setattr(standalone, "in_notebook_kernel", lambda: True)
    tfspeedlab.main(module.workload, argv=[])  # a kernel's argv holds no --quick
    out = capsys.readouterr().out
    assert "Cell — runner: cpu" in out and "quick run" in out and standalone.FULL_RUN_CALL in out
    tfspeedlab.main(module.workload, argv=[], quick=False)
    assert "full run" in capsys.readouterr().out
    assert module.asked == [True, False]


def test_a_script_runs_full_unless_given_quick(monkeypatch, capsys):
    module = _notebook_module(monkeypatch, QUICK_RECORDER)
    tfspeedlab.main(module.workload, argv=[])
    tfspeedlab.main(module.workload, argv=["--quick"])
    tfspeedlab.main(module.workload, argv=["--quick"], quick=False)  # the argument wins over the command line
    assert module.asked == [False, True, False]
    assert standalone.FULL_RUN_CALL not in capsys.readouterr().out  # the hint is a notebook's


def test_a_kernel_is_an_ipython_shell_with_a_kernel(monkeypatch):
    assert not standalone.in_notebook_kernel()  # pytest: no IPython shell
    shell = types.SimpleNamespace(kernel=None)
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    assert not standalone.in_notebook_kernel()  # terminal IPython runs scripts, which have a command line
    shell.kernel = object()
    assert standalone.in_notebook_kernel()


def test_a_skipped_example_says_so_first_and_runs_nothing(monkeypatch, capsys):
    # tests/test_notebooks.py skips a notebook whose last cell starts so (a missing optional framework).
    module = _notebook_module(monkeypatch, (
        "import tfspeedlab\n"
        "def workload(quick=False):\n"
        "    raise tfspeedlab.SkipExample('needs the made-up package nosuchlib')\n"))
    monkeypatch.setattr(standalone, "in_notebook_kernel", lambda: True)
    tfspeedlab.main(module.workload, argv=[])
    assert capsys.readouterr().out == "skipped: needs the made-up package nosuchlib\n"
