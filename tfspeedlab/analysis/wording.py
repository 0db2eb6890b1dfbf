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

from tfspeedlab.analysis.intervals import Estimate, Ratio
from tfspeedlab.units import format_bytes, format_factor, format_ratio, format_significant, select_unit

# What a difference says when its interval holds zero, or a ratio when its interval is too wide to
# use: this run cannot tell it from none.
NOT_MEASURABLE = "not measurable here"
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

# What a page says of a comparison one process measured: a process can land in a slow state as a
# whole, so one process's blocks cannot say how far a fresh one moves.
ONE_PROCESS = "one process: no verdict"
# What a table says of a training case whose weights did not move while its baseline's did: its
# time is not a training step's, so no speed-up is stated (Keras 3 with eager execution disabled).
DID_NOT_TRAIN = "did not train: no speed-up"


def span(low: float, high: float) -> str:
    """``9.8–10.4×``: two ends of an interval, three significant figures each."""
    return f"{format_factor(low)}–{format_ratio(high)}"


def format_interval(found: Ratio) -> str:
    """``9.8–10.4×``: the interval of a ratio as it stands (for a ratio at least 1 at both ends)."""
    return span(found.low, found.high)


def slowdown_interval(found: Ratio) -> str:
    """The interval of a speed-up below 1, turned into the slow-down's: ``3.33–5.00×``."""
    return span(1 / found.high, 1 / found.low)


def either_way(low: float, high: float) -> str:
    """A speed-up interval that holds 1, both ways from it: ``1.25× slower to 1.10× faster``."""
    return f"{format_ratio(1 / low)} {Verdict.SLOWER} to {format_ratio(high)} {Verdict.FASTER}"


# An unclear comparison whose interval spans more than this factor from end to end says nothing a
# reader can use ("22.5× slower to 1.30× faster"): it reads as not measurable, its range beside.
WIDEST_USEFUL_SPAN = 4.0


def too_wide(low: float, high: float) -> bool:
    """Whether an interval that holds 1 spans more than ``WIDEST_USEFUL_SPAN`` end to end."""
    return low < 1 < high and high / low > WIDEST_USEFUL_SPAN


def unclear_range(low: float, high: float, unclear: str = "no clear difference") -> str:
    """A speed-up interval that holds 1, in words: ``no clear difference (1.25× slower to 1.10×
    faster)``, or ``not measurable here (22.5× slower to 1.30× faster)`` past the widest useful
    span (``unclear`` names the narrower case)."""
    word = NOT_MEASURABLE if too_wide(low, high) else unclear
    return f"{word} ({either_way(low, high)})"


def format_speedup(found: Ratio) -> str:
    """A speed-up (the slower candidate's time ÷ the faster's) with its interval, always as a factor of
    at least 1 and the word the interval carries: ``10.8× faster [9.78–12.0×]``, ``32.3× slower
    [28.6–37.0×]``, or ``no clear difference (1.25× slower to 1.10× faster)``."""
    if found.above_one:
        return f"{format_ratio(found.value)}{_NBSP}{Verdict.FASTER} [{format_interval(found)}]"
    if found.below_one:
        return f"{format_ratio(1 / found.value)}{_NBSP}{Verdict.SLOWER} [{slowdown_interval(found)}]"
    return unclear_range(found.low, found.high)


def page_speedup(found: Ratio) -> str:
    """A speed-up as a page states it: ``format_speedup``, but nothing from a single process."""
    if found.one_process:
        return ONE_PROCESS
    return format_speedup(found)


def page_verdict(found: Ratio) -> Verdict:
    """``verdict`` as a page takes it: never a difference from a single process."""
    return Verdict.UNCLEAR if found.one_process else verdict(found)


def speedup_figures(found: Ratio) -> str:
    """A speed-up's figures for a sentence that has already said its verdict (``{{ verdict }}``):
    ``page_speedup``, but an unclear one as its range alone, ``1.38× slower to 1.34× faster``,
    so the verdict (``compared_with``: "not clearly" or, past 4×, "not measurably different") is
    not said twice."""
    if not found.one_process and not (found.above_one or found.below_one):
        return either_way(found.low, found.high)
    return page_speedup(found)


def time_ratio_word(found: Ratio) -> str:
    """A time against a reference time, in the fewest words (a chart's label beside a bar):
    ``2.91× faster``, ``1.50× slower`` or ``no clear difference``, from the same interval as the
    table's cell; nothing from a single process."""
    if found.one_process:
        return ONE_PROCESS
    if found.high < 1:
        return f"{format_ratio(1 / found.value)}{_NBSP}{Verdict.FASTER}"
    if found.low > 1:
        return f"{format_ratio(found.value)}{_NBSP}{Verdict.SLOWER}"
    return NOT_MEASURABLE if too_wide(found.low, found.high) else str(Verdict.UNCLEAR)


