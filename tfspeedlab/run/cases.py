"""Run a workload's cases through ``bench`` in this process and collect a ``ResultsFile``."""

from __future__ import annotations

import sys
from collections.abc import Callable

from tfspeedlab.measure.measurement import per_step
from tfspeedlab.measure.timer import TimedCall, bench, bench_interleaved
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
    group: str | None = None,
    round_number: int = 1,
    default_rounds: int = 1,
) -> ResultsFile:
    """Time, in this process, the cases of one group (``None``: the cases with no process of
    their own) that take part in this round; each case's result is one run.

    Cases with default timing options are timed together, block by block in
    turn; a case with its own ``bench_options`` is timed alone after them.
    """
    selected = [case for case in workload.cases
                if case.process == group and (case.rounds or default_rounds) >= round_number]
    prepared = {}
    for index, case in enumerate(selected, start=1):
        progress(f"  {workload.name} · {case.label}  ({index}/{len(selected)}) warming up …")
        prepared[case.label] = case.prepare()
    together = [case for case in selected if not case.bench_options]
    calls = [TimedCall(prepared[case.label].fn, prepared[case.label].args, budget_s=workload.budget_s,
                       watch=prepared[case.label].watch) for case in together]
    measured = dict(zip((case.label for case in together), bench_interleaved(calls) if calls else []))
    for case in selected:
        if case.label not in measured:
            setup = prepared[case.label]
            options = {"budget_s": workload.budget_s, "watch": setup.watch, **case.bench_options}
            measured[case.label] = bench(setup.fn, *setup.args, **options)
    cases = []
    for case in selected:
        measurement = per_step(measured[case.label], case.steps_per_call)
        metrics = dict(prepared[case.label].metrics()) if prepared[case.label].metrics else {}
        progress(
            f"  {workload.name} · {case.label}  {format_time(measurement.median_s)} per call "
            f"({measurement.calls_per_block} calls × {measurement.blocks} blocks)"
            + (f" {metrics}" if metrics else "")
        )
        cases.append(CaseResult(case.label, case_params(case), (measurement,), metrics))
    return assemble(workload, runner, quick, cases)


def case_params(case: Case) -> dict:
    params = dict(case.params)
    if case.steps_per_call != 1:
        params["steps_per_call"] = case.steps_per_call
    if case.env:
        params["env"] = dict(case.env)
    return params


def assemble(workload: Workload, runner: str, quick: bool, cases: list[CaseResult],
             environment: dict | None = None) -> ResultsFile:
    """The results file of these cases; ``environment``: recorded by the processes that measured
    them (default: this process's)."""
    # A process group's partial file may lack the baseline case; the pooled file has it.
    labels = {case.label for case in cases}
    return ResultsFile(
        example=workload.name,
        title=workload.title,
        runner=runner,
        quick=quick,
        params=dict(workload.params),
        environment=environment if environment is not None else machine.capture(runner),
        cases=tuple(cases),
        baseline=workload.baseline if workload.baseline in labels else None,
        layout=workload.layout,
    )
