"""What ``compare`` says of each side's environment, and where two sides' environments differ.

A side is every results file of one run that ``compare`` pairs with the other side's. Its summary
gives what a comparison depends on, as pyperf's ``compare_to`` and benchstat print it: the CPU model
with the instruction sets its kernels use, the TensorFlow and Keras versions, whether the run was
full or quick, how many processes timed each case, and when. Two sides are on different machines
when any pair of files was measured on different CPU models (``same_cpu``): then their raw times
do not transfer, and only the speed-ups within each example can be compared.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tfspeedlab.core.results.cpu import CpuNames, cpu_description, instruction_sets, same_cpu
from tfspeedlab.core.results.schema import ResultsFile


def _distinct(values: Iterable[Any]) -> tuple[str, ...]:
    """Each value once, in the order first seen, as text (``None``: "none")."""
    return tuple(dict.fromkeys("none" if value is None else str(value) for value in values))


@dataclass(frozen=True)
class EnvironmentSummary:
    """One side's environment over the files it compares; a field with several values lists each."""

    cpus: tuple[str, ...]  # ``cpu_description`` of each CPU model: name, family, model, instruction sets
    instruction_sets: tuple[str, ...]
    tensorflow: tuple[str, ...]
    keras: tuple[str, ...]
    sizes: tuple[str, ...]  # "full", "quick"
    fewest_processes: int  # the fewest processes any compared case was timed in
    most_processes: int
    measured: tuple[str, ...]  # the dates (UTC) the files were written

    @property
    def one_process(self) -> bool:
        """Every compared case was timed in a single process: no interval between processes."""
        return self.most_processes < 2

    @property
    def processes(self) -> str:
        """``6 processes a case``, ``1–6 processes a case``, ``one process a case``."""
        if self.most_processes == 1:
            return "one process a case"
        if self.fewest_processes == self.most_processes:
            return f"{self.most_processes} processes a case"
        return f"{self.fewest_processes}–{self.most_processes} processes a case"

    @property
    def size(self) -> str:
        return " and ".join(self.sizes) + (" runs" if len(self.sizes) > 1 else " run")

    def lines(self) -> list[str]:
        """The summary for a terminal: the CPU first (one line each), then the software and the run."""
        software = f"TensorFlow {', '.join(self.tensorflow)}, Keras {', '.join(self.keras)}"
        dates = "measured " + (self.measured[0] if len(self.measured) == 1 else
                               f"{min(self.measured)} to {max(self.measured)}")
        return [*self.cpus, f"{software} · {self.size} · {self.processes} · {dates}"]

    def to_json(self) -> dict[str, Any]:
        return {"cpus": list(self.cpus), "instruction_sets": list(self.instruction_sets),
                "tensorflow": list(self.tensorflow), "keras": list(self.keras), "sizes": list(self.sizes),
                "processes": {"fewest": self.fewest_processes, "most": self.most_processes},
                "measured": list(self.measured)}


def summarize(compared: Sequence[tuple[ResultsFile, Collection[str]]]) -> EnvironmentSummary:
    """The environment of the files in ``compared``, each with the labels of its cases compared (whose
    processes are counted)."""
    files = [results for results, _ in compared]
    environments = [results.environment for results in files]
    runs = [len(case.runs) for results, labels in compared for case in results.cases if case.label in labels] or [0]
    return EnvironmentSummary(
        cpus=_distinct(cpu_description(environment) for environment in environments),
        instruction_sets=_distinct(instruction_sets(environment) for environment in environments),
        tensorflow=_distinct(environment.get("tensorflow") for environment in environments),
        keras=_distinct(environment.get("keras") for environment in environments),
        sizes=_distinct("quick" if results.quick else "full" for results in files),
        fewest_processes=min(runs), most_processes=max(runs),
        measured=_distinct(str(environment.get("utc_time", ""))[:10] for environment in environments))


@dataclass(frozen=True)
class Differences:
    """Where the two sides' environments differ: the CPU models (``machines``), and the rest."""

    machines: tuple[str, ...]
    others: tuple[str, ...]

    @property
    def machines_differ(self) -> bool:
        return bool(self.machines)

    def lines(self) -> list[str]:
        """``machines differ: …`` (with what else differs), or ``environments differ: …``; none alike."""
        if self.machines:
            return [f"machines differ: {'; '.join(self.machines)}"
                    + (f"; also {'; '.join(self.others)}" if self.others else "")]
        return [f"environments differ: {'; '.join(self.others)}"] if self.others else []

    def to_json(self) -> dict[str, Any]:
        return {"machines_differ": self.machines_differ, "machines": list(self.machines), "others": list(self.others)}


def differences(pairs: Sequence[tuple[ResultsFile, ResultsFile]], old: EnvironmentSummary,
                new: EnvironmentSummary) -> Differences:
    """What differs between the sides: the CPU of any pair of files (named so that two models of one
    name read apart), then software versions, run size and processes a case."""
    names = CpuNames.of(results.environment for pair in pairs for results in pair)
    machines = _distinct(f"{names.with_sets(before.environment)} (old) against "
                         f"{names.with_sets(after.environment)} (new)"
                         for before, after in pairs if not same_cpu(before.environment, after.environment))
    others = []
    for what, before, after in (("TensorFlow", old.tensorflow, new.tensorflow), ("Keras", old.keras, new.keras)):
        if before != after:
            others.append(f"{what} {', '.join(before)} (old) against {', '.join(after)} (new)")
    if old.sizes != new.sizes:
        others.append(f"{old.size} (old) against {new.size} (new)")
    if (old.fewest_processes, old.most_processes) != (new.fewest_processes, new.most_processes):
        others.append(f"{old.processes} (old) against {new.processes} (new)")
    return Differences(machines, tuple(others))
