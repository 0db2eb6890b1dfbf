# %% [markdown]
# # Does another allocator stop memory from growing?
#
# The two loops of the memory example that keep memory: a new model per
# iteration, with `keras.backend.clear_session()` after each, and `predict` on
# one model, one sample a call. Most of what they keep is outside Python's
# heap, in memory that the C library's `malloc` holds. So each loop runs, in
# fresh processes of its own, under five settings of that allocator:
#
# * glibc's `malloc`, as a Linux process starts;
# * jemalloc and tcmalloc, loaded before everything else with `LD_PRELOAD`
#   (on Debian or Ubuntu: `apt-get install -y libjemalloc2 libtcmalloc-minimal4`;
#   where one is missing its cases are recorded as unavailable, with that command);
# * glibc with `MALLOC_ARENA_MAX=2`: at most two arenas, where glibc makes up to
#   eight per core as threads contend;
# * glibc with `malloc_trim(0)` after each call, which hands free pages back to
#   the system.
#
# Each process checks whose `malloc` it actually runs, and records it; a
# process whose setting did not take effect is refused, not measured. The
# new-model loop is followed for 200 models, long enough to see whether its
# growth levels off; the `predict` loop for as many calls as in the memory
# example. The harness times each call as usual.
# Run it with `python examples/memory_allocators.py [--quick]`.

# %%
# %pip install -q "tfspeedlab[measure] @ git+https://github.com/tfspeedlab/tfspeedlab"

# %%
import functools
import os
import sys

import numpy as np

import tfspeedlab
from tfspeedlab.core import allocators
from tfspeedlab.core.allocators import MallocSetting
from tfspeedlab.core.resident_memory import follow_memory, resident_bytes

BATCH = 32  # the new model's training batch size
SETTINGS = (
    MallocSetting("glibc"),
    MallocSetting("jemalloc", allocator="jemalloc"),
    MallocSetting("tcmalloc", allocator="tcmalloc"),
    MallocSetting("MALLOC_ARENA_MAX=2", arena_max=2),
    MallocSetting("malloc_trim(0)", trim=True),
)
# Per loop: calls followed, the parts they are cut into (each part's growth per call is one reading),
# and fresh processes per setting. A new model takes about two seconds here: 200 of them in ten parts of 20
# is about 8 minutes a process, so the new-model loop runs once per setting (its interval is over
# the ten parts of one process, and its time per model gets no verdict); the predict loop, 200
# calls of about a tenth of a second, runs twice, as in the memory example.
FULL = {"new model": (200, 10, 1), "predict": (200, 5, 2)}
# A quick run follows the predict loop alone: five processes of a new model each would take minutes.
QUICK = {"predict": (10, 5, 1)}
# Share of the followed calls repeated under tracemalloc for the Python heap's part: small, as a new
# model under tracemalloc takes several seconds and the question here is the memory outside it.
HEAP_SHARE = 0.05
# What runs after each call in every setting, as the memory page advises it.
AFTER_EACH = {"new model": "clear_session()", "predict": "none"}


# %% [markdown]
# ## The model and the loops
#
# The memory example's small CNN (MNIST-sized) and its two loops, unchanged:
# a new model is built, compiled and trained for two batches, then dropped;
# `predict` runs on one sample.

# %%
def make_model(keras):
    L = keras.layers
    model = keras.Sequential([
        keras.Input((28, 28, 1)),
        L.Conv2D(16, 3, activation="relu"), L.MaxPooling2D(),
        L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(),
        L.Dense(64, activation="relu"), L.Dense(10),
    ])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def data(samples):
    rng = np.random.default_rng(1)
    return (rng.random((samples, 28, 28, 1), dtype=np.float32),
            rng.integers(0, 10, samples).astype(np.int32))


def make_call(keras, call):
    """The loop's call: a new model, trained briefly and dropped, with ``clear_session()`` after it;
    or ``predict`` on one sample of a model built here."""
    if call == "new model":
        X, Y = data(4 * BATCH)

        def new_model():
            model = make_model(keras)
            model.fit(X[:2 * BATCH], Y[:2 * BATCH], batch_size=BATCH, epochs=1, verbose=0)
            keras.backend.clear_session()
        return new_model
    if call == "predict":
        return functools.partial(make_model(keras).predict, data(1)[0], verbose=0)
    raise ValueError(f"unknown call {call!r}")


