"""What every string and number read from a results tree must be, checked once where a file is loaded.

A results file, a failure record, a release's environment record and a saved diagnosis are all
read by the loaders in this package, and each hands its parsed JSON to ``document_problems`` before
anything else looks at it. A string reaches pages, charts, tables and terminal output, so it holds
no control character (a carriage return ends a Markdown code span as a line break would), no
invisible formatting character (a bidirectional override or a zero-width space makes a page show
other text than the file holds), no ``{{``/``}}`` (the site's directive delimiters: a page showing
one fails its build as an unrendered directive), and it has a length limit. A number is finite and
within a range wide enough for any measurement and narrow enough that a product, a ratio or a sum
of thousands of them stays finite. Fields with tighter ranges (times, bytes, counts) are checked by
their own loaders with ``Range``. Escaping where text meets a page stays as a second wall.

The writers of text that comes from the world outside the project (an exception's message, a
traceback) pass it through ``printable`` first, so that a real run never writes a file its loader
refuses: Keras progress bars print carriage returns, and tools colour their output with escapes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

# Characters in a label, a title, a parameter, an environment string, a metric's name.
MAX_TEXT = 300
# Characters in a sentence a program wrote: why a case could not run, a diagnosis's verdict.
MAX_PROSE = 4000
# Characters in a failure's message (a screenful) and in its traceback (kept, never shown).
MAX_FAILURE_TEXT = 4000
MAX_TRACEBACK_TEXT = 32_000

# Any number in a results tree lies within this size, or is 0: a product or a ratio of two stays
# finite (1e200), and so does a sum of many. Real figures are 1e-9 s to 1e5 s, bytes up to 1e13.
MAX_MAGNITUDE = 1e100
MIN_MAGNITUDE = 1e-100

# A line break in any of its spellings: Python's str.splitlines() and Python-Markdown break lines at these.
_LINE_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# C0 and C1 controls and DEL, line breaks and tab included (a field that may hold lines allows
# "\n" and "\t" alone: a carriage return is never allowed, it is written as "\n").
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Bidirectional embeddings, overrides, isolates and marks; zero-width spaces and joiners, the word
# joiner and the byte-order mark: each changes what a reader sees without showing itself.
# Characters that change how text reads without being seen: bidirectional controls (Arabic letter mark,
# LRM/RLM, embeddings, overrides, isolates) and those that take no width (zero-width space and joiners,
# word joiner and invisible operators, the byte-order mark, the Mongolian vowel separator, the soft
# hyphen). Refused here; written out where text reaches a page or a chart (render.hidden_characters).
INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_LINE_BREAK = re.compile(f"[{_LINE_BREAKS}]")
_DIRECTIVE_MARKS = ("{{", "}}")
# Between two braces of a pair, where ``printable`` puts a space.
_DOUBLED_BRACE = re.compile(r"(?<=\{)(?=\{)|(?<=\})(?=\})")
# A terminal colour or cursor escape (CSI or OSC), removed whole by ``printable``.
_TERMINAL_ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?)")


@dataclass(frozen=True)
class TextRule:
    """What one string field may hold: at most ``limit`` characters, on one line unless ``lines``."""

    limit: int = MAX_TEXT
    lines: bool = False


NAME = TextRule()
PROSE = TextRule(MAX_PROSE)
FAILURE_TEXT = TextRule(MAX_FAILURE_TEXT, lines=True)
TRACEBACK_TEXT = TextRule(MAX_TRACEBACK_TEXT, lines=True)


def text_problem(value: str, rule: TextRule = NAME) -> str | None:
    """What is wrong with ``value`` as a field of ``rule``, in words that never quote it; None if nothing."""
    if len(value) > rule.limit:
        return f"is {len(value):,} characters long; at most {rule.limit:,} are read"
    for found in _CONTROL.finditer(value):
        character, at = found[0], found.start() + 1
        if rule.lines and character in "\n\t":
            continue
        if character == "\r":
            return f"holds a carriage return at character {at}" + ("" if rule.lines else "; it must be one line")
        if character in _LINE_BREAKS:
            rest = "its lines must end in a line feed (U+000A) alone" if rule.lines else "it must be one line"
            return f"holds a line break ({_codepoint(character)}) at character {at}; {rest}"
        return f"holds the control character {_codepoint(character)} at character {at}"
    if (found := INVISIBLE.search(value)) is not None:
        return (f"holds the invisible formatting character {_codepoint(found[0])} (bidirectional or "
                f"zero-width) at character {found.start() + 1}")
    for mark in _DIRECTIVE_MARKS:
        if mark in value:
            return f"holds {mark!r} at character {value.index(mark) + 1}, which pages read as a directive"
    return None


def number_problem(value: int | float) -> str | None:
    """What is wrong with a JSON number anywhere in a results tree; None if nothing."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"is {value!r}; a number must be finite"
    size = abs(value)
    if size > MAX_MAGNITUDE or (size and size < MIN_MAGNITUDE):
        return (f"is {_short(value)}, out of the range a results tree holds "
                f"(0, or {MIN_MAGNITUDE:g} to {MAX_MAGNITUDE:g} in size)")
    return None


