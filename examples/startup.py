# %% [markdown]
# # How long does TensorFlow take to start?
#
# What a serverless function, a command-line tool or a test suite pays on
# every run, before any work: each start-up case below is a fresh Python
# process, started and timed to its exit (`python -c "import tensorflow"`,
# and so on), so every call of a case is a cold start of its own.
#
# * **Imports**: the interpreter alone, NumPy, TensorFlow, Keras 3 on each
#   installed backend, and Keras 2 (`tf_keras`); `python -X importtime` says
#   which packages and modules take the time. TensorFlow imports Keras 3,
#   which imports matplotlib and JAX where they are installed: the same
#   import with them hidden, as if not installed, says what each costs.
# * **Time to first prediction**, as a TensorFlow-only install starts (those
#   optional packages hidden): import, load a saved model and predict one
#   sample, for a small CNN and a ResNet50-sized model built in code (random
#   weights, nothing downloaded), from each way of saving a model: `.keras`,
#   `.h5`, `model.export` (a SavedModel, loaded with `tf.saved_model.load`)
#   and weights alone (the model built in code, then `load_weights`).
# * **In one process**: building each model, and saving and loading it in each
#   format, timed call after call; the harness keeps a process's first call
#   (the first load pays for what later loads reuse) apart.
#
# Run it with `python examples/startup.py [--quick]`.

# %%
# %pip install -q tf-keras h5py
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import tfspeedlab

# Packages Keras 3 imports when they are installed (its plotting utilities, a JAX checkpoint callback),
# made unimportable in a child, as if not installed (``sys.modules[name] = None``; Keras catches the
# ImportError): how a TensorFlow-only install starts.
OPTIONAL = ("matplotlib", "jax", "torch")


def hiding(*names):
    """The line that makes ``names`` unimportable in a child process."""
    return "import sys; " + "".join(f"sys.modules[{name!r}] = None; " for name in names)


# What each import case runs in its fresh process, and what it needs installed.
IMPORTS = {
    "python alone": ("pass", {}, None),
    "import numpy": ("import numpy", {}, "numpy"),
    "import tensorflow": ("import tensorflow", {}, "tensorflow"),
    "import tensorflow, matplotlib hidden": (hiding("matplotlib") + "import tensorflow", {}, "tensorflow"),
    "import tensorflow, JAX hidden": (hiding("jax") + "import tensorflow", {}, "tensorflow"),
    "import tensorflow alone (matplotlib, JAX and PyTorch hidden)": (hiding(*OPTIONAL) + "import tensorflow", {},
                                                                    "tensorflow"),
    "import keras (TensorFlow backend)": ("import keras", {"KERAS_BACKEND": "tensorflow"}, "keras"),
    "import keras (JAX backend)": ("import keras", {"KERAS_BACKEND": "jax"}, "jax"),
    "import keras (PyTorch backend)": ("import keras", {"KERAS_BACKEND": "torch"}, "torch"),
    "import tf_keras": ("import tf_keras", {}, "tf_keras"),
}
FORMATS = (".keras", ".h5", "SavedModel", "weights")
MODELS = ("small CNN", "ResNet50-sized")
# A fresh process's first prediction is timed from every format for the small model; for the larger
# one, from the two a server loads (a Keras file, a SavedModel), each cold start some ten seconds.
FIRST_PREDICTION_FORMATS = {"small CNN": FORMATS, "ResNet50-sized": (".keras", "SavedModel")}
# What the release history re-measures on every TensorFlow release (tfspeedlab history --only in_history=True):
# the cold starts a serverless function pays.
IN_HISTORY = {"import tensorflow", "import tensorflow alone (matplotlib, JAX and PyTorch hidden)",
              "first prediction · small CNN · .keras", "first prediction · small CNN · SavedModel"}
# Packages whose import time -X importtime splits out, the largest first, as many as this.
TOP_CONTRIBUTORS = 8
# Cold starts per fresh-process case and worker process: each is a whole process, seconds long.
COLD_STARTS = 4
# Fresh worker processes for the larger model's saving and loading, each minutes long.
LARGE_MODEL_ROUNDS = 2
QUICK = {"imports": ("python alone", "import tensorflow"), "models": ("small CNN",), "formats": (".keras",)}
FULL = {"imports": tuple(IMPORTS), "models": MODELS, "formats": FORMATS}


# %% [markdown]
# ## The models, built in code
#
# The small CNN is the predict ladder's; the larger one is Keras's ResNet50
# architecture with random weights (25.6 million parameters,
# four bytes each as float32), so that nothing is downloaded.

