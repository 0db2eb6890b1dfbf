"""One voice: every phrase a ratio, an interval or a verdict becomes, on a page, in the terminal and
in a report.

Analysis computes numbers and intervals (``intervals.Ratio``); this module alone turns them into
words. A comparison reads in exactly one of four ways, a ``Verdict``:

* ``10.8× faster [9.78–12.0×]``: the whole 95% interval lies above 1;
* ``2.24× slower [2.11–2.47×]``: the whole interval lies below 1, turned into the slow-down it is
  (a factor on a page is never below 1);
* ``the same within 4%``: the interval holds 1 and reaches at most ``SAME_WITHIN`` from it either way, as a factor; the percentage
  is how close to 1 this machine could pin it, rounded up, so the phrase states the resolution;
* ``inconclusive here (1.25× slower to 1.30× faster)``: any other interval that holds 1: this
  machine could not tell, and the range says how far a re-measure may land either way.

A case timed in a single process has no interval between processes, so no verdict: its times
stand alone, and a table says so once (``ONE_PROCESS``). A verdict word is a ``Verdict``, compared
as such, never as a string. The modes a diagnosis times are a ``Mode``, which also knows the name
the cost model gives each one.
"""

from __future__ import annotations

import enum
import math

from tfspeedlab.core.stats.intervals import Estimate, Ratio
from tfspeedlab.core.units import format_bytes, format_factor, format_ratio, format_significant, select_unit

# Between a factor and its word: they must not wrap apart in a narrow table cell.
_NBSP = "\u00a0"
# An interval that holds 1 and lies within 1 ± this reads "the same within X%". On the guide's
# machine the drift between sittings alone widens every interval to about ±15–19% (t 3.18 × a 4.5–5.5%
# log SD), so a cap below that would leave the phrase to one-sitting runs; 20% lets the best-resolved
# comparisons say how close they are, and a wider interval stays "inconclusive here".
SAME_WITHIN = 0.20
# A derived cost (a layer's, a fitted fixed cost) whose interval holds zero.
TOO_SMALL = "too small to measure here"
# What a table says, once, of comparisons one process measured: a process can land in a slow state
# as a whole, so one process's blocks cannot say how far a fresh one moves.
ONE_PROCESS = "one process: times only"
# The cell a one-process comparison leaves in a table: words, not a dash ("—" is a case not run),
# explained once under the table (``ONE_PROCESS_NOTE``).
NO_VERDICT_CELL = "no verdict¹"
# The speed-up column's cell for the case every other case is divided by.
BASELINE_CELL = f"1×{_NBSP}(baseline)"
# What a table says of a training case whose weights did not move while its baseline's did: its
# time is not a training step's, so no speed-up is stated (Keras 3 with eager execution disabled).
DID_NOT_TRAIN = "did not train: no speed-up"


class Verdict(enum.Enum):
    """What an interval allows a comparison to say: the four verdicts."""

    FASTER = "faster"
    SLOWER = "slower"
    SAME = "the same"  # the interval holds 1 and lies within 1 ± SAME_WITHIN
    INCONCLUSIVE = "inconclusive here"  # any other interval that holds 1

    def __str__(self) -> str:
        return self.value

    @property
    def clear(self) -> bool:
        """Whether the verdict says a difference (a table sets those in bold)."""
        return self in (Verdict.FASTER, Verdict.SLOWER)


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


# ------------------------------------------------------------ the four verdicts


def _judge(low: float, high: float) -> Verdict:
    """The verdict of a speed-up interval (above 1: the candidate is faster). Between "the same" and
    "inconclusive here" it decides on the factors the inconclusive phrase would print
    (``_printed_reach``): "(1.17× slower to 1.20× faster)" never stands beside "the same within 20%"."""
    if low > 1:
        return Verdict.FASTER
    if high < 1:
        return Verdict.SLOWER
    return Verdict.SAME if _printed_reach(low, high) <= SAME_WITHIN else Verdict.INCONCLUSIVE


def _reach(low: float, high: float) -> float:
    """How far an interval that holds 1 reaches from it, as a factor either way: [0.8, 1.1] reaches
    25% (0.8 is 1.25× slower), so "within X%" agrees with the factors the other phrases print."""
    return max(high, 1 / low) - 1


def _printed(factor: float) -> float:
    """A factor as a page prints it (``format_factor``: three significant figures), read back."""
    return float(format_factor(factor).replace(",", ""))


