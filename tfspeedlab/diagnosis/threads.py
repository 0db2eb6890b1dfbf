"""``tfspeedlab diagnose TARGET --threads``: the reader's function under TensorFlow's thread settings,
each in fresh processes of its own, the settings taking turns, every mode set against the defaults.

TensorFlow fixes its thread pools when its runtime starts, so a setting cannot be changed within a
process: each child is ``tfspeedlab diagnose TARGET --save FILE`` with the setting in its
environment (``THREADS_VARIABLE``), applied before the reader's module is imported. A setting is
named in the verdict only where its whole interval is materially faster than the defaults
(``materiality.material``), and only from two processes or more (one process can land in a slow state
as a whole: no verdict from one).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.intervals import Ratio
from tfspeedlab.core.stats.materiality import MATERIAL_SPEEDUP, material
from tfspeedlab.core.units import format_time
from tfspeedlab.core.wording import Verdict, page_speedup
from tfspeedlab.diagnosis import saved as diagnosis_files
from tfspeedlab.diagnosis.function_core import MODES, Diagnosis, pool
from tfspeedlab.diagnosis.report import VERDICT_LEAD, Report
from tfspeedlab.diagnosis.targets import TargetError
from tfspeedlab.harness.exits import EXIT_INTERRUPTED, EXIT_OK

# Setting → (inter-op threads, intra-op threads); 0 is TensorFlow's default (one per usable core).
# The three the CPU settings page found to matter most for small and large ops.
SETTINGS = {"default": (0, 0), "inter default · intra 1": (0, 1), "inter 1 · intra 1": (1, 1)}
REFERENCE = "default"
# Fresh processes per setting unless --processes asks for more: every comparison rests on two.
PROCESSES = 2
# How a child learns its setting: "INTER,INTRA".
THREADS_VARIABLE = "TFSPEEDLAB_DIAGNOSE_THREADS"
# The guide's page on thread settings, as the report's links name it.
LINKS = (("cpu-settings.md", "Which CPU settings matter?"),)


def apply_from_environment() -> tuple[int, int] | None:
    """In a child: set the thread pools ``THREADS_VARIABLE`` names, before anything runs an op."""
    text = os.environ.get(THREADS_VARIABLE)
    if not text:
        return None
    try:
        inter, intra = (int(part) for part in text.split(","))
    except ValueError:
        raise TargetError(f"{THREADS_VARIABLE}={text!r}: expected two whole numbers, INTER,INTRA") from None
    import tensorflow as tf

    tf.config.threading.set_inter_op_parallelism_threads(inter)
    tf.config.threading.set_intra_op_parallelism_threads(intra)
    return inter, intra


@dataclass(frozen=True)
class SettingResult:
    """One setting's diagnosis (its processes pooled) and each mode against the defaults."""

    setting: str
    diagnosis: Diagnosis
    # mode → the defaults' time over this setting's (above 1: this setting is faster), with its interval.
    against_default: dict[str, Ratio]
    # (inter-op, intra-op) threads each process recorded in force: the setting, as TensorFlow took it.
    in_force: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class ThreadsDiagnosis:
    target: str
    settings: list[SettingResult]  # the defaults first
    processes: int  # fresh processes per setting that finished
    interrupted: bool

    def best(self) -> tuple[SettingResult, str, Ratio] | None:
        """The setting and mode materially faster than the defaults by the most (the lower end of
        the interval), or None where none is (or fewer than two processes ran)."""
        if self.processes < 2:
            return None
        found = [(result, mode, ratio) for result in self.settings for mode, ratio in result.against_default.items()
                 if material(ratio) is Verdict.FASTER]
        return max(found, key=lambda item: item[2].low, default=None)


def compare(target: str, diagnoses: dict[str, list[Diagnosis]], interrupted: bool = False,
            in_force: dict[str, list[tuple[int, int]]] | None = None) -> ThreadsDiagnosis:
    """Pool each setting's processes and set every mode that ran under both against the defaults."""
    pooled = {setting: pool(found) for setting, found in diagnoses.items() if found}
    if REFERENCE not in pooled:
        raise TargetError("the defaults were not measured, so no setting can be set against them")
    reference = pooled[REFERENCE]
    results = []
    for setting, found in pooled.items():
        against = {mode: intervals.ratio(reference.modes[mode], case) for mode, case in found.modes.items()
                   if setting != REFERENCE and mode in reference.modes}
        results.append(SettingResult(setting, found, against, tuple((in_force or {}).get(setting, ()))))
    processes = min(len(found) for found in diagnoses.values() if found)
    return ThreadsDiagnosis(target, results, processes, interrupted)