def format_time_ratio(found: Ratio) -> str:
    """A time against a reference time, in words (a grid's cells), with the interval the words come
    from: ``2.91× faster [2.70–3.12×]``, ``no clear difference (1.08× slower to 1.03× faster)``, so
    that the cell itself says how far a re-measure may move; nothing from a single process."""
    if found.one_process:
        return ONE_PROCESS
    return format_change(found, unclear=str(Verdict.UNCLEAR))


def format_change(found: Ratio, unclear: str = "no clear change") -> str:
    """A time against a reference (time ÷ reference), in words with its interval: ``2.10× faster
    [1.92–2.31×]``, ``1.52× slower [1.41–1.63×]``, or ``no clear change (1.08× slower to 1.03×
    faster)`` when the interval holds 1 (``unclear`` names that case)."""
    if found.high < 1:
        return f"{format_ratio(1 / found.value)}{_NBSP}{Verdict.FASTER} [{slowdown_interval(found)}]"
    if found.low > 1:
        return f"{format_ratio(found.value)}{_NBSP}{Verdict.SLOWER} [{format_interval(found)}]"
    return unclear_range(1 / found.high, 1 / found.low, unclear)


# A change between releases divides times taken at different moments of a pass, which can drift
# more than the between-sittings drift its interval carries; a verdict whose interval's near end
# lies below this is read as provisional (the releases page states the rule beside its figures).
PROVISIONAL_BELOW = 1.10


def format_release_change(found: Ratio) -> str:
    """A change from one release to the next, as ``format_change``, led by ``provisionally`` when
    it is a verdict whose interval's near end, as printed, lies below ``PROVISIONAL_BELOW``:
    ``provisionally 1.27× slower [1.06–1.52×]`` (a word before the figure reads in any sentence)."""
    phrase = format_change(found)
    near_end = found.low if found.above_one else 1 / found.high if found.below_one else None
    if near_end is not None and float(format_factor(near_end)) < PROVISIONAL_BELOW:
        return f"provisionally {phrase}"
    return phrase


UNCLEAR_BETWEEN_CASES = "not clearly different"


def format_case_difference(found: Ratio) -> str:
    """Two cases on one run, the first's time against the other's: as ``format_change``, but an
    interval that holds 1 reads ``not clearly different (…)``."""
    return format_change(found, unclear=UNCLEAR_BETWEEN_CASES)


def extreme(found: Ratio) -> str:
    """A speed-up set among others (the best and the worst of several), by its value alone:
    ``4.68× faster`` or ``2.72× slower``."""
    return speedup_by_value(found.value)


def speedup_by_value(value: float) -> str:
    """A speed-up (the slower time over the faster) as a factor of at least 1 and its word, by its
    value alone: ``1.44× faster``, ``1.05× slower``."""
    if value >= 1:
        return f"{format_ratio(value)} {Verdict.FASTER}"
    return f"{format_ratio(1 / value)} {Verdict.SLOWER}"


def time_change(ratio: float) -> str:
    """A time against a reference time with no interval (a median of several such ratios), as a
    factor of at least 1 and its word: ``1.05× slower``, ``1.12× faster``, or ``1.00× (the same)``."""
    if ratio > 1:
        return f"{format_ratio(ratio)}{_NBSP}{Verdict.SLOWER}"
    if ratio < 1:
        return f"{format_ratio(1 / ratio)}{_NBSP}{Verdict.FASTER}"
    return "1× (the same)"


# ------------------------------------------------------------ derived figures: differences, fits, break-evens

def time_with_interval(found: Estimate) -> str:
    """A derived time (a layer's cost, a fitted fixed cost) with its interval, in one unit:
    ``0.353 ms [0.330–0.380 ms]``; ``not measurable here`` when the interval holds zero (never a
    negative cost). A difference whose whole interval lies below zero keeps its minus signs."""
    if found.holds_zero:
        return NOT_MEASURABLE
    unit, scale = select_unit(max(abs(found.low), abs(found.high)))

    def signed(seconds: float) -> str:
        return ("−" if seconds < 0 else "") + format_significant(abs(seconds) / scale, 3)

    return f"{signed(found.value)}{_NBSP}{unit} [{signed(found.low)}–{signed(found.high)}{_NBSP}{unit}]"


def number_with_interval(found: Estimate, digits: int = 2) -> str:
    """A derived count (a break-even in ops or calls) with its interval: ``9.4 [8.1–11]``; one
    more digit while the two ends would print alike (``13.2 [12.6–13.5]``, never ``13 [13–13]``)."""
    while (format_significant(found.low, digits) == format_significant(found.high, digits)
           and found.low != found.high and digits < 4):
        digits += 1
    return (f"{format_significant(found.value, digits)} "
            f"[{format_significant(found.low, digits)}–{format_significant(found.high, digits)}]")


