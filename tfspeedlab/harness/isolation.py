"""Measure a workload in fresh Python processes, several per case, and keep each process's run.

Two processes of the same code can differ by 10% or more (thread placement,
memory layout, what else the machine does), so a case is timed in several
fresh processes — pyperf's model — and every run is kept. TensorFlow also
fixes some choices for the life of a process (eager or TF1-style graph
execution, which Keras ``tf.keras`` is, its thread pools): a workload that
compares such choices puts each in its own ``process`` group. Each round runs
every group once, in turn (A B C A B C …), so that drift of the machine falls
on all of them alike; each child (``python -m tfspeedlab.harness.worker``) writes
its cases to a partial results file.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tfspeedlab.core.results.schema import CaseResult, ResultsFile
from tfspeedlab.core.results.store import load_results
from tfspeedlab.core.spec.workload import Workload
from tfspeedlab.harness import launch, machine
from tfspeedlab.harness.cases import assemble, run_workload

# Fresh processes per case (runs) when a case does not say: chosen by the
# experiment on "How to time TensorFlow fairly" — three full runs bring the
# speed-ups within a few percent of each other; a quick run is a smoke test.
PROCESSES_FULL = 3
PROCESSES_QUICK = 1


class ProcessGroupError(RuntimeError):
    """A process group's child exited with an error; its output says why."""


def default_rounds(quick: bool) -> int:
    return PROCESSES_QUICK if quick else PROCESSES_FULL


def run_in_processes(script: Path, workload: Workload, runner: str, quick: bool,
                     processes: int | None = None) -> ResultsFile:
    """Every group in a fresh child process, round after round (A B C A B C …); each run kept.

    ``processes`` overrides the default number of runs for cases that do not set their own.
    """
    fallback = processes or default_rounds(quick)
    rounds_needed = max(case.rounds or fallback for case in workload.cases)
    groups = workload.groups
    runs: dict[str, list[CaseResult]] = {}
    unavailable: dict[str, str] = {}
    environments: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-") as scratch:
        for round_number in range(1, rounds_needed + 1):
            for index, group in enumerate(groups, start=1):
                members = [c for c in workload.cases if c.process == group and (c.rounds or fallback) >= round_number]
                if not members:
                    continue
                partial = Path(scratch) / f"round-{round_number}-group-{index}.json"
                print(f"  {workload.name}: round {round_number}/{rounds_needed}, process "
                      f"{index}/{len(groups)}{f' — {group}' if group else ''}", file=sys.stderr, flush=True)
                _run_child(script, runner, quick, group, round_number, partial, members[0].env, fallback,
                           dict(workload.params.get("only") or {}))
                measured = load_results(partial)
                environments.append(dict(measured.environment))
                for case in measured.cases:
                    runs.setdefault(case.label, []).append(case)
                unavailable.update(measured.unavailable)
    # The first child's record (this process need not import TensorFlow to describe
    # what its children ran), stamped with the time and load as the last one finished; without the
    # variables a case set for its own process (recorded with that case).
    environment = {**environments[0], "utc_time": environments[-1]["utc_time"],
                   "load_average_end": environments[-1].get("load_average_end"),
                   "tf_variables": machine.tf_variables()}
    # A case that ran in some of its processes keeps those runs; one that ran in none says why.
    measured_cases = [gather(runs[case.label]) for case in workload.cases if case.label in runs]
    reasons = {label: reason for label, reason in unavailable.items() if label not in runs}
    if not measured_cases:
        raise ProcessGroupError(f"no case of {workload.name!r} could run: " +
                                "; ".join(f"{label}: {reason}" for label, reason in reasons.items()))
    return assemble(workload, runner, quick, measured_cases, environment, unavailable=reasons)


def _run_child(script: Path, runner: str, quick: bool, group: str | None, round_number: int, partial: Path,
               env: dict, processes: int, only: dict) -> None:
    argv = [str(script), "--runner", runner, "--round", str(round_number), "--partial", str(partial),
            "--processes", str(processes)]
    argv += (["--process", group] if group is not None else []) + (["--quick"] if quick else [])
    argv += [f"--only={name}={value}" for name, value in only.items()]
    # A quick run forks the child from this process when that starts it as a fresh one would
    # (``launch``): the example is loaded here already, TensorFlow imported, its runtime not started.
    code = launch.start(argv, env, fork=quick and not launch.cold_start_requested()).wait()
    if code != 0:
        raise ProcessGroupError(f"process {group or 'of all cases'!r} (round {round_number}) exited with {code}")
    if not partial.exists():
        raise ProcessGroupError(f"process {group or 'of all cases'!r} (round {round_number}) "
                                "exited without writing its results")


def gather(rounds: list[CaseResult]) -> CaseResult:
    """One case from the processes it ran in: every run kept, in order; metrics of the last run, and
    each process's where there are several and every one measured some."""
    first = rounds[0]
    runs = tuple(run for r in rounds for run in r.runs)
    by_process = tuple(metrics for r in rounds for metrics in r.metrics_by_process)
    return CaseResult(first.label, first.params, runs, dict(rounds[-1].metrics),
                      run_metrics=by_process if len(runs) > 1 and len(by_process) == len(runs) else ())


def measure(script: Path, workload: Workload, runner: str, quick: bool, processes: int | None = None) -> ResultsFile:
    """All of a workload's cases, each in its own fresh processes, runs kept apart.

    Called in a fresh process already (the worker): a workload that needs one
    run of everything together takes it here, without starting another.
    """
    fallback = processes or default_rounds(quick)
    if not workload.processes and all((case.rounds or fallback) == 1 for case in workload.cases):
        return run_workload(workload, runner, quick, default_rounds=1)
    return run_in_processes(script, workload, runner, quick, processes)