def _printed_reach(low: float, high: float) -> float:
    """``_reach`` of the two ends as the inconclusive phrase prints them: an end of 1.2004× prints
    1.20×, and reaches 20%. Rounded off the float error of reading "1.20" back (0.19999…)."""
    return round(max(_printed(high), _printed(1 / low)) - 1, 9)


def same_within_percent(low: float, high: float) -> int:
    """How close to 1 an interval that holds 1 lies, as a factor either way, in whole percent rounded
    up: [0.97, 1.02] → 4 (0.97 is 1.031× slower)."""
    return max(1, math.ceil(round(_reach(low, high) * 100, 6)))


def _same_within(low: float, high: float) -> str:
    """``the same within X%``, X from ``same_within_percent`` but never past ``SAME_WITHIN``: the
    verdict was decided on the printed ends (``_judge``), and an end of 1.2004×, printed 1.20×, reads
    "within 20%" as its figure does, not "within 21%"."""
    return f"{Verdict.SAME} within {min(same_within_percent(low, high), round(SAME_WITHIN * 100))}%"


def verdict(found: Ratio) -> Verdict:
    """The verdict of a speed-up (the reference's time ÷ the candidate's: above 1, the candidate is
    faster), from its whole interval."""
    return _judge(found.low, found.high)


def page_verdict(found: Ratio) -> Verdict | None:
    """``verdict`` as a page takes it: None (no verdict) from a single process."""
    return None if found.one_process else verdict(found)


def span(low: float, high: float) -> str:
    """``9.8–10.4×``: two ends of an interval, three significant figures each."""
    return f"{format_factor(low)}–{format_ratio(high)}"


def _worded(value: float, low: float, high: float) -> str:
    """A speed-up (above 1: faster) in one of the four verdicts, always as a factor of at least 1."""
    found = _judge(low, high)
    if found is Verdict.FASTER:
        return f"{format_ratio(value)}{_NBSP}{Verdict.FASTER} [{span(low, high)}]"
    if found is Verdict.SLOWER:
        return f"{format_ratio(1 / value)}{_NBSP}{Verdict.SLOWER} [{span(1 / high, 1 / low)}]"
    if found is Verdict.SAME:
        return _same_within(low, high)
    return (f"{Verdict.INCONCLUSIVE} ({format_ratio(1 / low)}{_NBSP}{Verdict.SLOWER} to "
            f"{format_ratio(high)}{_NBSP}{Verdict.FASTER})")


def format_speedup(found: Ratio) -> str:
    """A speed-up (the reference's time ÷ the candidate's) in words: ``10.8× faster [9.78–12.0×]``,
    ``32.3× slower [28.6–37.0×]``, ``the same within 4%`` or ``inconclusive here (1.25× slower to
    1.30× faster)``."""
    return _worded(found.value, found.low, found.high)


def page_speedup(found: Ratio) -> str:
    """A speed-up as a page's sentence states it: ``format_speedup``, but no verdict from a single process."""
    if found.one_process:
        return ONE_PROCESS
    return format_speedup(found)


def speedup_cell(found: Ratio) -> str:
    """A speed-up in a table cell: ``format_speedup``, or ``NO_VERDICT_CELL`` from a single process
    (the table says ``ONE_PROCESS`` once, in its note: ``one_process_note``)."""
    return NO_VERDICT_CELL if found.one_process else format_speedup(found)


def format_change(found: Ratio) -> str:
    """A time against a reference time (time ÷ reference: below 1, it is faster) in the four verdicts:
    ``2.10× faster [1.92–2.31×]``, ``1.52× slower [1.41–1.63×]``, …"""
    return _worded(1 / found.value, 1 / found.high, 1 / found.low)


def change_cell(found: Ratio) -> str:
    """``format_change`` in a table cell: ``NO_VERDICT_CELL`` from a single process."""
    return NO_VERDICT_CELL if found.one_process else format_change(found)


def time_ratio_word(found: Ratio) -> str:
    """A time against a reference time in the fewest words, for a chart's label beside a bar:
    ``2.91× faster``, ``1.50× slower``, ``the same within 3%`` or ``inconclusive here``, from the
    same interval as the table's cell; ``ONE_PROCESS`` from a single process."""
    if found.one_process:
        return ONE_PROCESS
    word = _judge(1 / found.high, 1 / found.low)  # time ÷ reference, as a speed-up
    if word is Verdict.FASTER:
        return f"{format_ratio(1 / found.value)}{_NBSP}{word}"
    if word is Verdict.SLOWER:
        return f"{format_ratio(found.value)}{_NBSP}{word}"
    if word is Verdict.SAME:
        return format_change(found)
    return str(word)


