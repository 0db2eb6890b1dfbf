"""Run a workload's cases through ``bench`` and collect a ``ResultsFile``."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from tfspeedlab import environment
from tfspeedlab.results import CaseResult, ResultsFile
from tfspeedlab.timer import bench
from tfspeedlab.units import format_time
from tfspeedlab.workload import Workload

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


def print_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_workload(
    workload: Workload,
    runner: str,
    quick: bool,
    progress: Callable[[str], None] = print_progress,
) -> ResultsFile:
    cases = []
    for index, case in enumerate(workload.cases, start=1):
        progress(f"  {workload.name} · {case.label}  ({index}/{len(workload.cases)}) …")
        measurement = bench(case.fn, *case.args, budget_s=workload.budget_s, watch=case.watch)
        progress(
            f"  {workload.name} · {case.label}  {format_time(measurement.median_s)} per call "
            f"({measurement.calls_per_block} calls × {measurement.blocks} blocks)"
        )
        cases.append(CaseResult(label=case.label, params=dict(case.params), measurement=measurement))
    return ResultsFile(
        example=workload.name,
        title=workload.title,
        runner=runner,
        quick=quick,
        params=dict(workload.params),
        environment=environment.capture(),
        cases=tuple(cases),
        baseline=workload.baseline,
    )
