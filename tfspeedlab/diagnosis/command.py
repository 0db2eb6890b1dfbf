"""``tfspeedlab diagnose TARGET``: load what the reader names, measure it within the budget with
progress on stderr, print the report, and keep it as JSON, Markdown or HTML on request.

Every bad input (a missing file or function, a function that raises, exits or touches no
TensorFlow, inputs that don't fit, a report path it may not write, a budget too small for one call)
ends with one clear message and exit 2, checked before anything is measured where it can be; Ctrl-C
prints what was measured so far and exits 130 (a ``KeyboardInterrupt`` the reader's code raised
itself is its failure, exit 2). The report files are written before the report is
printed, so a failing standard output loses none of them.
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfspeedlab.core.results.schema import SCHEMA
from tfspeedlab.core.results.store import json_text, write_text_atomic
from tfspeedlab.core.spec.names import example_name_problem
from tfspeedlab.core.units import format_time
from tfspeedlab.diagnosis import (backend_core, backends as diagnose_backends, report_files, saved as diagnosis_files,
                                  targets, threads as diagnose_threads)
from tfspeedlab.diagnosis.codec import model_to_json, to_json as diagnosis_to_json
from tfspeedlab.diagnosis.function import FLOOR_BLOCKS, LEAST_CALLS, measure
from tfspeedlab.diagnosis.function_core import Diagnosis, pool as pool_diagnoses
from tfspeedlab.diagnosis.model import MODEL_SUFFIXES, diagnose_model
from tfspeedlab.diagnosis.reader_code import ctrl_c_watched, reader_code
from tfspeedlab.diagnosis.report import Report, function_report, model_report
from tfspeedlab.harness import machine, native_logs
from tfspeedlab.harness.exits import EXIT_INTERRUPTED, EXIT_OK, UsageError

MAX_BUDGET_S = 3600
# The report files, in the order they are written.
REPORT_OPTIONS = ("save", "markdown", "html")


@dataclass(frozen=True)
class Finished:
    """One finished diagnosis: its report, its JSON with the machine it ran on, and whether Ctrl-C cut it short."""

    report: Report
    data: dict[str, Any]
    interrupted: bool

    @classmethod
    def of(cls, report: Report, data: dict[str, Any], interrupted: bool) -> Finished:
        # The machine and software it was measured on travel with the numbers.
        return cls(report, {**data, "environment": machine.capture()}, interrupted)

    @classmethod
    def of_function(cls, found: Diagnosis) -> Finished:
        """A function's diagnosis, kept as a results file."""
        return cls(function_report(found), diagnosis_to_json(found, machine.capture()), found.interrupted)

    def saved_as(self, path: Path) -> dict[str, Any]:
        """The JSON to save at ``path``: a results file is found again by its name, so it names the file."""
        if self.data.get("schema") == SCHEMA and example_name_problem(path.stem) is None:
            return {**self.data, "example": path.stem}
        return self.data


def run(options: Any) -> int:
    if not 0 < options.budget <= MAX_BUDGET_S:
        # repr, not :g: "at most 3600, got 3600" would contradict itself for 3600.0000001.
        raise UsageError(f"--budget must be more than 0 and at most {MAX_BUDGET_S} seconds, got {options.budget!r}")
    is_model = options.target.lower().endswith(MODEL_SUFFIXES)
    # Checked before anything is measured: a path it may not write costs the reader nothing.
    report_files.check_report_paths({option: getattr(options, option) for option in REPORT_OPTIONS},
                                    _sources(options, is_model))
    native_logs.quiet_tensorflow_logs()
    machine.hide_gpus_for("auto")  # on a machine without a GPU: no probe for one, and no error line
    machine.mark_run_start()
    try:
        # Ctrl-C is a SIGINT that came while measuring, not any KeyboardInterrupt: the reader's code may raise one.
        with ctrl_c_watched():
            # A target ending in a Keras model file's suffix (in any case) is a model, not a function.
            finished = _model_report(options) if is_model else _function_report(options)
    except KeyboardInterrupt:
        finished = None
    if finished is None:
        print("\ninterrupted before anything was timed; nothing to report", file=sys.stderr)
        return EXIT_INTERRUPTED
    # Kept before it is printed: a standard output that fails (a full disk, a closed pipe) must
    # not lose the files the reader asked for.
    try:
        _keep(finished, options)
    except OSError as error:
        raise UsageError(f"cannot write the report: {error.strerror or error}: {error.filename or ''}".rstrip(": ")) \
            from None
    print(json.dumps(finished.data, indent=2) if options.json else finished.report.text())
    return EXIT_INTERRUPTED if finished.interrupted else EXIT_OK