def with_trim(fn, counts):
    """``fn``, then glibc's ``malloc_trim(0)``; ``counts`` keeps how many trims ran and how many of
    them released memory."""
    def trimmed():
        fn()
        counts["trims"] += 1
        counts["trims_released"] += allocators.malloc_trim()
    return trimmed


# %% [markdown]
# ## One case: a loop in a fresh process, under one setting
#
# The process first checks whose `malloc` it runs: the file that defines the
# `malloc` every library's calls resolve to, found in `/proc/self/maps`. A
# preload that the loader skipped (the library is missing) leaves glibc's, and
# the case is refused with the install command; so is a glibc case that
# inherited an `LD_PRELOAD` or `MALLOC_ARENA_MAX` from the shell.

# %%
def prepare(call, setting, calls, parts):
    in_use = allocators.malloc_in_use()
    refusal = setting.refusal(in_use, os.environ)
    if refusal:
        raise tfspeedlab.CaseUnavailable(refusal)
    import tensorflow as tf

    keras = tf.keras
    at_start = resident_bytes()
    fn = make_call(keras, call)
    trims = {"trims": 0.0, "trims_released": 0.0} if setting.trim else {}
    if setting.trim:
        fn = with_trim(fn, trims)
    done = [0]

    def counted():
        done[0] += 1
        return fn()

    def metrics():
        before = resident_bytes()
        found = follow_memory(fn, calls, parts=parts, heap_share=HEAP_SHARE)
        # glibc's arenas after the loop: at most MALLOC_ARENA_MAX where it is set.
        arenas = allocators.glibc_arenas() if in_use == allocators.GLIBC else None
        extra = {"glibc_arenas": float(arenas)} if arenas is not None else {}
        return {**found, **setting.metrics(in_use), **extra, **trims, "rss_before_model_bytes": float(at_start),
                "rss_after_timing_bytes": float(before), "calls_before_follow": float(done[0])}

    return tfspeedlab.Prepared(counted, metrics=metrics)


def cleanup_of(call, setting):
    """What runs after each call, in the memory example's words."""
    after = AFTER_EACH[call]
    if not setting.trim:
        return after
    return "malloc_trim(0)" if after == "none" else f"{after}, malloc_trim(0)"


def workload(quick=False):
    if not sys.platform.startswith("linux"):
        raise tfspeedlab.SkipExample("LD_PRELOAD, glibc's malloc settings and /proc/self/maps are Linux's")
    loops = QUICK if quick else FULL
    cases = [tfspeedlab.Case(
        f"{call} · {setting.label}",
        setup=functools.partial(prepare, call, setting, calls, parts),
        params={"keras": "tf.keras", "call": call, "cleanup": cleanup_of(call, setting), "malloc": setting.label,
                "allocator": setting.allocator, "calls": calls, "parts": parts},
        # A process of its own, started with the setting: the loader and glibc read it once, at start.
        process=f"{call} · {setting.label}",
        env=setting.env(),
        rounds=None if quick else rounds,
    ) for call, (calls, parts, rounds) in loops.items() for setting in SETTINGS]
    return tfspeedlab.Workload(
        name="memory_allocators",
        title="Resident memory of a new model per iteration and of predict, under five malloc settings",
        params={"batch": BATCH, "inference_batch": 1, "heap_share": HEAP_SHARE,
                "loops": {call: {"calls": calls, "parts": parts, "processes": rounds}
                          for call, (calls, parts, rounds) in loops.items()},
                "model": "28×28×1 → Conv 16 → pool → Conv 32 → pool → Dense 64 → 10", "optimizer": "Adam",
                "install": {allocator.name: allocator.install for allocator in allocators.PRELOADABLE.values()}},
        cases=cases,
        budget_s=0.05 if quick else 0.3,
    )


# %%
if __name__ == "__main__":
    tfspeedlab.main(workload)
