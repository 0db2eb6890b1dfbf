"""Diagnose a reader's own Keras model: the guide's predict ladder and its training calls, at the
reader's batch size, timed with the project's fair timer.

The calls are built as ``examples/predict_ladder.py`` and ``examples/train_apis.py`` build them, so
a number here means what the guide's pages mean by it. Each group's calls are timed block by block
in turn (A B C D A B C D …), so a burst of load from elsewhere hits them alike; each training call
runs on a model loaded afresh from the file, so no two share an optimizer's state.
"""

from __future__ import annotations

import functools
import tempfile
import time
import traceback
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tfspeedlab.core.measure.measurement import per_step
from tfspeedlab.core.measure.timer import TimedCall, bench_interleaved
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.stats.memory_growth import FollowedMemory
from tfspeedlab.diagnosis.memory_follow import calls_within, follow_within
from tfspeedlab.diagnosis.model_core import (CALLS, FIT_BATCHES, FROM_FILE, FROM_TFSPEEDLAB, PREDICT, TRAINING,
                                             ModelDiagnosis)
from tfspeedlab.diagnosis.reader_code import is_ctrl_c
from tfspeedlab.diagnosis.targets import TargetError, error_line

# Files Keras loads a whole model from.
MODEL_SUFFIXES = (".keras", ".h5")
# Share of the whole budget each group's timed blocks get; the rest goes to loading, tracing and
# first calls, which cannot be cut short.
GROUP_SHARE = 0.35
# Share of the budget the memory follow of repeated predict calls gets.
MEMORY_SHARE = 0.15
# What tfspeedlab trains a model with that was saved without a loss.
DEFAULT_LEARNING_RATE = 0.01
DEFAULT_LOSS = "mse"

# A call made ready to time: the callable, its arguments, and the training steps one call takes.
Built = tuple[Callable[..., Any], tuple, int]


@dataclass(frozen=True)
class TrainingSetup:
    """The loss and optimizer the training calls use, and who chose them."""

    compiled_by: str  # FROM_FILE or FROM_TFSPEEDLAB
    loss: Any  # as the model holds it: a name, a Loss, or a list or dict of them
    loss_text: str
    optimizer_text: str


def diagnose_model(path: Path, batch: int, budget_s: float = 6.0,
                   progress: Callable[[str], None] = lambda line: None) -> ModelDiagnosis:
    """Time the predict ladder and the training calls of the Keras model saved at ``path`` on inputs
    of ``batch`` samples, within about ``budget_s`` of timed blocks plus first calls."""
    path = Path(path)
    if batch < 1:
        raise TargetError(f"--batch must be at least 1, got {batch}")
    if not budget_s > 0:
        raise TargetError(f"the budget must be more than 0 seconds, got {budget_s:g}")
    if not path.is_file():
        raise TargetError(f"no file {path}" + (" (it is a folder)" if path.is_dir() else ""))
    if path.suffix.lower() not in MODEL_SUFFIXES:
        raise TargetError(f"{path} is not a Keras model file: save the model with model.save('model.keras') "
                          "and give that file")
    progress(f"loading {path.name}")
    started = time.perf_counter()
    model = load_model(path)
    load_s = time.perf_counter() - started
    x, signature, shapes = model_inputs(model, batch)
    setup = training_setup(model)
    group_s = budget_s * GROUP_SHARE

    progress(f"timing predict ladder ({len(CALLS[PREDICT])} calls, about {group_s:.1f} s)")
    calls, unavailable = time_group(predict_rungs(model, x, signature), group_s)
    if not calls:
        errors = "\n".join(f"{name}: {error}" for name, error in unavailable.items())
        shaped = " and ".join(_shape_text(shape) for shape in shapes)
        raise TargetError(f"{path}: none of the predict calls could run on inputs shaped {shaped}; "
                          f"predict raised {unavailable['predict']}", errors)

    interrupted = False
    memory = None
    try:
        memory = follow_predict_memory(model, x, calls.get("predict"), budget_s * MEMORY_SHARE, progress)
        progress(f"timing training calls ({len(CALLS[TRAINING])} calls on freshly loaded models, "
                 f"about {group_s:.1f} s plus their first calls)")
        training, failed = time_group(training_rungs(path, model, setup, x, batch), group_s)
        calls, unavailable = {**calls, **training}, {**unavailable, **failed}
    except KeyboardInterrupt:
        if not is_ctrl_c():
            raise  # the model's own, not the reader's Ctrl-C: its failure, reported as such
        interrupted = True  # the training calls are then neither measured nor failed
    return ModelDiagnosis(str(path), batch, shapes, setup.loss_text, setup.optimizer_text, setup.compiled_by,
                          calls, unavailable, interrupted=interrupted, load_s=load_s, memory=memory)