# Under a table with a ``NO_VERDICT_CELL``: why that cell has no verdict, once per table.
ONE_PROCESS_NOTE = "¹ Timed in one process: times only, no verdict. A verdict needs two processes or more."


def verdict_counts(counts: dict[Verdict | None, int]) -> str:
    """How many comparisons read each way, every verdict named: ``2 faster, 1 slower, 3 the same,
    0 inconclusive here``; with ``, 4 with no verdict (one process: times only)`` where ``counts[None]``
    says some were timed in one process."""
    text = ", ".join(f"{counts.get(word, 0)} {word}" for word in Verdict)
    missing = counts.get(None, 0)
    return text + (f", {missing} with no verdict ({ONE_PROCESS})" if missing else "")


def across_cpu_models(speedups: list[tuple[str, Ratio]]) -> str:
    """One speed-up on several CPU models (each named): ``9.85× to 26.4× faster on 4 CPU models``
    where every model's verdict says the same (one run each: the committed run on its model, the
    newest re-measure on each other); each model's own phrase, named, where they differ; its own
    phrase where there is one model."""
    if len(speedups) == 1:
        return f"{page_speedup(speedups[0][1])} on the one CPU model measured"
    words = {page_verdict(found) for _, found in speedups}
    for word, turned in ((Verdict.FASTER, False), (Verdict.SLOWER, True)):
        if words == {word}:
            values = sorted(1 / found.value if turned else found.value for _, found in speedups)
            return (f"{format_ratio(values[0])} to {format_ratio(values[-1])}{_NBSP}{word} on "
                    f"{len(speedups)} CPU models")
    return "; ".join(f"{page_speedup(found)} on {name}" for name, found in speedups)


def across_cpu_span(speedups: list[tuple[str, Ratio]], *, widest: bool = False) -> str:
    """``across_cpu_models``, short enough for an answer box where the models' verdicts differ: the
    models grouped by verdict, each group in its own verdict's words, the clear ones first (a table
    beside it gives each model's interval): ``1.71× to 2.37× faster on 3 CPU models; inconclusive
    here on AMD EPYC 25/1``. A group of one model names it. Where every model reads inconclusive, or
    every one the same, it says so of each: ``inconclusive on each of 4 CPU models``, ``the same
    within 6% on each of 4 CPU models`` (the widest reach); ``across_cpu_models``' own phrase where
    every model's verdict is the same clear one, or where one model was timed in a single process.

    ``widest`` gives every-model-inconclusive its reach too, the farthest ends of the models' ranges
    as the inconclusive phrase prints them, so "inconclusive" cannot hide how far a model might
    differ: ``inconclusive on each of 4 CPU models, at widest 1.40× slower to 1.28× faster``."""
    words = {page_verdict(found) for _, found in speedups}
    if len(speedups) >= 2 and words == {Verdict.INCONCLUSIVE}:
        phrase = f"inconclusive on each of {len(speedups)} CPU models"
        if not widest:
            return phrase
        slower = max(1 / found.low for _, found in speedups)
        faster = max(found.high for _, found in speedups)
        return (f"{phrase}, at widest {format_ratio(slower)}{_NBSP}{Verdict.SLOWER} to "
                f"{format_ratio(faster)}{_NBSP}{Verdict.FASTER}")
    if len(speedups) >= 2 and words == {Verdict.SAME}:
        return f"{_group_phrase(Verdict.SAME, speedups).rsplit(' on ', 1)[0]} on each of {len(speedups)} CPU models"
    if len(speedups) < 2 or len(words) < 2 or None in words:
        return across_cpu_models(speedups)
    groups: dict[Verdict, list[tuple[str, Ratio]]] = {}
    for name, found in speedups:
        groups.setdefault(verdict(found), []).append((name, found))
    order = (Verdict.FASTER, Verdict.SLOWER, Verdict.SAME, Verdict.INCONCLUSIVE)
    return "; ".join(_group_phrase(word, groups[word]) for word in order if word in groups)


def across_cpu_verdict(speedups: list[tuple[str, Ratio]]) -> str:
    """A speed-up's verdict alone, for an answer box that has spent its figures elsewhere, where every
    CPU model's verdict says the same difference: ``slower on all 4 CPU models`` (the table
    beside it gives each model's factor and interval); ``across_cpu_span``'s phrase otherwise, figures
    and all, since no one word is true of every model."""
    words = {page_verdict(found) for _, found in speedups}
    if len(speedups) > 1 and len(words) == 1 and (word := words.pop()) is not None and word.clear:
        return f"{word} on all {len(speedups)} CPU models"
    return across_cpu_span(speedups)


