"""How long an example's run should take, from what the example declares: its budget, its cases and
the processes they are timed in.

A process times each of its cases for ``Workload.budget_s`` (its cases' blocks take turns, so a
process of n cases spends n budgets), and every process started costs a start-up allowance on top:
starting Python and importing TensorFlow (4–5 s on the guide's 2-core machine), building the
workload, warming its cases up and calibrating their blocks. So

    estimate = budget_s × case-runs (each case × the processes it is timed in)
               + processes started × start-up allowance

An estimate, not a promise: first calls are not declared (an XLA compile can take minutes), nor is
work an example does besides its timed blocks (the memory example's loops of calls), and a
busy machine stretches everything. The worker works it out once the example's workload is built and
hands it to the supervisor (``write_estimate``), which shows it beside the time spent.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from tfspeedlab.core.results.store import write_json_atomic
from tfspeedlab.core.spec.workload import Workload
from tfspeedlab.harness.isolation import default_rounds

# A fresh interpreter: Python, the TensorFlow import (4–5 s here), building the workload and warming up.
STARTUP_FRESH_S = 8.0
# A process forked from one that imported TensorFlow already (a quick run's): building and warming up.
STARTUP_FORKED_S = 4.0


@dataclass(frozen=True)
class ExampleEstimate:
    """An example's declared cost: see the module's note for the sum."""

    budget_s: float
    cases: int
    case_runs: int  # the cases × the processes each is timed in
    processes: int  # processes started, the worker's own included
    startup_s: float  # allowance per process

    @property
    def seconds(self) -> float:
        return self.budget_s * self.case_runs + self.processes * self.startup_s

    def explained(self) -> str:
        """``about 1 min 50 s (3 s budget × 18 case-runs, 3 cases in 6 processes each, + 7 processes × 8 s
        start-up)``: the estimate and its sum, for the line a run prints."""
        cases = _counted(self.cases, "case", "cases")
        each, uneven = divmod(self.case_runs, self.cases)
        spread = (f"{cases} in {_counted(each, 'process', 'processes')}{' each' if self.cases > 1 else ''}"
                  if not uneven else f"{cases} over their processes")
        return (f"about {format_duration(self.seconds)} ({self.budget_s:g} s budget × "
                f"{_counted(self.case_runs, 'case-run', 'case-runs')}, {spread}, + "
                f"{_counted(self.processes, 'process', 'processes')} × {self.startup_s:g} s start-up)")


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def estimate(workload: Workload, quick: bool, processes: int | None = None,
             forked: bool = False) -> ExampleEstimate:
    """The estimate for ``workload`` as ``isolation.measure`` will run it: in the worker's own process
    where no case needs a process of its own and each runs once, else in one child per group per round."""
    fallback = processes or default_rounds(quick)
    rounds = {case.label: case.rounds or fallback for case in workload.cases}
    started = 1  # the worker, which builds the workload whatever else runs
    if workload.processes or any(count > 1 for count in rounds.values()):
        started += sum(1 for round_number in range(1, max(rounds.values()) + 1) for group in workload.groups
                       if any(case.process == group and rounds[case.label] >= round_number for case in workload.cases))
    return ExampleEstimate(workload.budget_s, len(workload.cases), sum(rounds.values()), started,
                    STARTUP_FORKED_S if forked else STARTUP_FRESH_S)


def write_estimate(path: Path, found: ExampleEstimate) -> None:
    write_json_atomic(path, {**asdict(found), "seconds": found.seconds, "explained": found.explained()})


def read_estimate(path: Path) -> float | None:
    """The seconds a worker estimated, or None where it has not written them (yet) or they are unreadable:
    an estimate is never worth stopping a run for."""
    try:
        seconds = json.loads(Path(path).read_text(encoding="utf-8"))["seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return float(seconds) if isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds >= 0 else None


def format_duration(seconds: float) -> str:
    """``45 s``, ``3 min 10 s``, ``1 h 5 min``: a wall-clock span for people, to the second below ten minutes."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 600:
        minutes, rest = divmod(seconds, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
