"""One voice: every phrase a ratio, an interval or a verdict becomes, on a page, in the terminal and
in a report.

Analysis computes numbers and intervals (``intervals.Ratio``); this module alone turns them into
words. A verdict word is a ``Verdict``, compared as such, never as a string; the modes a
diagnosis times are a ``Mode``, which also knows the name the cost model gives each one.

Two rules hold every phrase here together:

* a word ("faster", "slower") only where the whole 95% interval says it, on one side of 1 for the
  guide's pages, past ``MATERIAL_SPEEDUP`` for a diagnosis's advice;
* a ratio below 1 is never left for the reader to invert when the interval lies wholly below 1:
  it is written as the slow-down (or, for a time against a reference, the speed-up) it is.
"""

from __future__ import annotations

import enum

from tfspeedlab.analysis.intervals import Ratio
from tfspeedlab.units import format_ratio, format_significant

# Between a factor and its word: they must not wrap apart in a narrow table cell.
_NBSP = "\u00a0"
# A speed-up smaller than this is reported as no material difference, whatever its interval:
# a graph that saves 1% on a kernel-bound function is not worth its tracing.
MATERIAL_SPEEDUP = 1.10
# The speed-up column's cell for the case every other case is divided by.
BASELINE_CELL = f"1×{_NBSP}(baseline)"


class Verdict(enum.Enum):
    """What an interval allows a comparison to say."""

    FASTER = "faster"
    SLOWER = "slower"
    UNCLEAR = "no clear difference"  # the interval holds 1
    NOT_MATERIAL = "no material difference"  # the interval does not lie wholly past MATERIAL_SPEEDUP

    def __str__(self) -> str:
        return self.value


class Mode(enum.Enum):
    """The three ways a diagnosis runs a function: the name a reader sees, and the cost model's."""

    EAGER = ("eager", "eager")
    GRAPH = ("tf.function", "graph")
    XLA = ("XLA", "xla")

    def __init__(self, label: str, cost_model_name: str) -> None:
        self.label = label
        self.cost_model_name = cost_model_name

    @classmethod
    def named(cls, name: str) -> Mode:
        """The mode a reader's name ("tf.function") or the cost model's ("graph") stands for."""
        for mode in cls:
            if name in (mode.label, mode.cost_model_name):
                return mode
        raise ValueError(f"no mode {name!r}; modes: {', '.join(mode.label for mode in cls)}")


MODE_LABELS = tuple(mode.label for mode in Mode)


# ------------------------------------------------------------ verdicts


def verdict(found: Ratio) -> Verdict:
    """For a speed-up (the slower candidate's time ÷ the faster's): FASTER only when the whole
    interval lies above 1, SLOWER when it lies below, else UNCLEAR."""
    if found.above_one:
        return Verdict.FASTER
    if found.below_one:
        return Verdict.SLOWER
    return Verdict.UNCLEAR


def material(speedup: Ratio) -> Verdict:
    """A speed-up in a diagnosis's words: FASTER or SLOWER only when its whole interval is past the
    material threshold, else NOT_MATERIAL."""
    if speedup.low >= MATERIAL_SPEEDUP:
        return Verdict.FASTER
    if speedup.high <= 1 / MATERIAL_SPEEDUP:
        return Verdict.SLOWER
    return Verdict.NOT_MATERIAL


def agrees(diagnosed: Ratio, full_run: Ratio) -> bool:
    """Whether a diagnosis's speed-up says what a full run's does. The diagnosis words it with the
    material threshold, the guide's pages with the side of 1 the interval lies on: the two agree
    when both say faster, or both slower, or the diagnosis finds no material difference and the
    full run finds none either or one smaller than the threshold (its interval reaches into the
    band between 1/1.10 and 1.10)."""
    word, page_word = material(diagnosed), verdict(full_run)
    if word is not Verdict.NOT_MATERIAL:
        return word is page_word
    return page_word is Verdict.UNCLEAR or (full_run.low < MATERIAL_SPEEDUP and full_run.high > 1 / MATERIAL_SPEEDUP)


# ------------------------------------------------------------ intervals and speed-ups


def span(low: float, high: float) -> str:
    """``9.8–10.4×``: two ends of an interval, three significant figures each."""
    return f"{format_significant(low, 3)}–{format_ratio(high)}"


def format_interval(found: Ratio) -> str:
    """``9.8–10.4×``: the interval of a ratio as it stands."""
    return span(found.low, found.high)


def slowdown_interval(found: Ratio) -> str:
    """The interval of a speed-up below 1, turned into the slow-down's: ``3.33–5.00×``."""
    return span(1 / found.high, 1 / found.low)


def format_speedup(found: Ratio) -> str:
    """``10.8× [9.78–12.0×]``; a speed-up whose whole interval lies below 1 as the slow-down it is,
    ``32.3× slower [28.6–37.0×]`` (a "0.031×" hides what it means). Where the interval spans 1, the
    bare factor: no word the interval does not support."""
    if found.high < 1:
        return f"{format_ratio(1 / found.value)}{_NBSP}{Verdict.SLOWER} [{slowdown_interval(found)}]"
    return f"{format_ratio(found.value)} [{format_interval(found)}]"


def format_time_ratio(found: Ratio) -> str:
    """A time against a reference time, in words where the interval allows them: ``2.91× faster`` when
    the whole interval lies below 1, ``1.50× slower`` when it lies above, else the bare ratio ``1.02×``
    ("0.343×" makes a reader work out which way it goes)."""
    if found.high < 1:
        return f"{format_ratio(1 / found.value)}{_NBSP}{Verdict.FASTER}"
    if found.low > 1:
        return f"{format_ratio(found.value)}{_NBSP}{Verdict.SLOWER}"
    return format_ratio(found.value)