# %%
def build(keras, name):
    if name == "ResNet50-sized":
        return keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3), classes=1000)
    L = keras.layers
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        L.Conv2D(16, 3, activation="relu"), L.MaxPooling2D(),
        L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(),
        L.Dense(64, activation="relu"), L.Dense(10),
    ])


def input_shape(name):
    return (224, 224, 3) if name == "ResNet50-sized" else (28, 28, 1)


def save(keras, model, fmt, folder):
    """Save ``model`` in ``fmt`` under ``folder``; the path a loader takes."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    path = Path(folder) / {".keras": "model.keras", ".h5": "model.h5", "SavedModel": "saved_model",
                           "weights": "model.weights.h5"}[fmt]
    if fmt == "SavedModel":
        model.export(str(path), verbose=False) if _export_takes_verbose(model) else model.export(str(path))
    elif fmt == "weights":
        model.save_weights(str(path))
    else:
        model.save(str(path))
    return path


def _export_takes_verbose(model):
    return "verbose" in inspect.signature(model.export).parameters


def format_missing(keras, fmt):
    """Why this Keras cannot save or load ``fmt`` here, or None."""
    if fmt == "SavedModel" and not hasattr(keras.Model, "export"):
        return "Model.export is not in this Keras (it came with TensorFlow 2.13)"
    if fmt == ".h5" and importlib.util.find_spec("h5py") is None:
        return "needs h5py (pip install h5py)"
    return None


# %% [markdown]
# ## What a fresh process runs to its first prediction
#
# As a TensorFlow-only install would (a serverless image holds no more): the
# optional packages are hidden. The child script times its own parts
# (import, load, first call) and prints them, so the page can split the
# whole cold start the parent timed.

# %%
FIRST_PREDICTION = hiding(*OPTIONAL) + '''
import json, sys, time
started = time.perf_counter()
import numpy as np
import tensorflow as tf
keras = tf.keras
imported = time.perf_counter()
fmt, path, name = sys.argv[1], sys.argv[2], sys.argv[3]
if fmt == "SavedModel":
    model = tf.saved_model.load(path)
    call = model.serve
else:
    if fmt == "weights":
        exec(sys.argv[4])  # the example's own build(), so that the model is built as it was saved
        model = build(keras, name)
        model.load_weights(path)
    else:
        model = keras.models.load_model(path, compile=False)
    call = lambda x: model(x, training=False)
loaded = time.perf_counter()
shape = (1, 224, 224, 3) if name == "ResNet50-sized" else (1, 28, 28, 1)
out = np.asarray(call(tf.constant(np.ones(shape, np.float32))))
predicted = time.perf_counter()
print(json.dumps({"import_s": imported - started, "load_s": loaded - imported,
                  "first_call_s": predicted - loaded, "output_sum": float(out.sum())}))
'''


def run_child(code, args=(), env=None):
    """One fresh Python process running ``code``; its standard output. A child that fails is the
    case's failure, with the last line of its error."""
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise RuntimeError(f"the child process failed: {last}")
    return done.stdout


def import_case(name):
    code, env, module = IMPORTS[name]
    if module and importlib.util.find_spec(module) is None:
        raise tfspeedlab.CaseUnavailable(f"{module} is not installed")
    if module == "keras" or "keras (" in name:
        if importlib.util.find_spec("keras") is None:
            raise tfspeedlab.CaseUnavailable("keras is not installed")
        if _keras_version_below_3():
            raise tfspeedlab.CaseUnavailable("the installed keras is Keras 2, which has no backends to choose")
    run = functools.partial(run_child, code, env=env)

    def metrics():
        return contributors(code, env) if name != "python alone" else {}

    return tfspeedlab.Prepared(run, metrics=metrics)


def _keras_version_below_3():
    import importlib.metadata

    return int(importlib.metadata.version("keras").split(".")[0]) < 3


