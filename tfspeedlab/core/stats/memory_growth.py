"""Memory over repeated calls: how fast resident memory grows per call, with its interval, and
whether the growth goes on or levels off (and both in words: ``growth_phrase``), from what
``core.resident_memory.follow_memory`` recorded in each process of a case.

A followed loop is cut into equal parts, and each part's growth per call is one reading of the
slope. Resident memory moves in steps (the allocator takes a new arena, a cache fills once), so a
least-squares line through single readings would give its one step the weight of the whole loop,
and its standard error would treat neighbouring readings as independent when they are not. The
parts are increments: each reads its own stretch of calls. The interval is Student's t over every
part of every process (a step falls in one part of one process and widens the interval rather
than moving the estimate far). The later half of the parts, read alone, says whether the growth
goes on or has levelled off.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tfspeedlab.core.results.checks import BYTES, SIGNED_BYTES
from tfspeedlab.core.results.metrics import Metrics
from tfspeedlab.core.results.schema import CaseResult, FieldReader, NotInResults
from tfspeedlab.core.stats.intervals import Estimate, t975
from tfspeedlab.core.wording import LEVELLING_UNCLEAR, format_growth, format_levelling


@dataclass(frozen=True)
class Growth:
    """One case's memory growth: bytes per call over the whole followed loop and over its later half,
    each with a 95% interval; the Python heap's growth per call; what the loop was."""

    per_call: Estimate
    late_per_call: Estimate
    heap_per_call: float  # the mean over processes, bytes per call (tracemalloc's traced memory)
    calls: int  # calls followed in each process
    processes: int
    rss_end_bytes: float  # the median over processes of the resident memory after the loop
    peak_rss_bytes: float  # the largest high-water mark of any process


