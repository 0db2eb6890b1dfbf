"""One backend's side of ``tfspeedlab diagnose model.keras --backends …``: a child process started with
``KERAS_BACKEND`` set loads the reader's model and times its calls, then writes them for the parent.

    python -m tfspeedlab.diagnosis.backend_probe MODEL --batch N --budget S --out FILE

Keras fixes its backend when it is imported, so each backend is a process of its own. The calls are
those the Keras backends page measures, at the reader's batch size: ``predict``, the model called on
the backend's own tensor, and ``train_on_batch`` with the loss the file was compiled with (or mean
squared error with SGD, when it was saved without one, against zero targets), each compiled as
Keras 3 compiles by default (``jit_compile="auto"``). The calls are timed block by block in turn.
A call that fails on this backend is written with its error in place of its times.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

from tfspeedlab.core.measure.timer import TimedCall, bench_interleaved
from tfspeedlab.core.results.schema import run_to_dict
from tfspeedlab.diagnosis.model import (DEFAULT_LEARNING_RATE, DEFAULT_LOSS, input_arrays, load_model, targets,
                                        training_setup)
from tfspeedlab.diagnosis.model_core import FROM_TFSPEEDLAB
from tfspeedlab.diagnosis.reader_code import ctrl_c_watched, reader_code
from tfspeedlab.diagnosis.targets import TargetError, error_line
from tfspeedlab.harness.exits import end_past_leftover_threads

CALLS = ("predict", "model(x)", "train_on_batch")


def probe(path: Path, batch: int, budget_s: float) -> dict[str, Any]:
    import keras

    model = load_model(path)
    arrays, _ = input_arrays(model, batch)
    x = arrays[0] if len(arrays) == 1 else arrays
    found: dict[str, Any] = {"backend": keras.backend.backend(), "keras": keras.__version__, "calls": {}}
    built: dict[str, Any] = {}
    for name in CALLS:
        try:
            own = with_default_jit(model if name != "train_on_batch" else load_model(path))
            built[name] = _build(keras, own, name, x, batch)
        except Exception as error:  # noqa: BLE001 (what this backend cannot do with the model, reported)
            found["calls"][name] = {"error": error_line(error)}
    if built:
        found["jit_compile"] = bool(next(iter(built.values()))[1].jit_compile)
    timed, names = [], []
    for name, (fn, _) in built.items():
        try:  # the first call (tracing, compiling) happens here
            timed.append(TimedCall(fn, (), budget_s=budget_s / max(len(built), 1)))
            names.append(name)
        except Exception as error:  # noqa: BLE001 (a compiler error of this backend, reported)
            found["calls"][name] = {"error": error_line(error)}
    for name, measurement in zip(names, bench_interleaved(timed) if timed else []):
        found["calls"][name] = {"run": run_to_dict(measurement)}
    return found


def with_default_jit(model: Any) -> Any:
    """The model compiled as this backend compiles by default. A ``.keras`` file keeps ``jit_compile``
    as it was resolved where it was saved (``False`` from TensorFlow on a CPU), so a model saved on
    TensorFlow would otherwise run uncompiled on JAX, op by op."""
    if getattr(model, "compiled", False) and getattr(model, "loss", None) is not None:
        model.compile(optimizer=model.optimizer, loss=model.loss, jit_compile="auto")
    return model


def _build(keras: Any, model: Any, name: str, x: Any, batch: int) -> tuple[Any, Any]:
    if name == "predict":
        return functools.partial(model.predict, x, batch_size=batch, verbose=0), model
    if name == "model(x)":
        tensors = (keras.ops.convert_to_tensor(x) if not isinstance(x, list)
                   else [keras.ops.convert_to_tensor(part) for part in x])
        return functools.partial(model, tensors, training=False), model
    setup = training_setup(model)  # the file's loss and optimizer, or tfspeedlab's SGD and mse
    if setup.compiled_by == FROM_TFSPEEDLAB:
        model.compile(optimizer=keras.optimizers.SGD(DEFAULT_LEARNING_RATE), loss=DEFAULT_LOSS)
    wanted = targets(model(x, training=False), setup.loss, getattr(model, "output_names", None), nest=keras.tree)
    return functools.partial(model.train_on_batch, x, wanted), model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tfspeedlab.diagnosis.backend_probe")
    parser.add_argument("model", type=Path)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--budget", type=float, required=True)
    parser.add_argument("--out", type=Path, required=True)
    options = parser.parse_args(argv)
    try:
        # The model's layers are the reader's code: a KeyboardInterrupt they raise is their failure, not Ctrl-C.
        with ctrl_c_watched(), reader_code(f"{options.model} on this backend"):
            found = probe(options.model, options.batch, options.budget)
    except TargetError as error:
        print(f"tfspeedlab diagnose: {error}", file=sys.stderr)
        return 2
    options.out.write_text(json.dumps(found), encoding="utf-8")
    return 0


if __name__ == "__main__":
    code = main()
    end_past_leftover_threads(code)  # a thread the model's code left running must not keep this process alive
    sys.exit(code)