# ------------------------------------------------------------ sentences


def compared_with(speedup: Ratio) -> str:
    """A candidate against a reference, from the speed-up of the candidate: ``faster than``,
    ``slower than`` or ``not clearly different from`` (and no word from one process)."""
    if speedup.one_process:
        return f"({ONE_PROCESS}) against"
    if too_wide(speedup.low, speedup.high):
        return "not measurably different from"  # the figures beside it span more than 4×
    return {Verdict.FASTER: "faster than", Verdict.SLOWER: "slower than"}.get(verdict(speedup),
                                                                            "not clearly different from")


def not_compared_across_cpus(here: str, there: str) -> str:
    """What an agreement check says of two files measured on different CPU models."""
    return f"not compared (measured on another CPU: {here} here, {there} there)"


def agreement(found: Ratio) -> str:
    """The same workload in two results files (this one's time ÷ the other's): ``1.20× slower here
    [1.10–1.31×]``, ``1.15× faster here [1.05–1.27×]`` or ``no clear difference (1.03× slower to
    1.08× faster)``."""
    if found.low > 1:
        return f"{format_ratio(found.value)} slower here [{format_interval(found)}]"
    if found.high < 1:
        return f"{format_ratio(1 / found.value)} faster here [{slowdown_interval(found)}]"
    return unclear_range(1 / found.high, 1 / found.low)


def across_cpu_models(speedups: list[Ratio]) -> str:
    """One speed-up on several CPU models, by value: ``9.85× to 26.4× faster on 4 CPU models, one
    run each`` (the committed run on its model, the newest re-measure on each other); each model's
    own words where they do not all say the same; its own figures where there is one model."""
    if len(speedups) == 1:
        return f"{page_speedup(speedups[0])} (one CPU model measured)"
    words = {page_verdict(found) for found in speedups}
    if words == {Verdict.FASTER}:
        values = sorted(found.value for found in speedups)
        return f"{format_ratio(values[0])} to {format_ratio(values[-1])}{_NBSP}{Verdict.FASTER} on {len(speedups)} CPU models, one run each"
    if words == {Verdict.SLOWER}:
        values = sorted(1 / found.value for found in speedups)
        return f"{format_ratio(values[0])} to {format_ratio(values[-1])}{_NBSP}{Verdict.SLOWER} on {len(speedups)} CPU models, one run each"
    def alone(found: Ratio) -> str:
        if found.one_process:
            return ONE_PROCESS
        return extreme(found) if page_verdict(found) is not Verdict.UNCLEAR else str(Verdict.UNCLEAR)

    return f"{'; '.join(alone(found) for found in speedups)} on {len(speedups)} CPU models, one run each"


def xla_verdict(speedup: Ratio) -> str:
    """XLA against the plain graph (graph ÷ XLA): a win or a loss only when the whole interval says so."""
    return {Verdict.FASTER: "XLA faster", Verdict.SLOWER: "XLA slower"}.get(verdict(speedup), str(Verdict.UNCLEAR))


def is_clear(phrase: str) -> bool:
    """Whether a verdict phrase of this module says a difference (a table sets those in bold)."""
    return phrase not in (str(Verdict.UNCLEAR), NOT_MEASURABLE)


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
    """A speed-up the sentence around it gives no verdict word (a difference too small to matter):
    ``1.04× faster, 95% interval 1.02–1.06×``, ``1.05× slower, …`` or ``no clear difference, 95%
    interval 1.06× slower to 1.04× faster``."""
    if found.above_one:
        return f"{format_ratio(found.value)} {Verdict.FASTER}, 95% interval {format_interval(found)}"
    if found.below_one:
        return slower_by(found)
    word = NOT_MEASURABLE if too_wide(found.low, found.high) else Verdict.UNCLEAR
    return f"{word}, 95% interval {either_way(found.low, found.high)}"


def speedup_with_interval(found: Ratio) -> str:
    """A factor and its interval in brackets, no word: ``3.10× [2.9–3.3×]`` (a list of clear wins)."""
    return f"{format_ratio(found.value)} [{format_interval(found)}]"


def slowdown_with_interval(found: Ratio) -> str:
    """A clear loss's factor and interval, both turned: ``2.24× [2.11–2.47×]`` (a list headed "Slower")."""
    return f"{format_ratio(1 / found.value)} [{slowdown_interval(found)}]"


# ------------------------------------------------------------ memory over repeated calls

# A loop whose whole interval lies within this many bytes a call of zero is said not to grow:
# 1 KiB a call is 1 GiB over a million calls, the scale of a long-running server's loop.
NO_GROWTH_BYTES_PER_CALL = 1024


