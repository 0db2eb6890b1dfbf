"""A case's measured quantities other than time: a number by name, as its results file stores them.

``Metrics`` is that mapping (the file format is unchanged, and ``{{ metric … }}`` reads any name);
the quantities the tables, charts and statistics read are typed fields of it, so that no module
spells a key: ``case.metrics.loss_end``, None where the case did not record it. A new quantity a
module reads gets a field here, beside the ones its writer records, with the range its values
take where a page would state a wrong figure (or fail) outside it: a file is refused at load
(``Metrics.problems``) rather than read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from tfspeedlab.core.results.checks import BYTES, CALLS, COUNT, SECONDS, SIGNED_BYTES, Range

# Parts a followed loop may be cut into (``core.resident_memory`` cuts five).
FOLLOW_PARTS = Range(1, 1000, "parts", whole=True)
SWITCH = Range(0, 1, whole=True)  # 1 on, 0 off
DURATION = Range(0, SECONDS.high, "s")  # a sum of times, 0 where nothing was timed
NON_NEGATIVE = Range(0, float("inf"))


class Metric:
    """A quantity of ``Metrics``, stored under the field's own name; ``allowed``: its values' range
    (None: any finite number); ``beside_baseline``: a grid's table shows each row's beside its
    baseline row's, so a case records it wherever its column's baseline case does."""

    def __init__(self, allowed: Range | None = None, beside_baseline: bool = False) -> None:
        self.allowed = allowed
        self.beside_baseline = beside_baseline

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    def __get__(self, metrics: Mapping[str, float] | None, owner: type | None = None) -> float | None:
        return None if metrics is None else metrics.get(self.key)


class Metrics(dict[str, float]):
    """One case's (or one process's) metrics: the file's mapping, with the fields modules read."""

    # Proof that a training case trained: its loss before and after timing, its largest weight change.
    loss_start = Metric()
    loss_end = Metric()
    weight_change = Metric()
    # The process's peaks while the case ran (``core.measure.memory.PeakMemory``).
    peak_rss_bytes = Metric(BYTES)
    peak_rss_growth_bytes = Metric(SIGNED_BYTES)
    gpu_peak_bytes = Metric(BYTES)
    # Resident memory followed over repeated calls in parts (``core.resident_memory.follow_memory``).
    follow_calls = Metric(CALLS)
    follow_parts = Metric(FOLLOW_PARTS)
    # The Python heap's growth per call: tracemalloc traces only what is allocated after it starts,
    # so what it reads is never below zero.
    heap_per_call = Metric(BYTES)
    rss_end_bytes = Metric(BYTES)
    # glibc's arenas after a followed loop (``core.allocators.glibc_arenas``), where glibc's malloc ran.
    glibc_arenas = Metric(COUNT)
    # Resident memory over one loop of repeated calls, without parts (the predict ladder, the backends).
    memory_calls = Metric(CALLS)
    rss_bytes = Metric(BYTES)
    rss_growth_bytes = Metric(SIGNED_BYTES)
    rss_growth_per_call_bytes = Metric(SIGNED_BYTES)
    # The profiled call (``core.profiling.trace.Breakdown.metrics``), and each host layer's share of it.
    profiled_call_s = Metric(SECONDS)
    device_busy_fraction = Metric(NON_NEGATIVE)
    # A training loop's feed and its step's Python code (input pipeline, training APIs).
    data_wait_share = Metric(NON_NEGATIVE)
    traces = Metric(COUNT)
    step_runs_first_call = Metric(NON_NEGATIVE)
    step_runs_per_later_step = Metric(NON_NEGATIVE)
    # CPU settings and precision: TensorFlow's own oneDNN decision, a policy's error against float32.
    onednn_opts = Metric(SWITCH)
    relative_error_vs_float32 = Metric(NON_NEGATIVE, beside_baseline=True)
    # Start-up: the whole of ``python -X importtime``'s record.
    importtime_total_s = Metric(DURATION)

    # What a followed loop recorded with its parts: the statistics read them all together.
    FOLLOWED_WITH = ("follow_calls", "heap_per_call", "rss_end_bytes", "peak_rss_bytes")

    def layer_fraction(self, layer: str) -> float | None:
        """A profiled host layer's share of the profiled call (``core.profiling.HOST_LAYERS``)."""
        return self.get(f"{layer}_fraction")

    def rss_part_per_call(self, index: int) -> float | None:
        """Resident bytes per call in one part of a followed loop."""
        return self.get(_RSS_PART.format(index))

    def loss_after_steps(self, steps: int) -> float | None:
        """The loss after a fixed number of training steps (mixed precision's check)."""
        return self.get(f"loss_after_{steps}_steps")

    def beside_baseline(self) -> set[str]:
        """The metrics recorded here that a grid's table reads beside its baseline row's
        (``Metric.beside_baseline``, and the losses after a fixed number of steps)."""
        return {name for name in self if name in _BESIDE_BASELINE or _LOSS_AFTER_NAME.fullmatch(name)}

    def problems(self) -> Iterator[tuple[str, str]]:
        """Each metric out of its range, and each a followed loop lacks, as (name, problem); the
        values are finite numbers already (the loader checks that first)."""
        for name, value in self.items():
            allowed = _RANGES.get(name) or (SIGNED_BYTES if _RSS_PART_NAME.fullmatch(name) else None)
            if allowed is not None and (problem := allowed.problem(value)) is not None:
                yield name, problem
        parts = self.follow_parts
        if parts is None or FOLLOW_PARTS.problem(parts) is not None:
            return
        for name in self.FOLLOWED_WITH:
            if name not in self:
                yield name, f"is missing, though the case followed its memory in {int(parts)} parts (follow_parts)"
        for index in range(int(parts)):
            if _RSS_PART.format(index) not in self:
                yield (_RSS_PART.format(index),
                       f"is missing: follow_parts says the loop was followed in {int(parts)} parts")
        calls = self.follow_calls
        if calls is not None and calls < parts:
            yield "follow_calls", f"is {calls:g}, fewer than its {int(parts)} parts (follow_parts) of a call or more each"


_RSS_PART = "rss_part_{}_per_call"
_RSS_PART_NAME = re.compile(r"rss_part_\d+_per_call")
_LOSS_AFTER_NAME = re.compile(r"loss_after_\d+_steps")
_FIELDS = {name: value for name, value in vars(Metrics).items() if isinstance(value, Metric)}
_RANGES = {name: field.allowed for name, field in _FIELDS.items() if field.allowed is not None}
_BESIDE_BASELINE = {name for name, field in _FIELDS.items() if field.beside_baseline}
