"""What machine and software a measurement is taken on, and which runner (cpu or gpu) it writes to."""

from __future__ import annotations

import datetime
import os
import platform
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from tfspeedlab.core.results.repo import git_commit, git_dirty

# The instruction sets that decide which kernels TensorFlow (oneDNN, XLA's CPU backend) can use:
# a bfloat16 or int8 result on a CPU with AVX512_BF16 or AMX does not carry over to one without.
CPU_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_vnni", "avx512_fp16",
             "avx_vnni", "amx_tile", "amx_bf16", "amx_int8")
# Where Linux says how the CPU's clock is governed ("performance" holds it up; "powersave" and
# "ondemand" let it fall between bursts, which moves short timings) and how much memory there is.
CPUINFO_FILE = Path("/proc/cpuinfo")
GOVERNOR_FILE = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
MEMINFO_FILE = Path("/proc/meminfo")
# Set by ``mark_run_start`` and inherited by the processes a run starts: the load when it began.
LOAD_AT_START_VARIABLE = "TFSPEEDLAB_LOAD_AT_START"
# What a name read from the machine is cut to: a CPU's name is a few dozen characters.
MAX_NAME = 100
# Environment variables that change what TensorFlow does, recorded when set.
_TF_VARIABLES = (
    "TF_XLA_FLAGS", "XLA_FLAGS", "TF_ENABLE_ONEDNN_OPTS", "TF_USE_LEGACY_KERAS",
    "CUDA_VISIBLE_DEVICES", "TF_GPU_ALLOCATOR", "OMP_NUM_THREADS",
)


def capture(runner: str | None = None) -> dict[str, Any]:
    """Environment record for a results file. Imports TensorFlow, except in a process of a
    CPU run that never did (a PyTorch-only process group): importing it there would cost
    seconds and describe nothing that process ran."""
    tf = None if runner == "cpu" and "tensorflow" not in sys.modules else _import_tensorflow()
    build = dict(tf.sysconfig.get_build_info()) if tf else {}
    gpus = tf.config.list_physical_devices("GPU") if tf else []
    return {
        "python": platform.python_version(),
        "tensorflow": tf.__version__ if tf else _tensorflow_distribution_version(),
        "keras": _version("keras"),
        "tf_keras": _version("tf-keras"),
        "numpy": _version("numpy"),
        "os": platform.platform(),
        "cpu_model": cpu_model(),
        "cpu_flags": cpu_flags(),
        # Which CPU it is where the model name does not say (a VM's "AMD EPYC" on two generations).
        **cpu_id(),
        # Hardware threads per core: 2 where the logical cores are SMT siblings sharing a core.
        "threads_per_core": threads_per_core(),
        "logical_cores": os.cpu_count() or 0,
        # The cores this process may run on (a container's CPU set, or ``taskset``), where Linux says.
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        # 0 means "TensorFlow's default": one thread per logical core.
        "intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads() if tf else 0,
        "inter_op_threads": tf.config.threading.get_inter_op_parallelism_threads() if tf else 0,
        "gpus": [_gpu_details(tf, gpu) for gpu in gpus],
        "gpu_driver": _nvidia_driver() if gpus else None,
        # The CUDA and cuDNN versions TensorFlow was built against; the driver
        # above is what actually runs them.
        "cuda_build": build.get("cuda_version") if gpus else None,
        "cudnn_build": build.get("cudnn_version") if gpus else None,
        # Whether TensorFlow runs its oneDNN operations: its own decision (the CPU's default, or
        # TF_ENABLE_ONEDNN_OPTS), which moves some kernels' times; None where it cannot say.
        "onednn": onednn_enabled() if tf else None,
        "tf_variables": tf_variables(),
        # What else the machine was doing, as pyperf records it: the 1-minute load average when
        # the run began and when it was recorded (None where not read), the clock's governor and
        # the memory (None where the system does not say).
        "load_average_start": load_at_start(),
        "load_average_end": load_average(),
        "cpu_governor": cpu_governor(),
        "memory_bytes": memory_bytes(),
        "git_commit": git_commit(),
        "git_dirty": git_dirty(),
        "utc_time": utc_now(),
    }


