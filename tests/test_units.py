import pytest

from tfspeedlab.core.units import format_bytes, format_ratio, format_time, select_unit

NBSP = "\u00a0"  # what joins a number to its unit, so that a line never breaks between them


@pytest.mark.parametrize(
    "seconds, expected",
    [(3e-9, "3.00 ns"), (4.2e-4, "420 µs"), (0.0123, "12.3 ms"), (2.5, "2.50 s"), (1234.0, "1234 s")],
)
def test_format_time_picks_the_largest_unit_at_least_one(seconds, expected):
    assert format_time(seconds) == expected.replace(" ", NBSP)


@pytest.mark.parametrize("seconds, expected", [(9.997e-4, "1.00 ms"), (9.994e-4, "999 µs"), (0.99996, "1.00 s"),
                                               (9.9996e-7, "1.00 µs")])
def test_a_time_that_rounds_up_to_1000_moves_to_the_next_unit(seconds, expected):
    # The quick simulator table once printed "1000 µs" for 999.7 µs.
    assert format_time(seconds) == expected.replace(" ", NBSP)
    assert select_unit(seconds) == select_unit(float(expected.split()[0]) * {"ms": 1e-3, "s": 1.0, "µs": 1e-6}[expected.split()[1]])


def test_fixed_unit_for_a_column():
    assert format_time(0.003, select_unit(1e-4)) == f"3000{NBSP}µs"


@pytest.mark.parametrize("formatted", [format_time(4.2e-4), format_time(1.2e-7), format_bytes(800 * 2**20),
                                       format_bytes(512)])
def test_a_number_never_parts_from_its_unit(formatted):
    assert " " not in formatted and formatted.count(NBSP) == 1


def test_ratio():
    assert format_ratio(10.06) == "10.1×"
    assert format_ratio(0.314) == "0.314×"


def test_an_interval_past_a_thousand_groups_both_ends_alike():
    from tfspeedlab.core.wording import span
    assert span(16881.2, 20473.4) == "16,900–20,500×"
    # Three significant figures from a thousand up too: the interval's width is no finer.
    assert format_ratio(19012.4) == "19,000×"
    assert span(9.84, 10.44) == "9.84–10.4×"
