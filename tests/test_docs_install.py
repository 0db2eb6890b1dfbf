"""The docs install (``pip install -e ".[docs]"``) builds and serves the site without TensorFlow.

What it installs is read from ``pyproject.toml``, the extras that name this project followed; that the
site's code imports nothing a docs install lacks is checked in a process where those packages cannot
be imported (``tests/without_tensorflow.py``, under which ``conftest.build_site`` also builds every
test site). A measuring command in such an install refuses in one line, naming the extra to add.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import pytest
import yaml
from packaging.requirements import Requirement

from conftest import REPO

tomllib = pytest.importorskip("tomllib")  # Python 3.11 on; CI runs 3.11

WITHOUT_TENSORFLOW = REPO / "tests" / "without_tensorflow.py"
# What only measuring needs: the `measure` extra's packages, and Keras 3, which TensorFlow brings.
MEASURING = {"tensorflow", "tensorflow-cpu", "tf-keras", "keras", "xprof"}


def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def requirements(extras: set[str]) -> dict[str, Requirement]:
    """Every requirement the core and ``extras`` bring, by name, extras that name this project followed."""
    found, wanted, seen = {}, [*project()["dependencies"]], set()
    optional = project()["optional-dependencies"]
    wanted += [line for extra in extras for line in optional[extra]]
    while wanted:
        requirement = Requirement(wanted.pop())
        if requirement.name == project()["name"]:
            for extra in requirement.extras - seen:
                seen.add(extra)
                wanted += optional[extra]
        else:
            found[requirement.name] = requirement
    return found


def test_the_docs_install_brings_no_measuring_package():
    assert not MEASURING & set(requirements({"docs"}))
    assert {"mkdocs", "mkdocs-material", "mkdocs-jupyter", "matplotlib", "numpy"} <= set(requirements({"docs"}))


def test_measuring_has_its_extra_and_the_test_command_installs_it():
    assert {"tensorflow", "tf-keras", "xprof"} <= set(requirements({"measure"}))
    assert {"tensorflow", "tf-keras", "xprof", "mkdocs", "uv", "pytest"} <= set(requirements({"test"}))
    # The comparison of frameworks runs the TensorFlow side too.
    assert "tensorflow" in requirements({"compare"})
    # scripts/test.sh (which .ci/run runs on a fresh clone) installs the test extra.
    assert '.venv/bin/pip install -q -e ".[test]"' in (REPO / "scripts" / "test.sh").read_text()
    assert "bash scripts/test.sh" in (REPO / ".ci" / "run").read_text()


def test_tensorflow_has_no_upper_bound_and_xprof_stays_below_its_next_major():
    """A cap on TensorFlow would downgrade a `diagnose` user once the next release ships; XProf is read
    through an internal module (``xprof.convert``), which its next major may move."""
    measuring = requirements({"measure"})
    for name in ("tensorflow", "tf-keras"):
        assert not any(spec.operator in {"<", "<=", "==", "~=", "==="} for spec in measuring[name].specifier), name
    assert "3" not in measuring["xprof"].specifier and "2.99" in measuring["xprof"].specifier


def test_ci_builds_the_site_from_the_docs_install():
    for workflow, job in (("benchmarks.yml", "site"), ("history.yml", "merge")):
        steps = yaml.safe_load((REPO / ".github" / "workflows" / workflow).read_text())["jobs"][job]["steps"]
        installs = [step["run"] for step in steps if "pip install" in step.get("run", "")]
        assert installs == ['python -m pip install -e ".[docs]"'], (workflow, installs)


def test_the_readme_serves_the_site_from_the_docs_install_in_one_line():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    serve = [line for line in readme.splitlines() if "mkdocs serve" in line and line.startswith("python3 -m venv")]
    assert len(serve) == 1
    assert '.venv/bin/pip install -e ".[docs]"' in serve[0] and "NO_MKDOCS_2_WARNING=1 " in serve[0]


def run_without_tensorflow(*arguments: str, probes: bool = False) -> subprocess.CompletedProcess:
    """``arguments`` run as in a docs install; ``probes``: a look for TensorFlow is no failure."""
    environment = {**os.environ, "WITHOUT_TENSORFLOW_PROBES": "allowed" if probes else "reported"}
    return subprocess.run([sys.executable, str(WITHOUT_TENSORFLOW), *arguments], cwd=REPO, capture_output=True,
                          text=True, timeout=300, env=environment)


def test_the_site_modules_import_without_tensorflow():
    """What a build imports of this project (the plugin, the Markdown extension and, through them, every
    feature's directives) tries no measuring package, not even one it would catch."""
    completed = run_without_tensorflow("-c", "import tfspeedlab.site.plugin, tfspeedlab.site.markdown_ext")
    assert completed.returncode == 0, completed.stderr[-2000:]


def test_the_check_catches_an_import_even_one_that_is_caught():
    """The check above can fail: a module that tries TensorFlow and copes is still reported."""
    completed = run_without_tensorflow("-c", "try:\n    import tensorflow.python\nexcept ImportError:\n    pass")
    assert completed.returncode == 3 and "imports attempted: tensorflow" in completed.stderr, completed.stderr


@pytest.mark.parametrize("command", [["run", "small_ops", "--quick"], ["env"],
                                     ["diagnose", "model.keras", "--batch", "8"]])
def test_a_measuring_command_without_tensorflow_says_which_extra_to_install(command, tmp_path):
    out = ["--out", str(tmp_path / "out")] if command[0] == "run" else []
    completed = run_without_tensorflow("tfspeedlab", *command, *out, probes=True)
    lines = completed.stderr.strip().splitlines()
    assert completed.returncode == 2, completed.stderr[-2000:]
    assert len(lines) == 1 and re.fullmatch(r"tfspeedlab: error: 'tfspeedlab \w+' measures with TensorFlow.*"
                                            r'pip install -e "\.\[measure\]"', lines[0]), lines
    assert not (tmp_path / "out").exists()


def test_commands_that_only_read_results_run_without_tensorflow(tmp_path):
    completed = run_without_tensorflow("tfspeedlab", "list")
    assert completed.returncode == 0 and "small_ops" in completed.stdout, completed.stderr[-2000:]
