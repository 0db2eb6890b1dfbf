"""Run a workload's cases through ``bench`` and collect a ``ResultsFile``."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path

from tfspeedlab import environment
from tfspeedlab.measurement import Measurement
from tfspeedlab.results import CaseResult, ResultsFile
from tfspeedlab.timer import bench
from tfspeedlab.units import format_time
from tfspeedlab.workload import Case, Workload

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


def per_step(measurement: Measurement, steps_per_call: int) -> Measurement:
    """Per-call samples divided into per-step samples; the first call stays whole."""
    if steps_per_call == 1:
        return measurement
    return dataclasses.replace(
        measurement, samples_s=tuple(sample / steps_per_call for sample in measurement.samples_s)
    )


def print_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_workload(
    workload: Workload,
    runner: str,
    quick: bool,
    progress: Callable[[str], None] = print_progress,
    only_process: str | None = None,
    round_number: int = 1,
) -> ResultsFile:
    """Time the cases (those of one process group and round, if given) in this process."""
    selected = [case for case in workload.cases
                if (only_process is None or case.process == only_process) and case.rounds >= round_number]
    cases = []
    for index, case in enumerate(selected, start=1):
        progress(f"  {workload.name} · {case.label}  ({index}/{len(selected)}) …")
        prepared = case.prepare()
        options = {"budget_s": workload.budget_s, "watch": prepared.watch, **case.bench_options}
        measurement = per_step(bench(prepared.fn, *prepared.args, **options), case.steps_per_call)
        metrics = dict(prepared.metrics()) if prepared.metrics else {}
        progress(
            f"  {workload.name} · {case.label}  {format_time(measurement.median_s)} per call "
            f"({measurement.calls_per_block} calls × {measurement.blocks} blocks)"
            + (f" {metrics}" if metrics else "")
        )
        cases.append(CaseResult(case.label, case_params(case), measurement, metrics))
    return assemble(workload, runner, quick, cases)


def case_params(case: Case) -> dict:
    params = dict(case.params)
    if case.steps_per_call != 1:
        params["steps_per_call"] = case.steps_per_call
    if case.env:
        params["env"] = dict(case.env)
    if case.rounds != 1:
        params["rounds"] = case.rounds
    return params


def assemble(workload: Workload, runner: str, quick: bool, cases: list[CaseResult]) -> ResultsFile:
    # A process group's partial file may lack the baseline case; the pooled file has it.
    labels = {case.label for case in cases}
    return ResultsFile(
        example=workload.name,
        title=workload.title,
        runner=runner,
        quick=quick,
        params=dict(workload.params),
        environment=environment.capture(),
        cases=tuple(cases),
        baseline=workload.baseline if workload.baseline in labels else None,
    )


def measure(script: Path, workload: Workload, runner: str, quick: bool) -> ResultsFile:
    """All of a workload's cases: here, or one fresh process per process group."""
    if workload.processes:
        from tfspeedlab.isolation import run_in_processes

        return run_in_processes(script, workload, runner, quick)
    return run_workload(workload, runner, quick)
