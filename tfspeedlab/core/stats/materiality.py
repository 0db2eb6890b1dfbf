"""When a diagnosis acts on a speed-up: only where its whole interval lies past ``MATERIAL_SPEEDUP``.

The guide's pages word every comparison in the four verdicts (``wording``); a diagnosis's advice
("wrap it in tf.function", "leave XLA off") needs more than a verdict: a gain must also be large
enough to pay for the change. This module holds that threshold and the test; the words stay the
wording module's.
"""

from __future__ import annotations

from tfspeedlab.core.stats.intervals import Ratio
from tfspeedlab.core.wording import Verdict, verdict

# A speed-up smaller than this is not acted on, whatever its interval: a graph that saves 1% on a
# kernel-bound function is not worth its tracing.
MATERIAL_SPEEDUP = 1.10


def material(speedup: Ratio) -> Verdict | None:
    """FASTER or SLOWER when the whole interval lies past the threshold that way; None otherwise
    (too small to act on, whatever its verdict)."""
    if speedup.low >= MATERIAL_SPEEDUP:
        return Verdict.FASTER
    if speedup.high <= 1 / MATERIAL_SPEEDUP:
        return Verdict.SLOWER
    return None


def agrees(diagnosed: Ratio, full_run: Ratio) -> bool:
    """Whether a diagnosis's speed-up says what a full run's does. The diagnosis acts past the material
    threshold, the guide's pages give a verdict from the side of 1 the interval lies on: the two agree
    when both say faster, or both slower, or the diagnosis finds nothing to act on and the full run
    finds no difference either, or one smaller than the threshold (its interval reaches into the band
    between 1/1.10 and 1.10)."""
    word, page_word = material(diagnosed), verdict(full_run)
    if word is not None:
        return word is page_word
    return not page_word.clear or (full_run.low < MATERIAL_SPEEDUP and full_run.high > 1 / MATERIAL_SPEEDUP)