def contributors(code, env):
    """The largest shares of an import, from ``python -X importtime``: each top-level package's own
    time (its modules' self times added up), and the modules that took longest themselves."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env})
    by_package, by_module = {}, {}
    for line in done.stderr.splitlines():
        found = re.match(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\|\s+(\S+)", line.replace("| ", "|  "))
        if not found:
            continue
        self_us, module = int(found[1]), found[3].strip()
        package = module.split(".")[0]
        by_package[package] = by_package.get(package, 0) + self_us
        by_module[module] = self_us
    top = sorted(by_package.items(), key=lambda item: -item[1])[:TOP_CONTRIBUTORS]
    modules = sorted(by_module.items(), key=lambda item: -item[1])[:TOP_CONTRIBUTORS]
    return {**{f"package {name}": us / 1e6 for name, us in top},
            **{f"module {name}": us / 1e6 for name, us in modules},
            "importtime_total_s": sum(by_package.values()) / 1e6}


def first_prediction_case(model_name, fmt, folder):
    import tensorflow as tf

    keras = tf.keras
    missing = format_missing(keras, fmt)
    if missing:
        raise tfspeedlab.CaseUnavailable(missing)
    path = save(keras, build(keras, model_name), fmt, Path(folder) / f"first prediction {model_name} {fmt}")
    run = functools.partial(run_child, FIRST_PREDICTION, (fmt, path, model_name, inspect.getsource(build)))

    def metrics():
        return json.loads(run().strip().splitlines()[-1])

    return tfspeedlab.Prepared(run, metrics=metrics)


# %% [markdown]
# ## Build, save and load, call after call in one process

# %%
def in_process_case(model_name, action, fmt, folder):
    import tensorflow as tf

    keras = tf.keras
    if action == "build":
        return tfspeedlab.Prepared(functools.partial(build, keras, model_name))
    missing = format_missing(keras, fmt)
    if missing:
        raise tfspeedlab.CaseUnavailable(missing)
    model = build(keras, model_name)
    where = Path(folder) / f"{action} {fmt}"
    where.mkdir(parents=True, exist_ok=True)
    if action == "save":
        return tfspeedlab.Prepared(functools.partial(save, keras, model, fmt, where))
    path = save(keras, model, fmt, where)
    if fmt == "SavedModel":
        return tfspeedlab.Prepared(functools.partial(tf.saved_model.load, str(path)))
    if fmt == "weights":
        return tfspeedlab.Prepared(functools.partial(model.load_weights, str(path)))
    return tfspeedlab.Prepared(functools.partial(keras.models.load_model, str(path), compile=False))


# %%
def workload(quick=False):
    sizes = QUICK if quick else FULL
    # Saved models for the cases to load: one folder for the whole run, left to the system's clean-up.
    folder = tempfile.mkdtemp(prefix="tfspeedlab-startup-")
    one_by_one = {"number": 1, "warmup": 0, "repeat": 2 if quick else COLD_STARTS}
    cases = [tfspeedlab.Case(name, setup=functools.partial(import_case, name),
                             params={"kind": "import", "what": name, "in_history": name in IN_HISTORY},
                             bench_options=one_by_one, process="cold starts")
             for name in sizes["imports"]]
    for model_name in sizes["models"]:
        labels = [(f"first prediction · {model_name} · {fmt}", fmt) for fmt in sizes["formats"]
                  if fmt in FIRST_PREDICTION_FORMATS[model_name]]
        cases += [tfspeedlab.Case(label, setup=functools.partial(first_prediction_case, model_name, fmt, folder),
                                  params={"kind": "first prediction", "model": model_name, "format": fmt,
                                          "in_history": label in IN_HISTORY},
                                  bench_options=one_by_one, process="cold starts")
                  for label, fmt in labels]
        actions = [("build", None)] + [(action, fmt) for action in ("save", "load") for fmt in sizes["formats"]]
        labels = [(f"{action} · {model_name}" + (f" · {fmt}" if fmt else ""), action, fmt) for action, fmt in actions]
        cases += [tfspeedlab.Case(label, setup=functools.partial(in_process_case, model_name, action, fmt, folder),
                                  params={"kind": action, "model": model_name, "format": fmt or "in code",
                                          "in_history": label in IN_HISTORY},
                                  process=f"in one process · {model_name}",
                                  rounds=LARGE_MODEL_ROUNDS if model_name == "ResNet50-sized" and not quick else None)
                  for label, action, fmt in labels]
    return tfspeedlab.Workload(
        name="startup",
        title="Start-up: imports, time to first prediction, and building, saving and loading a model",
        params={"cold_starts_per_process": one_by_one["repeat"], "formats": list(sizes["formats"]),
                "models": {"small CNN": "28×28×1 → Conv 16 → pool → Conv 32 → pool → Dense 64 → 10",
                           "ResNet50-sized": "Keras's ResNet50 architecture, 224×224×3, random weights"}},
        cases=cases,
        budget_s=0.3 if quick else 1.0,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
