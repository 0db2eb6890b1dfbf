"""What machine and software a measurement is taken on, and which runner (cpu or gpu) it writes to."""

from __future__ import annotations

import datetime
import os
import platform
import shutil
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from tfspeedlab.results.repo import git_commit, git_dirty

# Environment variables that change what TensorFlow does, recorded when set.
_TF_VARIABLES = (
    "TF_XLA_FLAGS", "XLA_FLAGS", "TF_ENABLE_ONEDNN_OPTS", "TF_USE_LEGACY_KERAS",
    "CUDA_VISIBLE_DEVICES", "TF_GPU_ALLOCATOR", "OMP_NUM_THREADS",
)


def capture() -> dict[str, Any]:
    """Environment record for a results file. Imports TensorFlow."""
    import tensorflow as tf

    build = dict(tf.sysconfig.get_build_info())
    gpus = tf.config.list_physical_devices("GPU")
    return {
        "python": platform.python_version(),
        "tensorflow": tf.__version__,
        "keras": _version("keras"),
        "tf_keras": _version("tf-keras"),
        "numpy": _version("numpy"),
        "os": platform.platform(),
        "cpu_model": cpu_model(),
        "logical_cores": os.cpu_count() or 0,
        # 0 means "TensorFlow's default": one thread per logical core.
        "intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads(),
        "inter_op_threads": tf.config.threading.get_inter_op_parallelism_threads(),
        "gpus": [_gpu_details(tf, gpu) for gpu in gpus],
        "gpu_driver": _nvidia_driver() if gpus else None,
        # The CUDA and cuDNN versions TensorFlow was built against; the driver
        # above is what actually runs them.
        "cuda_build": build.get("cuda_version") if gpus else None,
        "cudnn_build": build.get("cudnn_version") if gpus else None,
        "tf_variables": {name: os.environ[name] for name in _TF_VARIABLES if name in os.environ},
        "git_commit": git_commit(),
        "git_dirty": git_dirty(),
        "utc_time": utc_now(),
    }


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _gpu_details(tf: Any, gpu: Any) -> dict[str, Any]:
    details = tf.config.experimental.get_device_details(gpu)
    capability = details.get("compute_capability")
    return {
        "device": gpu.name,
        "name": details.get("device_name", "unknown"),
        "compute_capability": ".".join(map(str, capability)) if capability else None,
    }


def _nvidia_driver() -> str | None:
    if not shutil.which("nvidia-smi"):
        return None
    try:
        output = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return output.strip().splitlines()[0] if output.strip() else None


RUNNER_CHOICES = ("cpu", "gpu", "auto")


class NoGPUError(RuntimeError):
    """A GPU run was asked for on a machine where TensorFlow sees no GPU."""


def hide_gpus_for(requested: str) -> None:
    """Before TensorFlow is imported: a ``cpu`` run must not touch a GPU that is present."""
    if requested == "cpu":
        os.environ["CUDA_VISIBLE_DEVICES"] = "-1"


def resolve_runner(requested: str) -> str:
    """Turn ``cpu|gpu|auto`` into the runner this process measures on. Imports TensorFlow."""
    if requested not in RUNNER_CHOICES:
        raise ValueError(f"runner must be one of {RUNNER_CHOICES}, got {requested!r}")
    import tensorflow as tf

    has_gpu = bool(tf.config.list_physical_devices("GPU"))
    if requested == "gpu" and not has_gpu:
        raise NoGPUError(
            "--runner gpu was requested, but TensorFlow sees no GPU on this machine "
            "(tf.config.list_physical_devices('GPU') is empty). Install tensorflow[and-cuda] "
            "on a machine with an NVIDIA GPU and driver, or use --runner cpu. Nothing was written."
        )
    if requested == "auto":
        return "gpu" if has_gpu else "cpu"
    return requested
