"""Memory over a diagnosis's repeated calls of the reader's code: as many calls as a share of the
budget holds, followed in parts (``resident_memory.follow_memory``), for the model and the
function reports alike."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfspeedlab.core.resident_memory import FOLLOW_PARTS, follow_memory
from tfspeedlab.core.stats.memory_growth import FollowedMemory

# Calls followed at most: as many as the memory example follows (enough for a kibibyte a call to
# stand out above resident memory's page-sized steps), and at least one a part.
MOST_CALLS = 200


def calls_within(per_call_s: float, budget_s: float) -> int:
    """As many calls as ``budget_s`` holds at ``per_call_s``, between one a part and ``MOST_CALLS``."""
    return int(min(MOST_CALLS, max(FOLLOW_PARTS, budget_s / per_call_s)))


def follow_within(fn: Callable[[], Any], calls: int, what: str, progress: Callable[[str], None]) -> FollowedMemory:
    """Resident memory over ``calls`` repeated ``fn()`` calls; ``what`` names them in the progress line."""
    progress(f"following memory over {calls} {what} calls")
    return FollowedMemory.from_metrics(follow_memory(fn, calls))