def follow_predict_memory(model: Any, x: Any, predict: CaseResult | None, budget_s: float,
                          progress: Callable[[str], None]) -> FollowedMemory | None:
    """Resident memory over repeated predict calls, as many as ``budget_s`` holds at the measured
    time per call; None where predict could not run."""
    if predict is None:
        return None
    return follow_within(functools.partial(model.predict, x, verbose=0),
                         calls_within(predict.measurement.median_s, budget_s), "predict", progress)


def load_model(path: Path) -> Any:
    import keras

    try:
        with warnings.catch_warnings():
            # A compiled model's saved optimizer state is skipped when its variables were never
            # built; every training call here starts a fresh optimizer anyway.
            warnings.filterwarnings("ignore", message="Skipping variable loading for optimizer")
            if path.suffix in MODEL_SUFFIXES:
                return keras.models.load_model(path)
            # Keras knows a model file by its lower-case suffix only: MODEL.KERAS is read through a
            # link that spells it so.
            with tempfile.TemporaryDirectory(prefix="tfspeedlab-model-") as folder:
                link = Path(folder) / f"model{path.suffix.lower()}"
                link.symlink_to(path.resolve())
                return keras.models.load_model(link)
    except Exception as error:  # noqa: BLE001 (Keras says what is wrong with the file in many ways)
        # Keras says "File not found" of a .keras file that is there but no zip archive.
        what = (" (a .keras file is a zip archive, and this is not one)"
                if path.suffix.lower() == ".keras" and not zipfile.is_zipfile(path) else "")
        raise TargetError(f"{path} is not a model Keras can load{what}; Keras said {error_line(error)}",
                          traceback.format_exc()) from None


def model_inputs(model: Any, batch: int) -> tuple[Any, Any, tuple[tuple[int, ...], ...]]:
    """Inputs of ``batch`` samples from the model's input spec (float: standard normal, integer:
    zeros), the ``tf.function`` signature with a None batch dimension, and the inputs' shapes.
    Several inputs are a list, as Keras takes them."""
    import tensorflow as tf

    arrays, specs = input_arrays(model, batch)
    signature = [tf.TensorSpec([None, *tuple(spec.shape)[1:]], spec.dtype) for spec in specs]
    shapes = tuple(array.shape for array in arrays)
    if len(arrays) == 1:
        return arrays[0], signature[0], shapes
    return arrays, signature, shapes


def input_arrays(model: Any, batch: int) -> tuple[list[np.ndarray], list[Any]]:
    """One NumPy array of ``batch`` samples per model input, and the input specs they follow. NumPy
    only, so that a process on the JAX or PyTorch backend makes them without TensorFlow."""
    try:
        specs = list(model.inputs)
    except Exception:  # noqa: BLE001 (a subclassed model has no symbolic inputs to read)
        specs = []
    if not specs:
        raise TargetError("the model declares no inputs (a subclassed model?): diagnose needs a Sequential or "
                          "functional model built on keras.Input")
    rng = np.random.default_rng(0)
    arrays = []
    for index, spec in enumerate(specs):
        name = getattr(spec, "name", None) or f"input {index}"
        shape = tuple(spec.shape)
        if not shape:
            raise TargetError(f"the model's input {name!r} is a scalar: diagnose needs a batch dimension")
        if shape[0] is not None and shape[0] != batch:
            raise TargetError(f"the model's input {name!r} has a fixed batch size of {shape[0]}: run with "
                              f"--batch {shape[0]}")
        if any(size is None for size in shape[1:]):
            raise TargetError(f"the model's input {name!r} has shape {_shape_text(shape)}, with unknown sizes "
                              "besides the batch: diagnose cannot tell what inputs to make (save the model with "
                              "keras.Input(shape=...) giving every size)")
        try:
            dtype = np.dtype(str(spec.dtype))
        except TypeError:
            dtype = None
        full = (batch, *shape[1:])
        if dtype is not None and dtype.kind == "f":
            arrays.append(rng.standard_normal(full).astype(dtype))
        elif dtype is not None and dtype.kind in "iub":
            arrays.append(np.zeros(full, dtype))
        else:
            raise TargetError(f"the model's input {name!r} is {spec.dtype}: diagnose makes float and integer "
                              "inputs only")
    return arrays, specs


