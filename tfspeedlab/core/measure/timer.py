"""``bench``: fair wall-clock timing of one callable.

The procedure follows the best harnesses (``torch.utils.benchmark``'s
``blocked_autorange``, ``timeit.autorange``, pyperf):

1. time the first call on its own: for a ``tf.function`` that is tracing and
   graph building, for XLA also compilation, and it is paid once per signature;
2. a few untimed warm-up calls;
3. calibrate: grow the calls per block until one block lasts ``budget_s /
   TARGET_BLOCKS``, so the cost of reading the clock is negligible;
4. time blocks until the budget is spent (at least ``MIN_BLOCKS``), garbage
   collection off, completion forced before each clock read;
5. refuse the result if a watched ``tf.function`` traced again meanwhile.

``bench_interleaved`` does steps 1–3 for several calls, then times their
blocks in turn, so that what the machine does meanwhile falls on all alike.
"""

from __future__ import annotations

import functools
import gc
import math
import time
from collections.abc import Callable, Iterable
from typing import Any

from tfspeedlab.core.measure import completion
from tfspeedlab.core.measure.measurement import Measurement

# Blocks the budget is split into: enough for a median, quartiles and a 10th
# percentile (the second-fastest block) that mean something, few enough that
# each block is long against clock overhead.
TARGET_BLOCKS = 20
MIN_BLOCKS = 5
# Above this many blocks the statistics stop improving; stop early rather than
# spin on a very fast function.
MAX_BLOCKS = 200
# A block shorter than this would be dominated by perf_counter's own cost
# (tens of nanoseconds) and scheduler jitter.
MIN_BLOCK_S = 1e-3


class RetracingError(RuntimeError):
    """A watched ``tf.function`` traced again while it was being timed."""


def bench(
    fn: Callable[..., Any],
    *args: Any,
    budget_s: float = 1.0,
    number: int | None = None,
    repeat: int | None = None,
    warmup: int = 1,
    sync_every_call: bool = False,
    force_completion: bool = True,
    watch: Iterable[Any] = (),
) -> Measurement:
    """Time ``fn(*args)`` and return its per-call :class:`Measurement`.

    Args:
        budget_s: wall-clock time to spend on timed blocks (calibration excluded).
        number: calls per block; calibrated automatically when omitted.
        repeat: blocks to time; as many as fit in ``budget_s`` when omitted.
        warmup: untimed calls after the first (timed) call.
        sync_every_call: force completion after every call instead of once per
            block: latency per call rather than throughput of back-to-back calls.
        force_completion: read results back and sync devices before each clock
            read. Turning it off is wrong for real measurements; it exists to
            demonstrate how much a timing without it under-reports.
        watch: ``tf.function`` objects that must not retrace while timed, in
            addition to ``fn`` itself (for a plain function that calls them).
    """
    if repeat is not None and repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    timed = TimedCall(fn, args, budget_s=budget_s, number=number, warmup=warmup,
                      sync_every_call=sync_every_call, force_completion=force_completion, watch=watch)
    timed_start = time.perf_counter()
    while True:
        timed.time_block()
        if repeat is not None:
            if len(timed.samples) == repeat:
                break
        elif timed.enough(time.perf_counter() - timed_start):
            break
    return timed.result()


def bench_interleaved(calls: list[TimedCall], *, until: float | None = None,
                      floor: int = MIN_BLOCKS) -> list[Measurement]:
    """Time several prepared calls block by block in turn (A B C A B C …), so that a burst of
    load from other processes, or a slow drift of the machine, hits every call alike.

    ``until`` (on ``time.perf_counter``'s clock) is a hard deadline: once it has passed and every
    call has ``floor`` blocks, timing stops even if the calls' own budgets are not spent."""
    # Each call's first call may have traced a tf.function the others share (one
    # function, several shapes): only tracing from here on counts as retracing.
    for call in calls:
        call.watch_from_now()
    timed_start = time.perf_counter()
    budget_s = sum(call.budget_s for call in calls)
    while True:
        for call in calls:
            call.time_block()
        elapsed = time.perf_counter() - timed_start
        if all(len(call.samples) >= MAX_BLOCKS for call in calls) or (
                all(len(call.samples) >= MIN_BLOCKS for call in calls) and elapsed >= budget_s):
            break
        if until is not None and time.perf_counter() >= until and all(len(call.samples) >= floor for call in calls):
            break
    return [call.result() for call in calls]


