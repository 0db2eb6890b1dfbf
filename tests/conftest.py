import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfspeedlab.measure.measurement import Measurement
from tfspeedlab.results.schema import CaseResult, ResultsFile

REPO = Path(__file__).resolve().parent.parent
# Keep TensorFlow's start-up chatter out of test logs.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def run_cli(*args: str, cwd: Path = REPO, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tfspeedlab", *args],
        cwd=cwd, capture_output=True, text=True, timeout=timeout, env={**os.environ, **env},
    )


@pytest.fixture(scope="session")
def quick_results(tmp_path_factory) -> Path:
    """Every example run for real in quick mode, once per test session."""
    out = tmp_path_factory.mktemp("results")
    completed = run_cli("run", "--quick", "--runner", "cpu", "--out", str(out))
    assert completed.returncode == 0, completed.stderr[-4000:]
    return out


def synthetic_results(samples=(1e-3, 1.1e-3, 1.05e-3), runner="cpu", example="demo") -> ResultsFile:
    """A hand-made results file for testing rendering and validation only, never shown on a page."""
    cases = tuple(
        CaseResult(label, {"mode": label}, Measurement(tuple(s * factor for s in samples), 10, 0.05, "test"))
        for label, factor in (("eager", 10.0), ("graph", 1.0))
    )
    environment = {
        "python": "3.11.0", "tensorflow": "2.99.0", "keras": None, "numpy": "2.0.0", "os": "Linux",
        "cpu_model": "Test CPU", "logical_cores": 2, "intra_op_threads": 0, "inter_op_threads": 0,
        "gpus": [], "cuda_build": None, "cudnn_build": None, "git_commit": None,
        "utc_time": "2026-01-01T00:00:00+00:00",
    }
    return ResultsFile(example, "Demo workload", runner, True, {"n": 1}, environment, cases, baseline="eager")


def site_results(quick_results, destination):
    """The quick results, plus the committed file of any example the quick run skipped.

    The frameworks comparison is skipped where its optional extra is not
    installed (as on CI); its page still needs a results file to build, as a
    reader's checkout has.
    """
    shutil.copytree(quick_results, destination)
    for committed in (REPO / "results" / "cpu").glob("*.json"):
        if not (destination / "cpu" / committed.name).exists() and not committed.name.endswith(".failed.json"):
            shutil.copy(committed, destination / "cpu" / committed.name)
    return destination