def later_half(parts: Sequence[float]) -> Sequence[float]:
    """The parts a loop's "second half" reads: from the middle part on (the middle one included
    where the count is odd), so that a loop followed in five parts is judged on its last three."""
    return parts[len(parts) // 2:]


def followed_processes(case: CaseResult) -> list[Metrics]:
    """The metrics of each process of ``case`` that followed its memory; NotInResults where none did."""
    processes = [metrics for metrics in case.metrics_by_process if metrics.follow_parts is not None]
    if not processes:
        raise NotInResults(f"case {case.label!r} followed no memory (no follow_parts metric)")
    return processes


def parts_per_call(metrics: Metrics) -> list[float]:
    """Bytes per call in each part of one process's followed loop, in order."""
    return [metrics.rss_part_per_call(index) for index in range(int(metrics.follow_parts))]


def growth(case: CaseResult) -> Growth:
    """The case's growth from each of its processes' parts; NotInResults for a case that followed
    no memory (or was followed in fewer than two parts)."""
    processes = followed_processes(case)
    parts = [parts_per_call(metrics) for metrics in processes]
    if min(len(found) for found in parts) < 2:
        raise NotInResults(f"case {case.label!r}: memory followed in fewer than two parts")
    late = [later_half(found) for found in parts]
    return Growth(
        per_call=mean_interval([value for found in parts for value in found]),
        late_per_call=mean_interval([value for found in late for value in found]),
        heap_per_call=statistics.fmean(metrics.heap_per_call for metrics in processes),
        calls=int(statistics.median(metrics.follow_calls for metrics in processes)),
        processes=len(processes),
        rss_end_bytes=statistics.median(metrics.rss_end_bytes for metrics in processes),
        peak_rss_bytes=max(metrics.peak_rss_bytes for metrics in processes),
    )


def mean_interval(values: list[float]) -> Estimate:
    """The mean of ``values`` with Student's 95% interval (readings taken as independent)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Estimate(mean, -math.inf, math.inf)
    half = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return Estimate(mean, mean - half, mean + half)


@dataclass(frozen=True)
class FollowedMemory:
    """Resident memory over one process's repeated calls of a reader's code (a diagnosis), followed in
    parts as the memory example follows its loops (``resident_memory.follow_memory``): each part's
    growth per call, and the Python heap's."""

    calls: int
    parts_per_call: tuple[float, ...]  # bytes per call in each part, in order
    heap_per_call: float  # the Python heap's part (tracemalloc), bytes per call

    @classmethod
    def from_metrics(cls, found: dict[str, float]) -> FollowedMemory:
        """From what ``follow_memory`` returned."""
        metrics = Metrics(found)
        return cls(int(metrics.follow_calls), tuple(parts_per_call(metrics)), metrics.heap_per_call)

    @property
    def per_call(self) -> Estimate:
        return mean_interval(list(self.parts_per_call))

    @property
    def late_per_call(self) -> Estimate:
        return mean_interval(list(later_half(self.parts_per_call)))


def followed_to_json(memory: FollowedMemory | None) -> dict[str, Any] | None:
    """A diagnosis report's ``memory`` field."""
    return None if memory is None else {"calls": memory.calls, "parts_per_call_bytes": list(memory.parts_per_call),
                                        "heap_per_call_bytes": memory.heap_per_call}


def followed_from_json(reader: FieldReader, data: dict[str, Any]) -> FollowedMemory | None:
    """A report's ``memory`` field, checked; None where it is null or missing (a report kept before
    memory was followed)."""
    raw = reader.get(data, "memory", (dict, type(None))) if "memory" in data else None
    if raw is None:
        return None
    calls = reader.get(raw, "calls", int, "memory.")
    parts = reader.get(raw, "parts_per_call_bytes", list, "memory.")
    reader.require(len(parts) >= 2 and all(isinstance(part, (int, float)) and not isinstance(part, bool)
                                           for part in parts),
                   "memory.parts_per_call_bytes", "must be a list of at least two numbers")
    for index, part in enumerate(parts):
        reader.check_number(part, f"memory.parts_per_call_bytes[{index}]", SIGNED_BYTES)
    reader.require(calls >= len(parts), "memory.calls", f"must be at least one call a part, found {calls}")
    # As the memory example's metrics are (``Metrics.heap_per_call``): never below zero.
    heap = reader.check_number(reader.get(raw, "heap_per_call_bytes", (float, int), "memory."),
                               "memory.heap_per_call_bytes", BYTES)
    return FollowedMemory(calls, tuple(float(part) for part in parts), float(heap))


@dataclass(frozen=True)
class MemoryCurve:
    """Resident memory since a followed loop began, after each of its parts: the mean over the
    case's processes (each part's growth per call times its calls, added up)."""

    calls: list[float]  # calls made at each point, 0 first
    bytes_since_start: list[float]


def curve(case: CaseResult) -> MemoryCurve:
    """The case's memory over its followed calls; NotInResults where it followed none."""
    processes = followed_processes(case)
    parts = min(int(metrics.follow_parts) for metrics in processes)
    calls_per_part = statistics.median(metrics.follow_calls for metrics in processes) / parts
    rises = [statistics.fmean(metrics.rss_part_per_call(index) for metrics in processes) * calls_per_part
             for index in range(parts)]
    heights = [0.0]
    for rise in rises:
        heights.append(heights[-1] + rise)
    return MemoryCurve(calls=[index * calls_per_part for index in range(parts + 1)], bytes_since_start=heights)


def followed_memory(results) -> bool:
    """Whether a results file followed memory in every case that ran (the memory example)."""
    return bool(results.cases) and all(
        any(metrics.follow_parts is not None for metrics in case.metrics_by_process) for case in results.cases)


# What one call of a loop is, where it is not one call of the model.
PER = {"new model": "model", "fit": "fit"}


def per_what(case: CaseResult) -> str:
    return PER.get(str(case.params.get("call")), "call")


# How whether a loop levels off joins its growth, so that the phrase reads as one sentence's verbs
# after its subject ("memory grows 7.6 MiB per model [..] and keeps growing"); any other levelling
# phrase carries its own subject or conjunction.
_LEVELLING_JOINS = {"keeps growing": " and ", "levels off": ", then ", LEVELLING_UNCLEAR: "; "}


def growth_phrase(case: CaseResult) -> str:
    """The case's growth per call in words, and whether it levels off."""
    found = growth(case)
    per = per_what(case)
    levelling = format_levelling(found.per_call, found.late_per_call, per)
    if not levelling:
        return format_growth(found.per_call, per)
    return format_growth(found.per_call, per) + _LEVELLING_JOINS.get(levelling, ", ") + levelling


def late_growth_phrase(case: CaseResult) -> str:
    """The case's growth per call over its loop's second half, in words: what a longer loop goes on paying."""
    return format_growth(growth(case).late_per_call, per_what(case))