def _group_phrase(word: Verdict, group: list[tuple[str, Ratio]]) -> str:
    """The CPU models of one verdict in that verdict's words: a clear factor as its range over them
    (``across_cpu_models``), ``the same within X%`` with the widest X, ``inconclusive here``; on the
    one model named, or on how many."""
    where = f"on {group[0][0]}" if len(group) == 1 else f"on {len(group)} CPU models"
    if word.clear:
        return across_cpu_models(group) if len(group) > 1 else f"{format_speedup(group[0][1])} {where}"
    if word is Verdict.SAME:
        return max((format_speedup(found) for _, found in group),
                   key=lambda phrase: int(phrase.rsplit(" ", 1)[1].rstrip("%"))) + f" {where}"
    return f"{Verdict.INCONCLUSIVE} {where}"


# ------------------------------------------------------------ figures without a verdict


def percent_faster(value: float) -> str:
    """A speed-up of at least 1 as the percentage a source may quote it in ("47% faster"): the factor
    as a page prints it (``format_factor``), less 1, times 100, to a whole percent: 2.08× → ``108%``,
    so the percentage and the factor beside it agree."""
    if value < 1:
        raise ValueError(f"a speed-up below 1 ({value:.3g}) is no percentage faster: swap its two cases")
    return f"{round((_printed(value) - 1) * 100):,}%"


def speedup_by_value(value: float) -> str:
    """A speed-up (the slower time over the faster) by its value alone, as a factor of at least 1 and
    its word, for a figure set among others (the best and the worst of several): ``1.44× faster``."""
    if value >= 1:
        return f"{format_ratio(value)}{_NBSP}{Verdict.FASTER}"
    return f"{format_ratio(1 / value)}{_NBSP}{Verdict.SLOWER}"


def scale_mark(speedup: float) -> str:
    """A mark on a colour scale of speed-ups: ``2× faster``, ``4× slower``, ``the same`` at 1."""
    if speedup == 1:
        return str(Verdict.SAME)
    return f"{max(speedup, 1 / speedup):g}×{_NBSP}{Verdict.FASTER if speedup > 1 else Verdict.SLOWER}"


# What a chart or table calls every comparison whose interval holds 1.
NEITHER_VERDICT = f"{Verdict.SAME} or {Verdict.INCONCLUSIVE}"


def time_change(ratio: float) -> str:
    """A time against a reference time by value alone (a median of several such ratios):
    ``1.05× slower``, ``1.12× faster`` or ``1×``."""
    if ratio == 1:
        return "1×"
    return speedup_by_value(1 / ratio)


def time_with_interval(found: Estimate) -> str:
    """A derived time (a layer's cost, a fitted fixed cost) with its interval, in one unit:
    ``0.353 ms [0.330–0.380 ms]``; ``TOO_SMALL`` when the interval holds zero (never a negative
    cost). A difference whose whole interval lies below zero keeps its minus signs."""
    if found.holds_zero:
        return TOO_SMALL
    unit, scale = select_unit(max(abs(found.low), abs(found.high)))

    def signed(seconds: float) -> str:
        return ("−" if seconds < 0 else "") + format_significant(abs(seconds) / scale, 3)

    return f"{signed(found.value)}{_NBSP}{unit} [{signed(found.low)}–{signed(found.high)}{_NBSP}{unit}]"


def count_digits(found: Estimate, digits: int = 2) -> int:
    """The significant figures a derived count needs: one more while two of its value and ends that
    differ would print alike (``11.7 [11.5–11.8]``, never ``12 [11–12]`` or ``13 [13–13]``)."""
    values = (found.value, found.low, found.high)
    while digits < 4 and len({format_significant(value, digits) for value in values}) < len(set(values)):
        digits += 1
    return digits


def number_with_interval(found: Estimate, digits: int = 2) -> str:
    """A derived count (a break-even in ops or calls) with its interval: ``9.4 [8.1–11]``, with as
    many figures as ``count_digits`` says it needs (``13.2 [12.6–13.5]``, never ``13 [13–13]``)."""
    digits = count_digits(found, digits)
    return (f"{format_significant(found.value, digits)} "
            f"[{format_significant(found.low, digits)}–{format_significant(found.high, digits)}]")


def not_compared_across_cpus(here: str, there: str) -> str:
    """What an agreement check says of two files measured on different CPU models."""
    return f"not compared: measured on another CPU, {here} here, {there} there"


# ------------------------------------------------------------ memory over repeated calls