class TimedCall:
    """One callable made ready to time: first call timed, warmed up, calibrated; then block by block."""

    def __init__(self, fn: Callable[..., Any], args: tuple, *, budget_s: float = 1.0, number: int | None = None,
                 warmup: int = 1, sync_every_call: bool = False, force_completion: bool = True,
                 watch: Iterable[Any] = ()) -> None:
        if budget_s <= 0:
            raise ValueError("budget_s must be positive")
        if number is not None and number < 1:
            raise ValueError(f"number must be at least 1, got {number}")
        self.fn, self.args, self.budget_s = fn, args, budget_s
        self.sync_every_call, self.force_completion = sync_every_call, force_completion
        self.guarded = [f for f in (fn, *watch) if hasattr(f, "experimental_get_tracing_count")]
        self.sync = completion.device_sync() if force_completion else None
        self.finish = functools.partial(_finish, sync=self.sync) if force_completion else _ignore

        start = time.perf_counter()
        output = fn(*args)
        self.tensor_count = completion.materialize(output)
        if self.sync:
            self.sync()
        self.first_call_s = time.perf_counter() - start

        for _ in range(warmup):
            self.finish(fn(*args))
        self.watch_from_now()
        self.number = number or _calibrate(self._block, max(budget_s / TARGET_BLOCKS, MIN_BLOCK_S))
        self.samples: list[float] = []

    def watch_from_now(self) -> None:
        """Tracing counts from which a later retrace is measured."""
        self.traces_before = [f.experimental_get_tracing_count() for f in self.guarded]

    def _block(self, calls: int) -> float:
        return _time_block(self.fn, self.args, calls, self.finish, self.sync_every_call)

    def time_block(self) -> None:
        self.samples.append(self._block(self.number) / self.number)

    def enough(self, elapsed_s: float) -> bool:
        """Stop after MAX_BLOCKS, or once the budget is spent and MIN_BLOCKS are in."""
        return len(self.samples) >= MAX_BLOCKS or (len(self.samples) >= MIN_BLOCKS and elapsed_s >= self.budget_s)

    def result(self) -> Measurement:
        _check_no_retracing(self.guarded, self.traces_before)
        fn = self.fn
        return Measurement(
            samples_s=tuple(self.samples),
            calls_per_block=self.number,
            first_call_s=self.first_call_s,
            completion=completion.describe(self.tensor_count, self.sync is not None) if self.force_completion
            else "none: results were not forced to complete (a demonstration of the wrong way)",
            tracing_count=self.guarded[0].experimental_get_tracing_count()
            if self.guarded and self.guarded[0] is fn else None,
        )


def _finish(output: Any, sync: Callable[[], None] | None) -> None:
    completion.materialize(output)
    if sync:
        sync()


def _ignore(output: Any) -> None:
    pass


def _time_block(fn, args, calls, finish, sync_every_call) -> float:
    # Collection pauses land on whichever call happens to allocate; keep them
    # out of the timed region, as timeit does.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(calls):
            output = fn(*args)
            if sync_every_call:
                finish(output)
        finish(output)
        return time.perf_counter() - start
    finally:
        if gc_was_enabled:
            gc.enable()


def _calibrate(block: Callable[[int], float], target_s: float) -> int:
    """Smallest calls-per-block count whose block lasts at least ``target_s``."""
    calls = 1
    while True:
        elapsed = block(calls)
        if elapsed >= target_s:
            return calls
        # Jump straight to the estimate, with 5% headroom so the next block
        # clears the target; it always grows because elapsed < target. The cap
        # keeps one freak fast block from scheduling a huge one.
        estimate = math.ceil(calls * target_s / max(elapsed, 1e-9) * 1.05)
        calls = min(estimate, calls * 1000)


def _check_no_retracing(guarded: list[Any], traces_before: list[int]) -> None:
    for function, before in zip(guarded, traces_before):
        after = function.experimental_get_tracing_count()
        if after != before:
            name = getattr(function, "__name__", repr(function))
            raise RetracingError(
                f"tf.function {name!r} traced {after - before} more time(s) while being timed, "
                "so the timing would include tracing, not just execution. Its calls receive new "
                "Python values or new shapes/dtypes: pass tensors instead of Python numbers, or "
                "fix the signature (input_signature=..., or reduce_retracing=True)."
            )
