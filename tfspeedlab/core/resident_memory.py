"""Memory over repeated calls: a loop followed part by part, resident memory read between the
parts, and the Python heap's share under ``tracemalloc``. (A module of its own, apart from
``measure`` and ``profiling``: every definition of a package an example imports decides whether that
example's committed results are still fresh, and this decides only the memory figures.)"""

from __future__ import annotations

import gc
import os
import tracemalloc
from collections.abc import Callable
from typing import Any

from tfspeedlab.core.measure.memory import peak_rss_bytes

# Parts a followed loop is cut into: each part's growth per call is one reading of the slope, so
# that a step (an allocator taking a new arena once) weighs as one part, not as the whole loop.
FOLLOW_PARTS = 5
# Share of the loop's calls repeated under tracemalloc, which slows every Python allocation
# (two to three times here) and keeps a record of its own per live block: a pass of its own, so
# that neither the resident readings nor the time per call carry its cost.
HEAP_SHARE = 0.25


def resident_bytes() -> int:
    """The process's resident memory now (not its peak): it falls as well as grows. Linux only."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def follow_memory(fn: Callable[[], Any], calls: int, parts: int = FOLLOW_PARTS, heap_share: float = HEAP_SHARE) -> dict[str, float]:
    """Call ``fn()`` ``calls`` times, reading resident memory at the start and after each of
    ``parts`` equal parts of the loop; then ``heap_share`` as many calls again under tracemalloc
    for the Python heap's part. Metrics: the resident bytes at the start and the end, the growth
    per call of each part (``rss_part_<i>_per_call``), the Python heap's growth per call, and how
    many calls each part had."""
    if calls < parts:
        raise ValueError(f"follow {parts} parts of at least one call each, not {calls} calls")
    per_part = calls // parts
    gc.collect()  # what earlier calls left for the collector is not this loop's growth
    readings = [resident_bytes()]
    for _ in range(parts):
        for _ in range(per_part):
            fn()
        readings.append(resident_bytes())
    found = {"follow_calls": float(per_part * parts), "follow_parts": float(parts),
             "rss_start_bytes": float(readings[0]), "rss_end_bytes": float(readings[-1]),
             "peak_rss_bytes": float(peak_rss_bytes())}
    found.update({f"rss_part_{index}_per_call": (after - before) / per_part
                  for index, (before, after) in enumerate(zip(readings, readings[1:]))})
    heap_calls = max(1, round(per_part * parts * heap_share))
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(heap_calls):
            fn()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    found.update(heap_calls=float(heap_calls), heap_per_call=(end - start) / heap_calls)
    return found