def load_average() -> float | None:
    """The 1-minute load average (processes running or waiting for a core), where the system
    reports one (not on Windows)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def mark_run_start() -> None:
    """Note the load as a run begins, for ``capture`` to record beside the load as it ends; the
    processes the run starts (forked or fresh) inherit it."""
    found = load_average()
    if found is not None:
        os.environ[LOAD_AT_START_VARIABLE] = repr(found)
    else:
        os.environ.pop(LOAD_AT_START_VARIABLE, None)


def load_at_start() -> float | None:
    """The load ``mark_run_start`` noted; None where no run marked one (or the system has none)."""
    try:
        found = float(os.environ[LOAD_AT_START_VARIABLE])
    except (KeyError, ValueError):
        return None
    return found if 0 <= found < 1e6 else None


def cpu_governor(path: Path = GOVERNOR_FILE) -> str | None:
    """Linux's CPU frequency governor for the first core (``performance``, ``powersave``, …); None
    where there is none to read (most VMs, macOS, Windows)."""
    try:
        found = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return found if found.replace("_", "").replace("-", "").isalnum() and len(found) <= 32 else None


def memory_bytes(meminfo: Path = MEMINFO_FILE) -> int | None:
    """The machine's memory in bytes: Linux's MemTotal, macOS's ``hw.memsize``; None elsewhere."""
    try:
        for line in meminfo.read_text(encoding="ascii").splitlines():
            key, _, value = line.partition(":")
            number, _, unit = value.strip().partition(" ")
            if key == "MemTotal" and number.isdigit():
                return int(number) * (1024 if unit.strip() == "kB" else 1)
    except (OSError, UnicodeDecodeError):
        pass
    found = _sysctl("hw.memsize") if sys.platform == "darwin" else None
    return int(found) if found and found.isdigit() else None