@dataclass(frozen=True)
class Range:
    """The values one numeric field may take: ``low`` to ``high`` (each end included unless
    ``open_low``), whole numbers only where ``whole``; ``unit`` names them in a refusal."""

    low: float
    high: float
    unit: str = ""
    whole: bool = False
    open_low: bool = False

    def problem(self, value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a number, found {type(value).__name__}"
        if isinstance(value, float) and not math.isfinite(value):
            return f"is {value!r}; it must be finite"
        if self.whole and not (isinstance(value, int) or value.is_integer()):
            return f"is {_short(value)}; it must be a whole number"
        below = value <= self.low if self.open_low else value < self.low
        if below or value > self.high:
            low = f"above {self.low:g}" if self.open_low else f"at least {self.low:g}"
            high = f" and at most {self.high:g}" if math.isfinite(self.high) else ""
            unit = f" {self.unit}" if self.unit else ""
            return f"is {_short(value)}; it must be {low}{high}{unit}"
        return None

    def holds_all(self, values: Iterable[Any]) -> bool:
        """Whether ``problem`` finds nothing wrong with any of ``values``, by a quick pass over thousands
        of samples; False is no verdict (a value of another type ``problem`` takes): ``problem`` names it."""
        if self.whole or not (math.isfinite(self.low) and math.isfinite(self.high)):
            return all(self.problem(value) is None for value in values)
        low, high = self.low, self.high  # finite: a NaN or an infinity fails the comparisons
        if self.open_low:
            return all((type(value) is float or type(value) is int) and low < value <= high for value in values)
        return all((type(value) is float or type(value) is int) and low <= value <= high for value in values)


# A time a file records: a call's time (per-call samples, a first call) or a phase of one. Nothing
# real takes a picosecond or eleven days; a value outside overflows or underflows a ratio of two.
SECONDS = Range(1e-12, 1e6, "s", open_low=True)
# Bytes of memory: a process's or a GPU's (an exbibyte is far above any machine), and a change of it.
MAX_BYTES = 2.0 ** 60
BYTES = Range(0, MAX_BYTES, "bytes")
SIGNED_BYTES = Range(-MAX_BYTES, MAX_BYTES, "bytes")
# Calls of a loop, blocks, whole counts.
MAX_COUNT = 1e12
CALLS = Range(1, MAX_COUNT, "calls", whole=True)
COUNT = Range(0, MAX_COUNT, whole=True)


# A field's path in a document, as the refusal names it: ("cases", 3, "label") → cases[3].label.
FieldPath = tuple[str | int, ...]
# Rules by field path; "*" matches any key of an object and any index of a list.
TextRules = Mapping[FieldPath, TextRule]


def document_problems(data: Any, rules: TextRules = {}, default: TextRule = NAME) -> Iterator[tuple[str, str]]:
    """Every string (object keys included) and number of a parsed JSON document that breaks its rule,
    as (field, problem), in document order. A string's rule is the one ``rules`` gives its path, else
    ``default``; an object's key is a name (``NAME``)."""
    if plainly_fine(data, min([NAME.limit, default.limit, *(rule.limit for rule in rules.values())])):
        return
    stack: list[tuple[FieldPath, Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if (problem := text_problem(value, _rule(path, rules, default))) is not None:
                yield field_name(path), problem
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, (int, float)):
            if (problem := number_problem(value)) is not None:
                yield field_name(path), problem
        elif isinstance(value, dict):
            children = []
            for key, item in value.items():
                if (problem := text_problem(key, NAME)) is not None:
                    yield field_name(path + (key,)), f"has a name that {problem}"
                children.append((path + (key,), item))
            stack.extend(reversed(children))
        elif isinstance(value, list):
            stack.extend(reversed([(path + (index,), item) for index, item in enumerate(value)]))


# Whatever ``text_problem`` refuses under any rule holds one of these (or is longer than the rule allows).
_SUSPECT = re.compile("|".join([_CONTROL.pattern, INVISIBLE.pattern, *map(re.escape, _DIRECTIVE_MARKS)]))


def plainly_fine(data: Any, limit: int) -> bool:
    """Whether ``document_problems`` would find nothing, by a quick pass: every string (keys included) at
    most ``limit`` long and free of anything any rule refuses, every number in range, nothing but JSON's
    types. False is no verdict: the full walk then names the field and its rule. A build reads a
    hundred results files of a hundred thousand numbers and strings, and the full walk took a third of
    their loading."""
    strings: list[str] = []
    numbers: list[int | float] = []
    stack = [data]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            strings.append(value)
        elif kind is dict:
            strings.extend(value)  # its keys (a key that is not a string fails the join below)
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
        elif kind is float or kind is int:
            numbers.append(value)
        elif value is not None and kind is not bool:
            return False
    try:
        # Joined by a space, which no refused character or mark holds: nothing is found across two strings.
        if strings and (max(map(len, strings)) > limit or _SUSPECT.search(" ".join(strings))):
            return False
    except TypeError:
        return False
    # As ``number_problem``: a NaN or an infinity fails both comparisons.
    return all(MIN_MAGNITUDE <= abs(number) <= MAX_MAGNITUDE or number == 0 for number in numbers)


def _rule(path: FieldPath, rules: TextRules, default: TextRule) -> TextRule:
    for pattern, rule in rules.items():
        if len(pattern) == len(path) and all(want == "*" or want == got for want, got in zip(pattern, path)):
            return rule
    return default


# Characters of a key a refusal shows (a case label is a key of ``unavailable``).
_KEY_SHOWN = 60


def field_name(path: FieldPath) -> str:
    """``cases[3].metrics.loss_end``: a field's path as a refusal names it (a key that is not plain
    text is shown escaped and cut, so that the refusal stays one readable line)."""
    name = ""
    for part in path:
        if isinstance(part, int):
            name += f"[{part}]"
        else:
            shown = part[:_KEY_SHOWN] if text_problem(part[:_KEY_SHOWN]) is None else _escaped(part[:_KEY_SHOWN])
            name += ("." if name else "") + shown + ("…" if len(part) > _KEY_SHOWN else "")
    return name or "<top level>"


def printable(value: str, rule: TextRule = NAME, keep: str = "head") -> str:
    """``value`` made into text its loader accepts under ``rule``, changed as little as can be: line
    breaks in any spelling become "\\n" (a space where the rule wants one line, as does a tab),
    terminal colour escapes go, any other control or invisible character is written out
    (``\\x00``, ``\\u202e``), a directive's delimiter is split (``{ {``), and it is cut to the
    rule's length, keeping its ``"head"`` or its ``"tail"`` (a traceback's last lines say the most)."""
    text = _TERMINAL_ESCAPE.sub("", value).replace("\r\n", "\n")
    text = _LINE_BREAK.sub("\n" if rule.lines else " ", text)
    if not rule.lines:
        text = text.replace("\t", " ")
    text = _CONTROL.sub(lambda found: found[0] if found[0] in "\n\t" else _escaped(found[0]), text)
    text = INVISIBLE.sub(lambda found: _escaped(found[0]), text)
    text = _DOUBLED_BRACE.sub(" ", text)
    if len(text) <= rule.limit:
        return text
    return text[:rule.limit - 1] + "…" if keep == "head" else "…" + text[len(text) - rule.limit + 1:]


def _escaped(character: str) -> str:
    """``\\x1b``, ``\\u202e``: a character as Python writes it in a string's source."""
    return ascii(character)[1:-1]


def _codepoint(character: str) -> str:
    return f"U+{ord(character):04X}"


def _short(value: int | float) -> str:
    """A number as a refusal shows it: an integer of a thousand digits is not one line."""
    return f"a whole number of {len(str(abs(value)))} digits" if isinstance(value, int) and abs(value) >= 10 ** 15 \
        else repr(value)
