"""Run a workload's cases through ``bench`` in this process and collect a ``ResultsFile``."""

from __future__ import annotations

import sys
from collections.abc import Callable

from tfspeedlab.measure.measurement import per_step
from tfspeedlab.measure.timer import bench
from tfspeedlab.results.schema import CaseResult, ResultsFile
from tfspeedlab.run import machine
from tfspeedlab.spec.workload import Case, Workload
from tfspeedlab.units import format_time


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
        environment=machine.capture(),
        cases=tuple(cases),
        baseline=workload.baseline if workload.baseline in labels else None,
        layout=workload.layout,
    )