def _sysctl(name: str) -> str | None:
    """One value from macOS's ``sysctl -n NAME``, as plain text; None where it cannot be read."""
    try:
        output = subprocess.run(["sysctl", "-n", name], capture_output=True, text=True, timeout=5, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return plain_name(output)


def plain_name(text: str) -> str | None:
    """A name read from the machine as one short line of printable text (None if nothing is left)."""
    found = " ".join("".join(char for char in text if char.isprintable()).split())[:MAX_NAME]
    return found or None


def tf_variables() -> dict[str, str]:
    return {name: os.environ[name] for name in _TF_VARIABLES if name in os.environ}


def onednn_enabled() -> bool | None:
    """TensorFlow's own answer to whether oneDNN is on in this process (the flag it prints its
    start-up line from); None where this TensorFlow does not expose it."""
    try:
        from tensorflow.python.util import _pywrap_util_port
        return bool(_pywrap_util_port.IsMklEnabled())
    except (ImportError, AttributeError):
        return None


def _import_tensorflow() -> Any:
    import tensorflow as tf

    return tf


def _tensorflow_distribution_version() -> str:
    # The same TensorFlow ships as several distributions; whichever is installed.
    for distribution in ("tensorflow", "tensorflow-cpu", "tensorflow-intel", "tensorflow-macos"):
        if (version := _version(distribution)) is not None:
            return version
    return _import_tensorflow().__version__


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def cpu_model(cpuinfo: Path = CPUINFO_FILE) -> str:
    """The CPU's name: Linux's /proc/cpuinfo, macOS's ``machdep.cpu.brand_string`` ("Apple M2",
    where ``platform.processor()`` says only "arm"), else what ``platform`` knows."""
    try:
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name") and (found := plain_name(line.split(":", 1)[1])):
                return found
    except OSError:
        pass
    if sys.platform == "darwin" and (found := _sysctl("machdep.cpu.brand_string")):
        return found
    return plain_name(platform.processor() or platform.machine() or "") or "unknown"


def cpu_id() -> dict[str, int | None]:
    """The CPU's family, model number and stepping from /proc/cpuinfo (None each where not reported)."""
    wanted = {"cpu family": "cpu_family", "model": "cpu_model_number", "stepping": "cpu_stepping"}
    found: dict[str, int | None] = dict.fromkeys(wanted.values())
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in wanted and value.strip().isdigit():
                found[wanted[key.strip()]] = int(value)
            if not line.strip() and any(value is not None for value in found.values()):
                break  # the first processor's block is enough: a VM's cores are alike
    except OSError:
        pass
    return found


def threads_per_core() -> int | None:
    """Logical cores per physical core, from Linux's topology files (None where they are missing)."""
    try:
        siblings = Path("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list").read_text().strip()
    except OSError:
        return None
    count = 0
    for part in siblings.split(","):
        low, _, high = part.partition("-")
        count += int(high) - int(low) + 1 if high else 1
    return count


def cpu_flags() -> list[str]:
    """Which of ``CPU_FLAGS`` this CPU reports (Linux's /proc/cpuinfo; empty elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):
                present = set(line.split(":", 1)[1].split())
                return [flag for flag in CPU_FLAGS if flag in present]
    except OSError:
        pass
    return []


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


# CUDA_VISIBLE_DEVICES for a process that must see no GPU.
NO_GPUS = "-1"


def hide_gpus_for(requested: str) -> None:
    """Before TensorFlow is imported: a ``cpu`` run must not touch a GPU that is present, and an
    ``auto`` run on a machine without a GPU (a CPU run, ``resolve_runner`` says) must not probe for
    one: CUDA's probe fails there, in an error line that reads as if something were wrong."""
    if requested == "cpu" or (requested == "auto" and no_gpu_devices()):
        os.environ["CUDA_VISIBLE_DEVICES"] = NO_GPUS


def gpus_hidden() -> bool:
    return os.environ.get("CUDA_VISIBLE_DEVICES") == NO_GPUS


def resolve_runner(requested: str) -> str:
    """Turn ``cpu|gpu|auto`` into the runner this process measures on.

    Imports TensorFlow to ask it for a GPU, unless the answer cannot matter
    (``cpu``) or the machine plainly has none (see ``no_gpu_devices``).
    """
    if requested not in RUNNER_CHOICES:
        raise ValueError(f"runner must be one of {RUNNER_CHOICES}, got {requested!r}")
    if requested == "cpu":
        return "cpu"
    has_gpu = not no_gpu_devices() and bool(_import_tensorflow().config.list_physical_devices("GPU"))
    if requested == "gpu" and not has_gpu:
        raise NoGPUError(
            "--runner gpu was requested, but TensorFlow sees no GPU on this machine "
            "(tf.config.list_physical_devices('GPU') is empty). Install tensorflow[and-cuda] "
            "on a machine with an NVIDIA GPU and driver, or use --runner cpu. Nothing was written."
        )
    if requested == "auto":
        return "gpu" if has_gpu else "cpu"
    return requested


# Device nodes through which TensorFlow reaches a GPU on Linux: NVIDIA's
# driver, AMD's ROCm, and WSL2's GPU paravirtualisation.
GPU_DEVICE_NODES = ("nvidia[0-9]*", "kfd", "dxg")


def no_gpu_devices(dev: Path = Path("/dev")) -> bool:
    """True on a Linux machine with none of the GPU device nodes: TensorFlow cannot see a GPU
    there, so asking it (a 4-second import, once per process) can be skipped."""
    return sys.platform.startswith("linux") and not any(
        any(dev.glob(pattern)) for pattern in GPU_DEVICE_NODES)