# A loop whose whole interval lies within this many bytes a call of zero is steady: 1 KiB a call is
# 1 GiB over a million calls, the scale of a long-running server's loop.
NO_GROWTH_BYTES_PER_CALL = 1024


class Growth(enum.Enum):
    """What an interval of bytes per call allows a page to say of a loop's resident memory: the four
    verdicts, for a rate."""

    GROWS = "grows"
    SHRINKS = "shrinks"
    STEADY = "steady"  # the whole interval lies within NO_GROWTH_BYTES_PER_CALL of zero
    INCONCLUSIVE = "inconclusive here"

    def __str__(self) -> str:
        return self.value


def growth_verdict(per_call: Estimate) -> Growth:
    """GROWS or SHRINKS only where the whole interval lies on one side of zero; STEADY where it lies
    within ``NO_GROWTH_BYTES_PER_CALL`` of zero; else INCONCLUSIVE."""
    if per_call.low > 0:
        return Growth.GROWS
    if per_call.high < 0:
        return Growth.SHRINKS
    if -NO_GROWTH_BYTES_PER_CALL < per_call.low and per_call.high < NO_GROWTH_BYTES_PER_CALL:
        return Growth.STEADY
    return Growth.INCONCLUSIVE


def signed_bytes(count: float, plus: bool = False) -> str:
    """``format_bytes`` with a minus sign (U+2212, not a hyphen) where the count is below zero: ``−12.0 KiB``;
    with ``plus``, a plus sign where it is above, for a change: ``+5.53 MiB``. A count that prints as zero
    takes no sign (not ``−0 B``)."""
    magnitude = format_bytes(abs(count))
    if magnitude.startswith("0"):
        return magnitude
    return ("−" if count < 0 else "+" if plus else "") + magnitude


def _steady_within(per_call: Estimate) -> str:
    """How close to zero a steady loop's interval lies: its farther end, ``207 B``."""
    return format_bytes(max(abs(per_call.low), abs(per_call.high)))


def format_growth(per_call: Estimate, per: str = "call") -> str:
    """A loop's growth as the verb of a sentence whose subject is its memory, with its interval:
    ``grows 12.3 KiB per call [10.1–14.5 KiB]``, ``stays steady within 207 B per call`` or ``grows or
    shrinks: inconclusive here (−3.0 KiB to 9.1 KiB per call)``; ``per`` names what one call is
    (``model``)."""
    found = growth_verdict(per_call)
    if found in (Growth.GROWS, Growth.SHRINKS):
        near, far = (per_call.low, per_call.high) if found is Growth.GROWS else (per_call.high, per_call.low)
        return (f"{found} {format_bytes(abs(per_call.value))} per{_NBSP}{per} "
                f"[{format_bytes(abs(near))}–{format_bytes(abs(far))}]")
    if found is Growth.STEADY:
        if per_call.low == per_call.high == 0:
            # "within 0 B" reads as a bug: say what it is.
            return f"stays {found}: it did not move in any reading"
        return f"stays {found} within {_steady_within(per_call)} per{_NBSP}{per}"
    return (f"{Growth.GROWS} or {Growth.SHRINKS}: {found} ({signed_bytes(per_call.low)} to "
            f"{signed_bytes(per_call.high)} per{_NBSP}{per})")


# What a growing loop's second half says when its interval can neither confirm nor rule out growth.
LEVELLING_UNCLEAR = "whether it levels off is inconclusive here"


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
    if late_verdict in (Growth.STEADY, Growth.SHRINKS) or late.high < whole.low:
        return "levels off"
    return LEVELLING_UNCLEAR


def growth_cell(per_call: Estimate) -> str:
    """A loop's growth per call for a table whose header says "per call": ``+12.3 KiB [10.1–14.5 KiB]``
    where it clearly grows (or shrinks), else ``steady within 207 B`` or ``inconclusive here (−3.0 KiB
    to 9.1 KiB)``."""
    found = growth_verdict(per_call)
    if found is Growth.GROWS:
        return f"+{format_bytes(per_call.value)} [{format_bytes(per_call.low)}–{format_bytes(per_call.high)}]"
    if found is Growth.SHRINKS:
        return f"−{format_bytes(-per_call.value)} [{format_bytes(-per_call.high)}–{format_bytes(-per_call.low)}]"
    if found is Growth.STEADY:
        return f"{found}: did not move" if per_call.low == per_call.high == 0 else \
            f"{found} within {_steady_within(per_call)}"
    return f"{found} ({signed_bytes(per_call.low)} to {signed_bytes(per_call.high)})"
