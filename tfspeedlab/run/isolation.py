"""Measure a workload: in this process, or each process group in a fresh Python process.

TensorFlow fixes some choices for the life of a process: eager or TF1-style
graph execution, which Keras ``tf.keras`` is, its thread pools. A workload
that compares such choices puts each in its own ``process`` group; every group
runs in a child (``python -m tfspeedlab.run.worker --process NAME``) that writes
its cases to a partial results file.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tfspeedlab.results.schema import CaseResult, ResultsFile
from tfspeedlab.results.store import load_results
from tfspeedlab.run.cases import assemble, run_workload
from tfspeedlab.spec.workload import Workload


class ProcessGroupError(RuntimeError):
    """A process group's child exited with an error; its output says why."""


def run_in_processes(script: Path, workload: Workload, runner: str, quick: bool) -> ResultsFile:
    """Every process group in a child of its own, round after round; blocks of all rounds pooled."""
    rounds_needed = max(case.rounds for case in workload.cases)
    by_label: dict[str, list[CaseResult]] = {}
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-") as scratch:
        for round_number in range(1, rounds_needed + 1):
            for index, group in enumerate(workload.processes, start=1):
                members = [c for c in workload.cases if c.process == group and c.rounds >= round_number]
                if not members:
                    continue
                partial = Path(scratch) / f"round-{round_number}-group-{index}.json"
                print(f"  {workload.name}: round {round_number}/{rounds_needed}, process "
                      f"{index}/{len(workload.processes)} — {group}", file=sys.stderr, flush=True)
                _run_child(script, runner, quick, group, round_number, partial, members[0].env)
                for case in load_results(partial).cases:
                    by_label.setdefault(case.label, []).append(case)
    return assemble(workload, runner, quick, [pool(by_label[case.label]) for case in workload.cases])


def _run_child(script: Path, runner: str, quick: bool, group: str, round_number: int, partial: Path,
               env: dict) -> None:
    command = [sys.executable, "-m", "tfspeedlab.run.worker", str(script), "--runner", runner, "--process", group,
               "--round", str(round_number), "--partial", str(partial)] + (["--quick"] if quick else [])
    completed = subprocess.run(command, env={**os.environ, **env})
    if completed.returncode != 0:
        raise ProcessGroupError(f"process group {group!r} (round {round_number}) exited with {completed.returncode}")


def pool(rounds: list[CaseResult]) -> CaseResult:
    """One case measured in several processes: all their blocks, the first process's first call.

    Pooling keeps the process-to-process spread in the IQR, where a reader
    can see it, instead of hiding it behind one lucky or unlucky process.
    """
    first = rounds[0]
    if len(rounds) == 1:
        return first
    measurement = dataclasses.replace(
        first.measurement,
        samples_s=tuple(s for r in rounds for s in r.measurement.samples_s),
        calls_per_block=min(r.measurement.calls_per_block for r in rounds),
    )
    metrics = dict(rounds[-1].metrics)
    metrics["processes"] = len(rounds)
    return CaseResult(first.label, first.params, measurement, metrics)


def measure(script: Path, workload: Workload, runner: str, quick: bool) -> ResultsFile:
    """All of a workload's cases: here, or one fresh process per process group."""
    if workload.processes:
        return run_in_processes(script, workload, runner, quick)
    return run_workload(workload, runner, quick)
