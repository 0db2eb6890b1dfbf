"""``tfspeedlab diagnose model.keras --backends tensorflow,jax,torch``: the reader's model on each Keras 3
backend, each in fresh processes of its own (``backend_probe``), taken in turn, then compared.

A backend that is not installed, or a name that is no backend, is refused before anything is timed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from tfspeedlab.core.results.schema import CaseResult, FieldReader, run_from_dict
from tfspeedlab.diagnosis.backend_core import BackendDiagnosis
from tfspeedlab.diagnosis.backend_probe import CALLS
from tfspeedlab.diagnosis.targets import TargetError
from tfspeedlab.harness.exits import EXIT_INTERRUPTED, EXIT_OK, UsageError

# Keras 3's backends, and the package each needs.
BACKEND_PACKAGES = {"tensorflow": "tensorflow", "jax": "jax", "torch": "torch"}
# Fresh processes per backend: two, so that every comparison rests on more than one process.
PROCESSES = 2


def parse_backends(text: str) -> tuple[str, ...]:
    """``tensorflow,jax,torch`` → the backends in order (the first is the reference), each checked."""
    names = tuple(dict.fromkeys(name.strip().lower() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in BACKEND_PACKAGES]
    if unknown:
        raise UsageError(f"--backends: {unknown[0]!r} is no Keras 3 backend; give some of "
                         f"{', '.join(BACKEND_PACKAGES)}, separated by commas")
    if len(names) < 2:
        raise UsageError("--backends needs at least two backends to compare, e.g. tensorflow,jax")
    missing = [name for name in names if importlib.util.find_spec(BACKEND_PACKAGES[name]) is None]
    if missing:
        raise TargetError(f"the {missing[0]} backend needs {BACKEND_PACKAGES[missing[0]]}, which is not installed "
                          f"here: pip install {BACKEND_PACKAGES[missing[0]]} (or pip install -e '.[compare]'), "
                          "or leave it out of --backends")
    return names


def diagnose_backends(path: Path, backends: tuple[str, ...], batch: int, budget_s: float,
                      progress: Callable[[str], None] = lambda line: None,
                      processes: int = PROCESSES) -> BackendDiagnosis:
    runs: dict[str, dict[str, list]] = {call: {backend: [] for backend in backends} for call in CALLS}
    errors: dict[tuple[str, str], str] = {}
    jit: dict[str, bool] = {}
    interrupted = False
    share_s = budget_s / (len(backends) * processes)
    with tempfile.TemporaryDirectory(prefix="tfspeedlab-backends-") as folder:
        try:
            for round_number in range(processes):
                for backend in backends:
                    progress(f"{backend}: process {round_number + 1} of {processes} …")
                    found = _probe(path, backend, batch, share_s, Path(folder) / f"{backend}-{round_number}.json")
                    jit[backend] = found.get("jit_compile", jit.get(backend, False))
                    for call, outcome in found["calls"].items():
                        if "error" in outcome:
                            errors[(call, backend)] = outcome["error"]
                        else:
                            reader = FieldReader(f"{backend} process {round_number + 1}")
                            runs[call][backend].append(run_from_dict(reader, outcome["run"], f"{call}."))
        except KeyboardInterrupt:
            interrupted = True
    calls = {call: {backend: CaseResult(call, {"backend": backend}, tuple(found)) for backend, found in by_backend.items()
                    if found}
             for call, by_backend in runs.items()}
    # A call that ran in one process of a backend and failed in another is compared on the runs it has.
    unavailable = {(call, backend): error for (call, backend), error in errors.items() if backend not in calls[call]}
    if not any(calls.values()):
        if interrupted:
            raise KeyboardInterrupt
        raise TargetError(f"{path}: no call could run on any backend: " +
                          "; ".join(f"{backend} {call}: {error}" for (call, backend), error in errors.items()))
    return BackendDiagnosis(str(path), batch, backends, calls, unavailable, jit, interrupted)


def _probe(path: Path, backend: str, batch: int, budget_s: float, out: Path) -> dict:
    command = [sys.executable, "-m", "tfspeedlab.diagnosis.backend_probe", str(path), "--batch", str(batch),
               "--budget", repr(budget_s), "--out", str(out)]
    # Each child is a fresh process: the backend is fixed when it imports Keras.
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2")}
    code = subprocess.run(command, env=env, stdout=subprocess.DEVNULL).returncode
    if code == EXIT_INTERRUPTED or code < 0:
        raise KeyboardInterrupt
    if code != EXIT_OK or not out.is_file():
        raise TargetError(f"the {backend} backend's process failed (exit {code}); its error is above")
    try:
        found = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise TargetError(f"the {backend} backend's process wrote no readable report: {error}") from None
    if not isinstance(found, dict) or not isinstance(found.get("calls"), dict):
        raise TargetError(f"the {backend} backend's process wrote a report without its calls")
    return found