def diagnose_threads(target: str, inputs: str | None, budget_s: float, processes: int = PROCESSES,
                     progress: Callable[[str], None] = lambda line: None) -> ThreadsDiagnosis | None:
    """Each setting in ``processes`` fresh processes, the settings taking turns (a machine that
    slows for a while slows them all); None when Ctrl-C came before the defaults had run once."""
    diagnoses: dict[str, list[Diagnosis]] = {setting: [] for setting in SETTINGS}
    in_force: dict[str, list[tuple[int, int]]] = {setting: [] for setting in SETTINGS}
    interrupted = False
    runs = [(round_number, setting) for round_number in range(processes) for setting in SETTINGS]
    # As for one process, the budget is the diagnosis's, from each child's first call on: a child's
    # imports come before its share (so every setting gets as many processes, however slow they start).
    share_s = budget_s / len(runs)
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-threads-") as folder:
        for index, (round_number, setting) in enumerate(runs):
            progress(f"{setting}: process {round_number + 1} of {processes} …")
            saved = Path(folder) / f"{round_number}-{index}.json"
            code = _child(target, inputs, SETTINGS[setting], share_s, saved)
            if code not in (EXIT_OK, EXIT_INTERRUPTED):
                raise TargetError(f"{setting}, process {round_number + 1}, failed (exit {code}); its error is above")
            if saved.is_file():
                kept = diagnosis_files.load(saved)
                diagnoses[setting].append(kept.diagnosis)
                in_force[setting].append((int(kept.environment.get("inter_op_threads", -1)),
                                          int(kept.environment.get("intra_op_threads", -1))))
            if code == EXIT_INTERRUPTED:
                interrupted = True
                break
    if not diagnoses[REFERENCE]:
        return None
    # A setting a Ctrl-C left unmeasured is left out rather than compared from nothing.
    return compare(target, {setting: found for setting, found in diagnoses.items() if found}, interrupted, in_force)


def _child(target: str, inputs: str | None, threads: tuple[int, int], budget_s: float, saved: Path) -> int:
    command = [sys.executable, "-m", "tfspeedlab", "diagnose", target, "--budget", repr(budget_s), "--save", str(saved)]
    command += ["--inputs", inputs] if inputs else []
    environment = {**os.environ, THREADS_VARIABLE: f"{threads[0]},{threads[1]}"}
    try:
        # Its report goes nowhere (the comparison is printed); its progress and errors to stderr.
        return subprocess.run(command, stdout=subprocess.DEVNULL, env=environment).returncode
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED  # the child had the same Ctrl-C and kept what it measured


def _threads_name(threads: tuple[int, int]) -> str:
    inter, intra = (str(count) if count else "default" for count in threads)
    return f"inter_op_parallelism_threads={inter}, intra_op_parallelism_threads={intra}"


def report(found: ThreadsDiagnosis) -> Report:
    """The settings' times per mode, each against the defaults, then the verdict."""
    settings = []
    for result in found.settings:
        settings.append(f"{result.setting} ({_threads_name(SETTINGS[result.setting])})")
        for mode in MODES:
            if mode not in result.diagnosis.modes:
                settings.append(f"  {mode:<12} could not run: {result.diagnosis.unavailable.get(mode, 'not timed')}")
                continue
            against = result.against_default.get(mode)
            beside = f"  against the defaults: {page_speedup(against)}" if against is not None else ""
            settings.append(f"  {mode:<12} {format_time(result.diagnosis.per_call_s[mode]):>10}{beside}")
    sections = [f"tfspeedlab diagnose {found.target} --threads\n"
                f"each setting in {found.processes} fresh process{'es' if found.processes != 1 else ''}, "
                "the settings taking turns; the time is the 10th percentile of all blocks", "\n".join(settings)]
    if found.interrupted:
        sections.append("Interrupted: the settings and processes above are what finished.")
    return Report(found.target, tuple(sections), verdict(found), LINKS)


def verdict(found: ThreadsDiagnosis) -> str:
    if found.processes < 2:
        return "none from one process per setting (run with --processes 2 or more)."
    best = found.best()
    if best is None:
        return (f"keep TensorFlow's default thread settings; no setting beat them by "
                f"{MATERIAL_SPEEDUP:.2f}× or more.")
    result, mode, ratio = best
    inter, intra = SETTINGS[result.setting]
    calls = [f"tf.config.threading.set_inter_op_parallelism_threads({inter})" if inter else None,
             f"tf.config.threading.set_intra_op_parallelism_threads({intra})" if intra else None]
    return (f"against the defaults, {result.setting} made {mode} {page_speedup(ratio)}; set it before "
            f"the first op: {'; '.join(call for call in calls if call)}.")


def to_json(found: ThreadsDiagnosis) -> dict:
    best = found.best()
    return {
        "kind": "threads",
        "target": found.target,
        "processes": found.processes,
        "interrupted": found.interrupted,
        "settings": {result.setting: {
            "inter_op_threads": SETTINGS[result.setting][0],
            "intra_op_threads": SETTINGS[result.setting][1],
            "modes": {mode: {"time_s": result.diagnosis.per_call_s.get(mode),
                             "error": result.diagnosis.unavailable.get(mode),
                             "against_default": _ratio_json(result.against_default.get(mode))}
                      for mode in MODES},
            "in_force": [list(threads) for threads in result.in_force],
        } for result in found.settings},
        "best": None if best is None else {"setting": best[0].setting, "mode": best[1],
                                           "against_default": _ratio_json(best[2])},
        "verdict": f"{VERDICT_LEAD} {verdict(found)}",
    }


def _ratio_json(found: Ratio | None) -> dict | None:
    return None if found is None else {"value": found.value, "low": found.low, "high": found.high,
                                       "processes": found.processes}
