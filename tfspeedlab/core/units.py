"""One place that picks the unit for every human-facing time (as torch's ``select_unit``), ratio and size."""

from __future__ import annotations

import math

# (unit name, seconds per unit), smallest first. A time is shown in the largest
# unit in which it is at least 1, so 0.00042 s reads "420 µs", never "0.42 ms".
_UNITS: tuple[tuple[str, float], ...] = (("ns", 1e-9), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0))

# Between a number and its unit: a non-breaking space, so that a narrow table
# column or a phone's line never leaves "5593" on one line and "µs" on the next.
UNIT_SPACE = "\u00a0"


def select_unit(seconds: float, digits: int = 3) -> tuple[str, float]:
    """Return ``(unit, scale)`` such that ``seconds / scale``, printed to ``digits``
    significant figures, lies in [1, 1000): 999.7 µs rounds to 1000, so it gets ms."""
    printed = _rounded(seconds, digits)
    chosen = _UNITS[0]
    for unit in _UNITS:
        if abs(printed) >= unit[1]:
            chosen = unit
    return chosen


def format_time(seconds: float, unit: tuple[str, float] | None = None, digits: int = 3) -> str:
    """Format with ``digits`` significant figures, in ``unit`` or the best unit for it."""
    name, scale = unit or select_unit(seconds, digits)
    return f"{format_significant(seconds / scale, digits)}{UNIT_SPACE}{name}"


def _rounded(value: float, digits: int) -> float:
    """``value`` rounded to ``digits`` significant figures (0 stays 0)."""
    if value == 0:
        return 0.0
    return float(f"{value:.{digits - 1}e}")


def format_significant(value: float, digits: int = 3) -> str:
    """``12.3``, ``1.23``, ``123``, ``1234`` — significant figures without exponent notation."""
    if value == 0:
        return "0"
    # Digits are counted on the rounded value: 0.9997 reads "1.00", not "1.000".
    rounded = _rounded(value, digits)
    magnitude = len(str(int(abs(rounded)))) if abs(rounded) >= 1 else 0
    decimals = max(digits - magnitude, 0)
    return f"{value:.{decimals}f}"


def format_ratio(ratio: float) -> str:
    """A speed-up or slow-down factor: ``12.3×``, ``1.05×``, ``0.31×``; ``16,200×`` from a thousand up."""
    return f"{format_factor(ratio)}×"


def format_factor(ratio: float) -> str:
    """A factor's number without its sign, three significant figures: ``12.3``, ``1.05``; ``16,200``
    from a thousand up, with its thousands separated (more digits than three would claim a precision
    no interval of these has: ``16,900–20,500×``)."""
    if abs(ratio) >= 1000:
        return f"{round(ratio, 2 - int(math.floor(math.log10(abs(ratio))))):,.0f}"
    return format_significant(ratio, 3)


def format_bytes(count: float) -> str:
    """Binary units, three significant figures: ``763 MiB``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(count) >= size:
            return f"{format_significant(count / size, 3)}{UNIT_SPACE}{unit}"
    return f"{int(count)}{UNIT_SPACE}B"
