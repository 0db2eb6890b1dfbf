"""Run a workload's cases through ``bench`` in this process and collect a ``ResultsFile``."""

from __future__ import annotations

import sys
from collections.abc import Callable

from tfspeedlab.core.measure.measurement import per_step
from tfspeedlab.core.measure.timer import TimedCall, bench, bench_interleaved
from tfspeedlab.core.results.checks import printable
from tfspeedlab.core.results.schema import CaseResult, ResultsFile
from tfspeedlab.core.spec.workload import Case, CaseUnavailable, Workload
from tfspeedlab.core.units import format_time
from tfspeedlab.harness import machine


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
    prepared, unavailable = {}, {}
    for index, case in enumerate(selected, start=1):
        progress(f"  {workload.name} · {case.label}  ({index}/{len(selected)}) warming up …")
        try:
            prepared[case.label] = case.prepare()
        except CaseUnavailable as reason:  # this case only: the page says why its row is missing
            unavailable[case.label] = unavailable_reason(reason)
            progress(f"  {workload.name} · {case.label}  could not run: {unavailable[case.label]}")
    selected = [case for case in selected if case.label in prepared]
    together, calls = [], []
    for case in selected:
        if case.bench_options:
            continue
        try:  # the first call happens here: a case's fn may raise CaseUnavailable from it (a compile that fails)
            calls.append(TimedCall(prepared[case.label].fn, prepared[case.label].args, budget_s=workload.budget_s,
                                   watch=prepared[case.label].watch))
            together.append(case)
        except CaseUnavailable as reason:
            unavailable[case.label] = unavailable_reason(reason)
            progress(f"  {workload.name} · {case.label}  could not run: {unavailable[case.label]}")
    measured = dict(zip((case.label for case in together), bench_interleaved(calls) if calls else []))
    for case in selected:
        if case.label not in measured and case.label not in unavailable:
            setup = prepared[case.label]
            options = {"budget_s": workload.budget_s, "watch": setup.watch, **case.bench_options}
            try:
                measured[case.label] = bench(setup.fn, *setup.args, **options)
            except CaseUnavailable as reason:
                unavailable[case.label] = unavailable_reason(reason)
    cases = []
    for case in selected:
        if case.label not in measured:
            continue
        measurement = per_step(measured[case.label], case.steps_per_call)
        metrics = dict(prepared[case.label].metrics()) if prepared[case.label].metrics else {}
        progress(
            f"  {workload.name} · {case.label}  {format_time(measurement.median_s)} per call "
            f"({measurement.calls_per_block} calls × {measurement.blocks} blocks)"
            + (f" {metrics}" if metrics else "")
        )
        cases.append(CaseResult(case.label, case_params(case), (measurement,), metrics))
    return assemble(workload, runner, quick, cases, unavailable=unavailable)


def unavailable_reason(reason: CaseUnavailable) -> str:
    """The reason as one line a results file can hold: its first line, as text its loader accepts
    (``checks.printable``: no control or invisible character, cut to the length a file allows)."""
    return printable((str(reason).strip().splitlines() or [type(reason).__name__])[0])


def case_params(case: Case) -> dict:
    params = dict(case.params)
    if case.steps_per_call != 1:
        params["steps_per_call"] = case.steps_per_call
    if case.env:
        params["env"] = dict(case.env)
    return params


def assemble(workload: Workload, runner: str, quick: bool, cases: list[CaseResult],
             environment: dict | None = None, unavailable: dict[str, str] | None = None) -> ResultsFile:
    """The results file of these cases; ``environment``: recorded by the processes that measured
    them (default: this process's); ``unavailable``: the cases that could not run, and why."""
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
        unavailable=dict(unavailable or {}),
    )
