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


# Tiny examples with plain-Python cases: they exercise the harness, not TensorFlow.
PASSING_EXAMPLE = '''
# # A passing example
import time
import tfspeedlab

def workload(quick=False):
    return tfspeedlab.Workload(
        name="passing", title="Passing",
        cases=[tfspeedlab.Case("sleep", time.sleep, (0.001,))], budget_s=0.05,
    )
'''
SLOW_EXAMPLE = '''
# # A slow example
import time
import tfspeedlab

def workload(quick=False):
    print("slow example started", flush=True)
    return tfspeedlab.Workload(
        name="slow", title="Slow",
        cases=[tfspeedlab.Case("sleep", time.sleep, (0.01,))], budget_s=120,
    )
'''


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes: to show that something left a tree as it was."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def build_site(results_dir: Path, site_dir: Path) -> subprocess.CompletedProcess:
    """A strict MkDocs build of the site from ``results_dir``."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
        env={**os.environ, "TFSPEEDLAB_RESULTS": str(results_dir), "NO_MKDOCS_2_WARNING": "1"},
    )


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