class Growth(enum.Enum):
    """What an interval of bytes per call allows a page to say of a loop's resident memory."""

    GROWS = "grows"
    SHRINKS = "shrinks"
    NONE = "no growth"  # the whole interval lies within NO_GROWTH_BYTES_PER_CALL of zero
    UNCLEAR = "no clear growth"

    def __str__(self) -> str:
        return self.value


def growth_verdict(per_call: Estimate) -> Growth:
    """GROWS or SHRINKS only where the whole interval lies on one side of zero; NONE where it lies
    within ``NO_GROWTH_BYTES_PER_CALL`` of zero; else UNCLEAR."""
    if per_call.low > 0:
        return Growth.GROWS
    if per_call.high < 0:
        return Growth.SHRINKS
    if -NO_GROWTH_BYTES_PER_CALL < per_call.low and per_call.high < NO_GROWTH_BYTES_PER_CALL:
        return Growth.NONE
    return Growth.UNCLEAR


def signed_bytes(count: float) -> str:
    """``format_bytes`` with a minus sign where the count is below zero: ``−12.0 KiB``."""
    return ("−" if count < 0 else "") + format_bytes(abs(count))


def format_growth(per_call: Estimate, per: str = "call") -> str:
    """A loop's growth in words with its interval: ``grows 12.3 KiB per call [10.1–14.5 KiB]``,
    ``no growth (−43 B to 207 B per call, within 1 KiB of none)`` or ``no clear growth (−3.0 KiB to
    9.1 KiB per call)``; ``per`` names what one call is (``model``)."""
    found = growth_verdict(per_call)
    if found in (Growth.GROWS, Growth.SHRINKS):
        size = format_bytes(abs(per_call.value))
        return (f"{found} {size} per{_NBSP}{per} "
                f"[{format_bytes(abs(per_call.low if found is Growth.GROWS else per_call.high))}–"
                f"{format_bytes(abs(per_call.high if found is Growth.GROWS else per_call.low))}]")
    if found is Growth.NONE and per_call.low == per_call.high == 0:
        # "0 B to 0 B" reads as a bug: say what it is.
        return f"{found} (resident memory did not move in any reading)"
    span = f"{signed_bytes(per_call.low)} to {signed_bytes(per_call.high)} per{_NBSP}{per}"
    if found is Growth.NONE:
        # The interval itself, not only the tolerance: a reader weighs 80 B a call against 1 KiB;
        # and what its far end comes to over a long-running loop, the scale a server cares about.
        most = max(abs(per_call.low), abs(per_call.high)) * 1e6
        return (f"{found} ({span}, within {format_bytes(NO_GROWTH_BYTES_PER_CALL)} of none: at most "
                f"{format_bytes(most)} over a million {per}s)")
    return f"{found} ({span})"


# What a growing loop's second half says when its interval can neither confirm nor rule out growth.
LEVELLING_UNCLEAR = "whether it levels off is unclear from its second half"


def format_levelling(whole: Estimate, late: Estimate, per: str = "call") -> str:
    """Whether a loop goes on growing. For a growing loop: ``keeps growing`` (its later half clearly
    grows too), ``levels off`` (its later half does not grow, shrinks, or grows clearly slower than
    the whole loop), ``LEVELLING_UNCLEAR`` otherwise. For a loop that does not clearly grow as a whole
    but whose later half does (memory given back early, then kept): ``but its second half grows …``,
    since that steady growth is what a longer loop would pay; nothing otherwise."""
    late_verdict = growth_verdict(late)
    if growth_verdict(whole) is not Growth.GROWS:
        return f"but its second half {format_growth(late, per)}" if late_verdict is Growth.GROWS else ""
    if late_verdict is Growth.GROWS:
        return "keeps growing"
    if late_verdict in (Growth.NONE, Growth.SHRINKS) or late.high < whole.low:
        return "levels off"
    return LEVELLING_UNCLEAR


def growth_cell(per_call: Estimate) -> str:
    """A loop's growth per call for a table whose header says "per call": ``+12.3 KiB [10.1 KiB–14.5 KiB]``
    where it clearly grows (or shrinks), else ``no growth`` or ``no clear growth (−3.0 to 9.1 KiB)``."""
    found = growth_verdict(per_call)
    if found is Growth.GROWS:
        return f"+{format_bytes(per_call.value)} [{format_bytes(per_call.low)}–{format_bytes(per_call.high)}]"
    if found is Growth.SHRINKS:
        return f"−{format_bytes(-per_call.value)} [{format_bytes(-per_call.high)}–{format_bytes(-per_call.low)}]"
    if found is Growth.NONE:
        return str(found)
    return f"{found} ({signed_bytes(per_call.low)} to {signed_bytes(per_call.high)})"