def training_setup(model: Any) -> TrainingSetup:
    """The file's loss and optimizer when it was saved compiled; else SGD and mean squared error."""
    loss = getattr(model, "loss", None) if getattr(model, "compiled", False) else None
    if loss is None:
        return TrainingSetup(FROM_TFSPEEDLAB, DEFAULT_LOSS, DEFAULT_LOSS,
                             f"SGD(learning_rate={DEFAULT_LEARNING_RATE:g})")
    return TrainingSetup(FROM_FILE, loss, describe_loss(loss), describe_optimizer(model.optimizer))


def predict_rungs(model: Any, x: Any, signature: Any) -> dict[str, Callable[[], Built]]:
    """The guide's predict ladder (examples/predict_ladder.py), on one loaded model."""
    import tensorflow as tf

    def serve() -> Built:
        function = tf.function(lambda inputs: model(inputs, training=False), input_signature=[signature])
        return function, (x,), 1

    return {
        "predict": lambda: (functools.partial(model.predict, verbose=0), (x,), 1),
        "predict_on_batch": lambda: (model.predict_on_batch, (x,), 1),
        "model(x)": lambda: (functools.partial(model, training=False), (x,), 1),
        "tf.function": serve,
    }


def training_rungs(path: Path, model: Any, setup: TrainingSetup, x: Any,
                   batch: int) -> dict[str, Callable[[], Built]]:
    """The guide's training calls (examples/train_apis.py), each on a model loaded afresh."""
    import tensorflow as tf

    repeat = functools.partial(tf.nest.map_structure, lambda array: np.concatenate([array] * FIT_BATCHES))

    # Inside each rung's build, so that a model whose forward pass raises fails each rung with its error.
    def labels() -> Any:
        return targets(model(x, training=False), setup.loss, getattr(model, "output_names", None))

    def fit(steps_per_execution: int) -> Built:
        trained = compiled(path, setup, steps_per_execution)
        return functools.partial(trained.fit, batch_size=batch, epochs=1, shuffle=False, verbose=0), \
            (repeat(x), repeat(labels())), FIT_BATCHES

    def train_on_batch() -> Built:
        trained = compiled(path, setup, 1)
        return trained.train_on_batch, (x, labels()), 1

    def custom_step() -> Built:
        trained = compiled(path, setup, 1)
        y = labels()
        optimizer = trained.optimizer

        def train_step(xb, yb):
            with tf.GradientTape() as tape:
                # The compiled loss itself (with any regularization losses), as fit's step takes it.
                loss = trained.compute_loss(x=xb, y=yb, y_pred=trained(xb, training=True))
            grads = tape.gradient(loss, trained.trainable_variables)
            optimizer.apply_gradients(zip(grads, trained.trainable_variables))
            return loss

        to_tensors = functools.partial(tf.nest.map_structure, tf.constant)
        return tf.function(train_step), (to_tensors(x), to_tensors(y)), 1

    return {
        "fit, steps_per_execution=1": lambda: fit(1),
        "fit, steps_per_execution=10": lambda: fit(10),
        "train_on_batch": train_on_batch,
        "custom loop, tf.function step": custom_step,
    }