def _sources(options: Any, is_model: bool) -> list[Path]:
    """The files being diagnosed: a report never replaces one of them."""
    specs = [options.target] if is_model else [spec.rpartition(":")[0] for spec in (options.target, options.inputs)
                                               if spec and targets.names_a_file(spec)]
    return [Path(spec) for spec in specs]


def _function_report(options: Any) -> Finished | None:
    if options.batch is not None:
        raise targets.TargetError("--batch is for a Keras model file (model.keras); a function takes its "
                                  "inputs from --inputs")
    if getattr(options, "backends", None):
        raise targets.TargetError("--backends is for a Keras model file (model.keras): a function is written "
                                  "for one framework")
    # In a child of --threads: its thread setting, before the reader's module can run an op.
    diagnose_threads.apply_from_environment()
    with reader_code(f"importing {options.target.rpartition(':')[0]}"):
        function = targets.load_function(options.target)
    with reader_code(f"--inputs {options.inputs}"):
        inputs = targets.load_inputs(options.inputs) if options.inputs else targets.Inputs((), {})
    _progress(f"checking {options.target} with its inputs …")
    # The budget counts from here: importing TensorFlow and the reader's module comes before it.
    started = time.perf_counter()
    with reader_code(options.target):
        targets.check_runs(function, inputs, options.target)
    check_budget(time.perf_counter() - started, options.budget)
    # The report's first line is then the command that reproduces it.
    target = f"{options.target} --inputs {options.inputs}" if options.inputs else options.target
    if getattr(options, "threads", False):
        return _threads_report(options)
    if options.processes > 1:
        return _pooled_report(options)
    try:
        with reader_code(f"{options.target}, while being timed"):
            found = measure(function, inputs.args, inputs.kwargs, budget_s=options.budget, target=target,
                            progress=_progress, started=started)
    except Exception as error:  # noqa: BLE001 (the reader's code, traced or compiled, may raise anything)
        if isinstance(error, targets.TargetError):
            raise
        raise targets.TargetError(f"{options.target} failed while being timed: {type(error).__name__}: {error}") \
            from None
    return Finished.of_function(found)


def check_budget(one_call_s: float, budget_s: float) -> None:
    """Refuse a budget the least a diagnosis does cannot keep to, saying what budget would."""
    least_s = LEAST_CALLS * one_call_s
    if least_s <= budget_s:
        return
    enough = f"give --budget {math.ceil(least_s * 1.5)} or more"
    if one_call_s > budget_s:
        raise UsageError(f"one call alone took {format_time(one_call_s)}, longer than the whole --budget "
                         f"{budget_s:g} s; a diagnosis makes at least {LEAST_CALLS} calls: {enough}")
    raise UsageError(f"one call took {format_time(one_call_s)}: the least a diagnosis does ({LEAST_CALLS} calls: "
                     f"each mode's first call, a warm-up, a calibration and {FLOOR_BLOCKS} timed blocks) takes "
                     f"about {least_s:.2g} s, more than --budget {budget_s:g}; {enough}")


