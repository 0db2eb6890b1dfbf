"""scripts/gpu-run.sh refuses cleanly on a machine without an NVIDIA GPU."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

SCRIPT = REPO / "scripts" / "gpu-run.sh"
VENV = Path(sys.executable).parent.parent

pytestmark = pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has an NVIDIA driver")


def run(tmp_path, **env):
    out = tmp_path / "results"
    completed = subprocess.run(
        ["bash", str(SCRIPT), "--venv", str(VENV), "--quick", "small_ops"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "OUT": str(out), **env},
    )
    return completed, out


def test_without_a_driver_it_refuses_before_installing_anything(tmp_path):
    completed, out = run(tmp_path)
    assert completed.returncode == 3
    assert "no NVIDIA driver" in completed.stderr and "nothing was installed or written" in completed.stderr
    assert not out.exists()


def test_when_tensorflow_sees_no_gpu_it_refuses_and_writes_nothing(tmp_path):
    completed, out = run(tmp_path, GPU_RUN_SKIP_DRIVER_CHECK="1")
    assert completed.returncode == 3
    assert "TensorFlow sees no GPU" in completed.stderr
    assert not out.exists()
