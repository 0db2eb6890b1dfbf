"""Run a workload's process groups each in a fresh Python process, and gather the results.

TensorFlow fixes some choices for the life of a process: eager or TF1-style
graph execution, which Keras ``tf.keras`` is, its thread pools. A workload
that compares such choices puts each in its own ``process`` group; every group
runs in a child (``python -m tfspeedlab.worker --process NAME``) that writes
its cases to a partial results file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tfspeedlab.results import load_results
from tfspeedlab.runner import assemble
from tfspeedlab.workload import Workload


class ProcessGroupError(RuntimeError):
    """A process group's child exited with an error; its output says why."""


def run_in_processes(script: Path, workload: Workload, runner: str, quick: bool):
    by_label = {}
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-") as scratch:
        for index, group in enumerate(workload.processes, start=1):
            env = dict(os.environ)
            env.update(next(case.env for case in workload.cases if case.process == group))
            partial = Path(scratch) / f"group-{index}.json"
            print(f"  {workload.name}: process {index}/{len(workload.processes)} — {group}",
                  file=sys.stderr, flush=True)
            command = [sys.executable, "-m", "tfspeedlab.worker", str(script), "--runner", runner,
                       "--process", group, "--partial", str(partial)]
            completed = subprocess.run(command + (["--quick"] if quick else []), env=env)
            if completed.returncode != 0:
                raise ProcessGroupError(f"process group {group!r} exited with {completed.returncode}")
            for case in load_results(partial).cases:
                by_label[case.label] = case
    return assemble(workload, runner, quick, [by_label[case.label] for case in workload.cases])