def _pooled_report(options: Any) -> Finished | None:
    """The diagnosis in ``--processes`` fresh processes, one after another, pooled: as for the
    guide's full runs, the interval then covers how far a fresh process moves, not just how far
    one process's blocks scatter. Ctrl-C pools the processes that finished (or were interrupted);
    None when it came before any had timed anything."""
    found, interrupted = [], False
    deadline = time.perf_counter() + options.budget
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-diagnose-") as folder:
        for process in range(options.processes):
            # What is left of the budget, shared among the processes still to run.
            share_s = (deadline - time.perf_counter()) / (options.processes - process)
            if share_s <= 0:
                _progress(f"the budget was spent after {process} of {options.processes} processes")
                break
            _progress(f"process {process + 1} of {options.processes} …")
            saved = Path(folder) / f"{process}.json"
            command = [sys.executable, "-m", "tfspeedlab", "diagnose", options.target, "--budget",
                       repr(share_s), "--save", str(saved)]
            command += ["--inputs", options.inputs] if options.inputs else []
            try:
                # Its report goes nowhere (the pooled one is printed); its progress and errors to stderr.
                code = subprocess.run(command, stdout=subprocess.DEVNULL).returncode
            except KeyboardInterrupt:
                code = EXIT_INTERRUPTED  # the child had the same Ctrl-C and kept what it measured
            if code not in (EXIT_OK, EXIT_INTERRUPTED):
                raise targets.TargetError(f"process {process + 1} of {options.processes} failed (exit {code}); "
                                          "its error is above")
            if not saved.is_file():
                # Exit 0 without its report: the reader's code ended the process (os._exit in a thread,
                # a signal handler) where no check of ours could see it.
                raise targets.TargetError(f"process {process + 1} of {options.processes} ended (exit {code}) "
                                          "without its report: the function ended the process itself")
            found.append(diagnosis_files.load(saved).diagnosis)
            if code == EXIT_INTERRUPTED:
                interrupted = True
                break
    if not found:
        return None
    pooled = pool_diagnoses(found)
    if interrupted and not pooled.interrupted:
        pooled = dataclasses.replace(pooled, interrupted=True)
    return Finished.of_function(pooled)


def _threads_report(options: Any) -> Finished | None:
    """The function under each thread setting, in fresh processes taken in turn, against the defaults."""
    processes = options.processes if options.processes > 1 else diagnose_threads.PROCESSES
    found = diagnose_threads.diagnose_threads(options.target, options.inputs, options.budget, processes,
                                              progress=_progress)
    if found is None:
        return None
    return Finished.of(diagnose_threads.report(found), diagnose_threads.to_json(found), found.interrupted)


def _model_report(options: Any) -> Finished:
    if options.processes > 1:
        raise targets.TargetError("--processes is for a function; a Keras model is diagnosed in this process")
    if getattr(options, "threads", False):
        raise targets.TargetError("--threads is for a function (path/to/file.py:function); a Keras model's "
                                  "thread settings are not probed")
    if options.inputs:
        raise targets.TargetError("--inputs is for a function; a Keras model's inputs come from its input "
                                  "spec and --batch")
    if getattr(options, "backends", None):
        return _backends_report(options)
    with reader_code(options.target):  # a model's own layers' code, printing or exiting
        found = diagnose_model(Path(options.target), options.batch or 32, budget_s=options.budget,
                               progress=_progress)
    return Finished(model_report(found), model_to_json(found, machine.capture()), found.interrupted)


def _backends_report(options: Any) -> Finished:
    """The model on each backend named, in fresh processes taken in turn, against the first."""
    backends = diagnose_backends.parse_backends(options.backends)
    if not Path(options.target).is_file():
        raise targets.TargetError(f"{options.target}: no such model file")
    found = diagnose_backends.diagnose_backends(Path(options.target), backends, options.batch or 32,
                                                options.budget, progress=_progress)
    return Finished.of(backend_core.report(found), backend_core.to_json(found), found.interrupted)


def _keep(finished: Finished, options: Any) -> None:
    writers = {"save": lambda: json_text(finished.saved_as(Path(path))), "markdown": finished.report.markdown,
               "html": finished.report.html}
    for option in REPORT_OPTIONS:
        path = getattr(options, option)
        if path is not None:
            # Checked again: something may have appeared at the path while the function was timed.
            report_files.check_still_writable(option, path)
            write_text_atomic(path, writers[option]())
            _progress(f"wrote {path}")


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
