"""The shapes a 95% interval takes in a page's text, and the words that explain each one in a tooltip.

The wording module (``tfspeedlab.core.wording``) writes every interval; this module only
recognises what it wrote, so that the tooltips (``site.tooltips``) and the tests of the built site
find the same intervals. It matches the current phrases and the four verdicts that replace them:

* a bracket after a figure: ``[9.78–12.0×]``, ``[0.330–0.380 ms]``, ``[10.1 KiB–14.5 KiB]``,
  ``[8.1–11]`` (a count), either end signed (``−3.0``);
* a factor interval that holds 1×: ``(1.25× slower to 1.10× faster)``, after "inconclusive here"
  or an older phrase, its parentheses included when they enclose it alone;
* ``the same within 3%``;
* a growth interval that holds zero: ``(−3.0 KiB to 9.1 KiB per call)``;
* ``steady within 200 B per call``.

Between a number and its unit, or a factor and its word, the wording module puts a non-breaking
space; a page may break a line there. Every gap below takes any whitespace, the non-breaking
space included.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tfspeedlab.core.wording import Verdict

# Where to read about intervals: the heading on the fair-timing page every first interval links to.
NOTE_PAGE = "fair-timing.md"
NOTE_ANCHOR = "how-to-read-an-interval"

# The tooltips, one per shape. Each agrees with the method the fair-timing page states: the
# interval is a 95% one, widened by the machine's drift between sittings, and most re-measures
# (about 83%, the page's figure) land inside it; a word is said only where the whole interval does.
FACTOR_TITLE = ("95% interval: the range this machine's factor lies in, with 95% confidence; most re-measures "
                f"here land inside it. {str(Verdict.FASTER).capitalize()} or {Verdict.SLOWER} is said only when "
                "all of it lies on one side of 1×.")
AMOUNT_TITLE = ("95% interval over this sitting's processes. Times and costs drift between days more "
                "than factors do: a re-measure on another day can land outside it.")
INCONCLUSIVE_TITLE = ("95% interval that holds 1×: this machine could not tell which is faster, so a re-measure "
                      "could read either way.")
SAME_WITHIN_TITLE = ("The whole 95% interval lies within this many percent of 1×: any difference is smaller than "
                     "that on this machine.")
GROWTH_UNCLEAR_TITLE = ("95% interval of the memory growth. It holds zero, so this machine could not tell whether "
                        "memory grows.")
STEADY_WITHIN_TITLE = "The whole 95% interval of the memory growth lies within this much of zero."

_GAP = r"[\s\u00a0\u202f]*"  # no space, a space, a line break or a non-breaking space
_SPACE = r"[\s\u00a0\u202f]+"
_NUMBER = r"[−-]?\d[\d,]*(?:\.\d+)?"  # 12, 1.05, 16,200, −3.0 (the wording module's minus is U+2212)
_NEGATIVE_OR_ZERO = r"(?:[−-]\d[\d,]*(?:\.\d+)?|0)"
_BYTES = r"(?:B|KiB|MiB|GiB)"
_TIME = r"(?:ns|µs|μs|ms|s)"  # the micro sign (U+00B5) and the Greek mu alike
_AMOUNT_UNIT = rf"(?:%|{_TIME}|{_BYTES})"  # a factor's × is the factor bracket's
_PER = rf"(?:{_SPACE}per{_SPACE}[a-z]+)?"


class Family(enum.Enum):
    """What an interval is of: a factor between two times, or an amount (a time, a size, a count)."""

    FACTOR = "factor"
    AMOUNT = "amount"


@dataclass(frozen=True)
class Form:
    name: str
    pattern: re.Pattern
    title: str
    family: Family


FORMS: tuple[Form, ...] = (
    Form("factor bracket",
         re.compile(rf"\[{_GAP}{_NUMBER}{_GAP}×?{_GAP}–{_GAP}{_NUMBER}{_GAP}×{_GAP}\]"),
         FACTOR_TITLE, Family.FACTOR),
    Form("amount bracket",
         re.compile(rf"\[{_GAP}{_NUMBER}(?:{_GAP}{_AMOUNT_UNIT})?{_GAP}–{_GAP}{_NUMBER}(?:{_GAP}{_AMOUNT_UNIT})?{_GAP}\]"),
         AMOUNT_TITLE, Family.AMOUNT),
    Form("range holding 1×",
         re.compile(rf"(?P<open>\({_GAP})?{_NUMBER}{_GAP}×{_SPACE}{Verdict.SLOWER}{_SPACE}to{_SPACE}"
                    rf"{_NUMBER}{_GAP}×{_SPACE}{Verdict.FASTER}(?(open){_GAP}\))"),
         INCONCLUSIVE_TITLE, Family.FACTOR),
    Form("within a percentage",
         re.compile(rf"\b[Tt]he{_SPACE}same{_SPACE}within{_SPACE}{_NUMBER}{_GAP}%"),
         SAME_WITHIN_TITLE, Family.FACTOR),
    Form("growth that holds zero",
         re.compile(rf"(?P<open>\({_GAP})?{_NEGATIVE_OR_ZERO}{_GAP}{_BYTES}{_SPACE}to{_SPACE}{_NUMBER}{_GAP}{_BYTES}"
                    rf"{_PER}(?(open){_GAP}\))"),
         GROWTH_UNCLEAR_TITLE, Family.AMOUNT),
    Form("steady within",
         re.compile(rf"\b[Ss]teady{_SPACE}within{_SPACE}{_NUMBER}{_GAP}{_BYTES}{_PER}"),
         STEADY_WITHIN_TITLE, Family.AMOUNT),
)

@dataclass(frozen=True)
class Found:
    """One interval in a text: where it is, what it reads, and its form."""

    start: int
    end: int
    text: str
    form: Form


def find_intervals(text: str) -> Iterator[Found]:
    """Every interval in ``text``, left to right; where two would overlap, the one that starts first
    (or, starting together, comes first in ``FORMS``)."""
    found = sorted((Found(match.start(), match.end(), match.group(0), form)
                    for form in FORMS for match in form.pattern.finditer(text)),
                   key=lambda one: (one.start, FORMS.index(one.form)))
    end = 0
    for one in found:
        if one.start >= end:
            yield one
            end = one.end


def column_title(families: set[Family]) -> str:
    """The header's tooltip of a table column holding intervals of these families: a factor column's
    where any cell holds a factor (its other cells then say the same or inconclusive)."""
    return FACTOR_TITLE if Family.FACTOR in families else AMOUNT_TITLE
