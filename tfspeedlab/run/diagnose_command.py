"""``tfspeedlab diagnose TARGET``: load what the reader names, measure it within the budget with
progress on stderr, print the report, and keep it as JSON, Markdown or HTML on request.

Every bad input (a missing file or function, a function that raises or touches no TensorFlow,
inputs that don't fit) ends with one clear message and exit 2; Ctrl-C prints what was measured so
far and exits 130.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfspeedlab.analysis import diagnosis as function_diagnosis
from tfspeedlab.analysis.diagnosis_report import html_report, markdown_report, text_report
from tfspeedlab.analysis.model_diagnosis import model_text_report, model_to_json
from tfspeedlab.results.store import write_json_atomic, write_text_atomic
from tfspeedlab.run import launch, machine, targets
from tfspeedlab.run.diagnose import measure
from tfspeedlab.run.diagnose_model import MODEL_SUFFIXES, diagnose_model
from tfspeedlab.run.exits import EXIT_INTERRUPTED, EXIT_OK, UsageError

MAX_BUDGET_S = 3600


@dataclass(frozen=True)
class Report:
    """One finished diagnosis in every form the command can give it."""

    target: str
    text: str
    data: dict[str, Any]
    links: list[tuple[str, str]]
    interrupted: bool


def run(options: Any) -> int:
    if not 0 < options.budget <= MAX_BUDGET_S:
        raise UsageError(f"--budget must be more than 0 and at most {MAX_BUDGET_S} seconds, got {options.budget:g}")
    for option in ("markdown", "html", "save"):
        path = getattr(options, option)
        if path is not None and path.is_dir():
            raise UsageError(f"--{option} {path} is a folder; give a file name")
    launch.quiet_tensorflow_logs()
    try:
        # A target ending in a Keras model file's suffix is a model, not a function.
        report = (_model_report(options) if options.target.endswith(MODEL_SUFFIXES)
                  else _function_report(options))
    except KeyboardInterrupt:
        report = None
    if report is None:
        print("\ninterrupted before anything was timed; nothing to report", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(json.dumps(report.data, indent=2) if options.json else report.text)
    try:
        _keep(report, options)
    except OSError as error:
        raise UsageError(f"cannot write the report: {error.strerror or error}: {error.filename or ''}".rstrip(": ")) \
            from None
    return EXIT_INTERRUPTED if report.interrupted else EXIT_OK


def _function_report(options: Any) -> Report | None:
    if options.batch is not None:
        raise targets.TargetError("--batch is for a Keras model file (model.keras); a function takes its "
                                  "inputs from --inputs")
    function = targets.load_function(options.target)
    inputs = targets.load_inputs(options.inputs) if options.inputs else targets.Inputs((), {})
    _progress(f"checking {options.target} with its inputs …")
    targets.check_runs(function, inputs, options.target)
    # The report's first line is then the command that reproduces it.
    target = f"{options.target} --inputs {options.inputs}" if options.inputs else options.target
    if options.processes > 1:
        return _pooled_report(options, target)
    try:
        found = measure(function, inputs.args, inputs.kwargs, budget_s=options.budget, target=target,
                        progress=_progress)
    except Exception as error:  # noqa: BLE001 (the reader's code, traced or compiled, may raise anything)
        raise targets.TargetError(f"{options.target} failed while being timed: {type(error).__name__}: {error}") \
            from None
    return Report(target, text_report(found), _with_environment(function_diagnosis.to_json(found)),
                  found.links, found.interrupted)


def _pooled_report(options: Any, target: str) -> Report | None:
    """The diagnosis in ``--processes`` fresh processes, one after another, pooled: as for the
    guide's full runs, the interval then covers how far a fresh process moves, not just how far
    one process's blocks scatter. Ctrl-C pools the processes that finished (or were interrupted);
    None when it came before any had timed anything."""
    found, interrupted = [], False
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-diagnose-") as folder:
        for process in range(options.processes):
            _progress(f"process {process + 1} of {options.processes} …")
            saved = Path(folder) / f"{process}.json"
            command = [sys.executable, "-m", "tfspeedlab", "diagnose", options.target, "--budget",
                       f"{options.budget / options.processes:g}", "--save", str(saved)]
            command += ["--inputs", options.inputs] if options.inputs else []
            try:
                # Its report goes nowhere (the pooled one is printed); its progress and errors to stderr.
                code = subprocess.run(command, stdout=subprocess.DEVNULL).returncode
            except KeyboardInterrupt:
                code = EXIT_INTERRUPTED  # the child had the same Ctrl-C and kept what it measured
            if saved.exists():
                found.append(function_diagnosis.from_json(json.loads(saved.read_text())))
            if code == EXIT_INTERRUPTED:
                interrupted = True
                break
            if code != 0:
                raise targets.TargetError(f"process {process + 1} of {options.processes} failed (exit {code}); "
                                          "its error is above")
    if not found:
        return None
    pooled = function_diagnosis.pool(found)
    if interrupted and not pooled.interrupted:
        pooled = dataclasses.replace(pooled, interrupted=True)
    return Report(target, text_report(pooled), _with_environment(function_diagnosis.to_json(pooled)),
                  pooled.links, pooled.interrupted)


def _model_report(options: Any) -> Report:
    if options.processes > 1:
        raise targets.TargetError("--processes is for a function; a Keras model is diagnosed in this process")
    if options.inputs:
        raise targets.TargetError("--inputs is for a function; a Keras model's inputs come from its input "
                                  "spec and --batch")
    found = diagnose_model(Path(options.target), options.batch or 32, budget_s=options.budget,
                           progress=_progress)
    return Report(options.target, model_text_report(found), _with_environment(model_to_json(found)),
                  found.links, found.interrupted)


def _keep(report: Report, options: Any) -> None:
    if options.save:
        write_json_atomic(options.save, report.data)
        _progress(f"wrote {options.save}")
    if options.markdown:
        write_text_atomic(options.markdown, markdown_report(report.target, report.text, report.links))
        _progress(f"wrote {options.markdown}")
    if options.html:
        write_text_atomic(options.html, html_report(report.target, report.text, report.links))
        _progress(f"wrote {options.html}")


def _with_environment(data: dict[str, Any]) -> dict[str, Any]:
    """The machine and software it was measured on travel with the numbers."""
    return {**data, "environment": machine.capture()}


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)

