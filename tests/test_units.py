import pytest

from tfspeedlab.units import format_bytes, format_ratio, format_time, select_unit

NBSP = "\u00a0"  # what joins a number to its unit, so that a line never breaks between them


@pytest.mark.parametrize(
    "seconds, expected",
    [(3e-9, "3.00 ns"), (4.2e-4, "420 µs"), (0.0123, "12.3 ms"), (2.5, "2.50 s"), (1234.0, "1234 s")],
)
def test_format_time_picks_the_largest_unit_at_least_one(seconds, expected):
    assert format_time(seconds) == expected.replace(" ", NBSP)


def test_fixed_unit_for_a_column():
    assert format_time(0.003, select_unit(1e-4)) == f"3000{NBSP}µs"


@pytest.mark.parametrize("formatted", [format_time(4.2e-4), format_time(1.2e-7), format_bytes(800 * 2**20),
                                       format_bytes(512)])
def test_a_number_never_parts_from_its_unit(formatted):
    assert " " not in formatted and formatted.count(NBSP) == 1


def test_ratio():
    assert format_ratio(10.06) == "10.1×"
    assert format_ratio(0.314) == "0.314×"