def format_change(found: Ratio, unclear: str = "no clear change") -> str:
    """A time against a reference (time ÷ reference), in words with its interval: ``2.10× faster
    [1.92–2.31×]``, ``1.52× slower [1.41–1.63×]``, or ``no clear change (1.02×, 0.97–1.08×)`` when the
    interval spans 1 (``unclear`` names that case)."""
    if found.high < 1:
        return f"{format_ratio(1 / found.value)}{_NBSP}{Verdict.FASTER} [{slowdown_interval(found)}]"
    if found.low > 1:
        return f"{format_ratio(found.value)}{_NBSP}{Verdict.SLOWER} [{format_interval(found)}]"
    return f"{unclear} ({format_ratio(found.value)}, {format_interval(found)})"


UNCLEAR_BETWEEN_CASES = "not clearly different"


def format_case_difference(found: Ratio) -> str:
    """Two cases on one run, the first's time against the other's: as ``format_change``, but an
    interval that spans 1 reads ``not clearly different (…)``."""
    return format_change(found, unclear=UNCLEAR_BETWEEN_CASES)


def extreme(found: Ratio) -> str:
    """A speed-up set among others (the best and the worst of several), by its value alone:
    ``4.68× faster`` or ``2.72× slower``."""
    if found.value >= 1:
        return f"{format_ratio(found.value)} {Verdict.FASTER}"
    return f"{format_ratio(1 / found.value)} {Verdict.SLOWER}"


# ------------------------------------------------------------ sentences


def _percent(ratio: float) -> str:
    return f"{ratio - 1:.0%} {Verdict.FASTER}" if ratio >= 1 else f"{1 / ratio - 1:.0%} {Verdict.SLOWER}"


def percent_faster(found: Ratio) -> str:
    """A speed-up as the percentage people quote, with its interval: ``86% faster (95% interval
    75–97%)``; ``5% slower (…)`` when it lost, ``not clearly faster or slower (…)`` when it spans 1."""
    if found.above_one:
        return f"{_percent(found.value)} (95% interval {found.low - 1:.0%}–{found.high - 1:.0%})"
    if found.below_one:
        return f"{_percent(found.value)} (95% interval {1 / found.high - 1:.0%}–{1 / found.low - 1:.0%})"
    return f"not clearly faster or slower (95% interval: {_percent(found.low)} to {_percent(found.high)})"


def compared_with(speedup: Ratio) -> str:
    """A candidate against a reference, from the speed-up of the candidate: ``faster than``,
    ``slower than`` or ``not clearly different from``."""
    return {Verdict.FASTER: "faster than", Verdict.SLOWER: "slower than"}.get(verdict(speedup),
                                                                            "not clearly different from")


def agreement(found: Ratio) -> str:
    """The same workload in two results files (this one's time ÷ the other's), with its interval:
    ``1.04× [0.97–1.12×], no clear difference``; ``slower here`` or ``faster here`` past it."""
    word = {Verdict.FASTER: "slower here", Verdict.SLOWER: "faster here"}.get(verdict(found), str(Verdict.UNCLEAR))
    return f"{format_ratio(found.value)} [{format_interval(found)}], {word}"


def xla_verdict(speedup: Ratio) -> str:
    """XLA against the plain graph (graph ÷ XLA): a win or a loss only when the whole interval says so."""
    return {Verdict.FASTER: "XLA faster", Verdict.SLOWER: "XLA slower"}.get(verdict(speedup), str(Verdict.UNCLEAR))


def is_clear(phrase: str) -> bool:
    """Whether a verdict phrase of this module says a difference (a table sets those in bold)."""
    return phrase != str(Verdict.UNCLEAR)


def change_verdict(change: Ratio) -> str:
    """``tfspeedlab compare``: new ÷ old, ``slower``, ``faster`` or ``no clear difference``."""
    return {Verdict.FASTER: str(Verdict.SLOWER), Verdict.SLOWER: str(Verdict.FASTER)}.get(
        verdict(change), str(Verdict.UNCLEAR))


def faster_by(found: Ratio, what: str = "") -> str:
    """A diagnosis's clear speed-up: ``12.2× faster per call (95% interval 10.7–13.7×)``."""
    return f"{format_ratio(found.value)} {Verdict.FASTER}{' ' + what if what else ''} (95% interval {format_interval(found)})"


def slower_by(found: Ratio) -> str:
    """A diagnosis's clear slow-down: ``1.23× slower, 95% interval 1.13–1.33×``."""
    return f"{format_ratio(1 / found.value)} {Verdict.SLOWER}, 95% interval {slowdown_interval(found)}"


def bare(found: Ratio) -> str:
    """A ratio with no verdict word of its own, as a slow-down where its whole interval is below 1
    (as the guide's tables write it): ``0.993×, 95% interval 0.939–1.04×``."""
    if found.high < 1:
        return slower_by(found)
    return f"{format_ratio(found.value)}, 95% interval {format_interval(found)}"


def speedup_with_interval(found: Ratio) -> str:
    """A factor and its interval in brackets, no word: ``3.10× [2.9–3.3×]`` (a list of clear wins)."""
    return f"{format_ratio(found.value)} [{format_interval(found)}]"


def slowdown_with_interval(found: Ratio) -> str:
    """A clear loss's factor and interval, both turned: ``2.24× [2.11–2.47×]`` (a list headed "Slower")."""
    return f"{format_ratio(1 / found.value)} [{slowdown_interval(found)}]"
