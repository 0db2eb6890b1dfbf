import pytest

from tfspeedlab.units import format_ratio, format_time, select_unit


@pytest.mark.parametrize(
    "seconds, expected",
    [(3e-9, "3.00 ns"), (4.2e-4, "420 µs"), (0.0123, "12.3 ms"), (2.5, "2.50 s"), (1234.0, "1234 s")],
)
def test_format_time_picks_the_largest_unit_at_least_one(seconds, expected):
    assert format_time(seconds) == expected


def test_fixed_unit_for_a_column():
    assert format_time(0.003, select_unit(1e-4)) == "3000 µs"


def test_ratio():
    assert format_ratio(10.06) == "10.1×"
    assert format_ratio(0.314) == "0.314×"