def compiled(path: Path, setup: TrainingSetup, steps_per_execution: int) -> Any:
    """The model loaded afresh and compiled as ``setup`` says, with ``steps_per_execution``."""
    import keras

    model = load_model(path)
    if setup.compiled_by == FROM_FILE:
        # The file's whole compile config (metrics, loss weights, jit_compile) with only this changed.
        model.compile_from_config({**model.get_compile_config(), "steps_per_execution": steps_per_execution})
    else:
        model.compile(keras.optimizers.SGD(DEFAULT_LEARNING_RATE), DEFAULT_LOSS,
                      steps_per_execution=steps_per_execution)
    return model


def targets(outputs: Any, loss: Any, output_names: list[str] | None, nest: Any = None) -> Any:
    """Training targets shaped like the model's outputs, zeros: integer class indices (one per
    sample and position) where the output's loss is a sparse categorical cross-entropy. ``nest``
    flattens and packs the outputs (``tf.nest`` by default; ``keras.tree`` on another backend)."""
    if nest is None:
        import tensorflow as tf

        nest = tf.nest
    flat = nest.flatten(outputs)
    if isinstance(loss, (list, tuple)) and len(loss) == len(flat):
        losses = list(loss)
    elif isinstance(loss, dict):
        names = sorted(outputs) if isinstance(outputs, dict) else list(output_names or [])
        losses = [loss.get(name) for name in names] if len(names) == len(flat) else [None] * len(flat)
    else:
        losses = [loss] * len(flat)
    made = [np.zeros(tuple(output.shape)[:-1], "int32") if is_sparse(output_loss)
            else np.zeros(tuple(output.shape), "float32") for output, output_loss in zip(flat, losses)]
    return nest.pack_sequence_as(outputs, made)


def time_group(rungs: dict[str, Callable[[], Built]], budget_s: float) -> tuple[dict[str, CaseResult], dict[str, str]]:
    """Build and first-call each rung, then time those that ran interleaved: each that ran as a case,
    per step; each that raised with its error (the others go on)."""
    prepared, steps, errors = {}, {}, {}
    for name, build in rungs.items():
        try:
            function, args, steps[name] = build()
            prepared[name] = TimedCall(function, args, budget_s=budget_s / len(rungs))
        except Exception as error:  # noqa: BLE001 (the reader's model may raise anything; say what)
            errors[name] = error_line(error)
    measured = {}
    if prepared:
        try:
            measured = dict(zip(prepared, bench_interleaved(list(prepared.values()))))
        except Exception as error:  # noqa: BLE001 (a retrace while timed, say: no call's blocks are kept)
            errors.update({name: f"while timed: {error_line(error)}" for name in prepared})
    return ({name: CaseResult(name, {}, per_step(measured[name], steps[name])) for name in rungs if name in measured},
            {name: errors[name] for name in rungs if name not in measured})


def is_sparse(loss: Any) -> bool:
    """A sparse categorical cross-entropy, whichever way it was named: it takes class indices."""
    if loss is None:
        return False
    names = [loss] if isinstance(loss, str) else [
        type(loss).__name__, getattr(loss, "name", ""), getattr(loss, "__name__", ""),
        getattr(getattr(loss, "fn", None), "__name__", "")]
    return any(str(name).replace("_", "").lower().startswith("sparsecategorical") for name in names)


def describe_loss(loss: Any) -> str:
    if isinstance(loss, str):
        return loss
    if isinstance(loss, (list, tuple)):
        return "[" + ", ".join(describe_loss(item) for item in loss) + "]"
    if isinstance(loss, dict):
        return "{" + ", ".join(f"{name}: {describe_loss(item)}" for name, item in loss.items()) + "}"
    if loss is None:
        return "none"
    name = getattr(loss, "__name__", None) or type(loss).__name__
    try:
        from_logits = bool(loss.get_config().get("from_logits"))
    except Exception:  # noqa: BLE001 (a custom loss need not have a config)
        from_logits = False
    return f"{name}(from_logits=True)" if from_logits else name


def describe_optimizer(optimizer: Any) -> str:
    name = type(optimizer).__name__
    try:
        return f"{name}(learning_rate={float(np.asarray(optimizer.learning_rate)):.3g})"
    except Exception:  # noqa: BLE001 (a schedule or a custom optimizer: its name says enough)
        return name


def _shape_text(shape: tuple) -> str:
    return "(" + ", ".join("None" if size is None else str(size) for size in shape) + ")"
