"""The speed simulator in a real browser: Debian's Chromium, driven by Playwright.

Its fixtures ``browser`` and ``site_url`` (the site built from the quick results) are in tests/conftest.py,
shared with the layout test of every page.
"""

import pytest

from tfspeedlab.core.results.store import load_runner
from tfspeedlab.core.stats import cost_model


@pytest.fixture(scope="module")
def fitted(quick_results):
    return cost_model.fit(load_runner(quick_results / "cpu"), "cpu")


def open_simulator(browser, url, scheme="light", width=1280):
    page = browser.new_page(color_scheme=scheme, viewport={"width": width, "height": 1800})
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url + "/simulator/")
    page.wait_for_selector('.tfsl-simulator[data-ready="yes"]', timeout=20_000)
    return page, errors


def value(page, name):
    return float(page.get_attribute(f'output[name="{name}"]', "data-value"))


def inputs(page):
    return tuple(int(page.input_value(f'input[name="{name}"]')) for name in ("ops", "side", "calls"))


def assert_matches_model(page, fitted):
    ops, side, calls = inputs(page)
    elements = side * side
    for mode in cost_model.MODES:
        assert value(page, f"per_call_{mode}") == pytest.approx(fitted.per_call(mode, ops, elements), rel=1e-9)
        assert value(page, f"total_{mode}") == pytest.approx(fitted.total(mode, ops, elements, calls), rel=1e-9)
        # Each prediction shows how far it can miss: the model's worst miss, as "±N%", or as a factor
        # from 100% on ("±311%" read as a time that could be negative).
        assert value(page, f"band_per_call_{mode}") == pytest.approx(fitted.band[mode], rel=1e-9)
        assert value(page, f"band_total_{mode}") == pytest.approx(fitted.total_band(mode, ops, elements, calls), rel=1e-9)
        shown = page.inner_text(f'output[name="band_per_call_{mode}"]')
        band = fitted.band[mode]
        assert shown == (f"up to {1 + band:.1f}× off" if band >= 1 else f"±{round(band * 100)}%")
    break_even = fitted.break_even_ops(elements)
    if break_even is not None:
        assert value(page, "break_even") == pytest.approx(break_even, rel=1e-9)


def test_simulator_follows_keyboard_and_mouse_and_matches_the_python_model(browser, site_url, fitted, tmp_path):
    page, errors = open_simulator(browser, site_url)
    assert_matches_model(page, fitted)
    before = value(page, "per_call_eager")

    # Keyboard: type a new op count into the number box.
    page.focus('input[name="ops"]')
    page.keyboard.press("Control+A")
    page.keyboard.type("40")
    assert inputs(page)[0] == 40
    assert value(page, "per_call_eager") != before
    assert_matches_model(page, fitted)

    # Keyboard: arrow keys on the tensor-size slider.
    side_before = inputs(page)[1]
    page.focus('input[name="side_range"]')
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert inputs(page)[1] == side_before + 5
    assert_matches_model(page, fitted)

    # Mouse: click far along the op-count slider.
    box = page.locator('input[name="ops_range"]').bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.8, box["y"] + box["height"] / 2)
    assert inputs(page)[0] > 500
    assert_matches_model(page, fitted)

    # Keyboard into the calls box, with Tab from the slider before it.
    page.focus('input[name="calls"]')
    page.keyboard.press("Control+A")
    page.keyboard.type("7")
    assert inputs(page)[2] == 7
    assert_matches_model(page, fitted)
    assert page.locator("svg path.series").count() == 3

    page.screenshot(path=str(tmp_path / "simulator-light.png"), full_page=True)
    assert errors == []


def test_simulator_in_dark_scheme_and_after_instant_navigation(browser, site_url, fitted, tmp_path):
    page, errors = open_simulator(browser, site_url, scheme="dark")
    assert page.get_attribute("body", "data-md-color-scheme") == "slate"
    page.screenshot(path=str(tmp_path / "simulator-dark.png"), full_page=True)
    # Leave through the navigation (Material swaps the page without a reload), then come back.
    # Material's instant navigation rewrites links to absolute URLs; find them by text.
    page.locator("nav.md-nav--primary a.md-nav__link", has_text="Home").first.click()
    page.wait_for_url(site_url + "/")
    page.locator("nav.md-nav--primary a.md-nav__link", has_text="Speed simulator").first.click()
    page.wait_for_url(site_url + "/simulator/")
    page.wait_for_selector('.tfsl-simulator[data-ready="yes"]', timeout=20_000)
    assert_matches_model(page, fitted)
    assert errors == []


def test_presets_without_measurements_are_disabled(browser, site_url):
    page, errors = open_simulator(browser, site_url)
    gpu = page.locator('select[name="runner"] option[value="gpu"]')
    assert gpu.is_disabled() and "not yet measured" in gpu.inner_text()
    assert errors == []


def set_inputs(page, ops, side, calls):
    for name, number in (("ops", ops), ("side", side), ("calls", calls)):
        page.fill(f'input[name="{name}"]', str(number))
    assert inputs(page) == (ops, side, calls)


def boxes(page, selector):
    return [(element.text_content(), element.bounding_box()) for element in page.locator(selector).all()]


def overlap(a, b):
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


# The default inputs, then ones that bring two modes' totals close together at the right edge of the chart
# (graph and XLA with few ops; all three with one op and one call) or put the marker at either end.
CHART_INPUTS = [None, (1, 1, 1), (3, 10, 2), (40, 256, 7), (1000, 1000, 100_000), (150, 10, 100_000_000)]


@pytest.mark.parametrize("width", [1280, 390])
def test_chart_names_its_axes_and_marker_and_its_labels_never_overlap(browser, site_url, fitted, width):
    page, errors = open_simulator(browser, site_url, width=width)
    for chosen in CHART_INPUTS:
        if chosen is not None:
            set_inputs(page, *chosen)
        calls = inputs(page)[2]
        titles = [text for text, _ in boxes(page, "svg text.axis-title")]
        assert any("total time" in text for text in titles) and any("number of calls" in text for text in titles)
        labels = boxes(page, "svg text.legend") + boxes(page, "svg text.marker-label")
        assert sorted(text for text, _ in labels[:3]) == sorted(cost_model.MODES)
        assert f"{calls:,}" in labels[3][0], labels[3]
        assert page.locator("svg line.marker").count() == 1
        svg = page.locator(".tfsl-simulator svg").bounding_box()
        for i, (text, box) in enumerate(labels):
            # Inside the chart, and clear of every other label.
            assert svg["x"] - 0.5 <= box["x"] and box["x"] + box["width"] <= svg["x"] + svg["width"] + 0.5, (chosen, text)
            for other, other_box in labels[i + 1:]:
                assert not overlap(box, other_box), (chosen, text, other, box, other_box)
        assert_matches_model(page, fitted)
    assert errors == []


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_simulator_fits_the_screen_without_sideways_scrolling(browser, site_url, width, scheme, tmp_path):
    page, errors = open_simulator(browser, site_url, scheme=scheme, width=width)
    for chosen in (None, (100_000, 20_000, 100_000_000)):  # the widest numbers the inputs accept
        if chosen is not None:
            set_inputs(page, *chosen)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for part in page.locator(".tfsl-simulator :is(input, select, output, table, svg, label)").all():
            box = part.bounding_box()
            if box is not None:  # an empty output has no box
                assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, part.evaluate("e => e.outerHTML")
    page.screenshot(path=str(tmp_path / f"simulator-{width}-{scheme}.png"), full_page=True)
    assert errors == []



def test_speed_ups_read_as_factors_with_their_word(browser, site_url):
    page, errors = open_simulator(browser, site_url)
    for name in ("speedup_graph", "speedup_xla"):
        shown = page.inner_text(f'output[name="{name}"]')
        factor = float(shown.split("×")[0])
        assert factor >= 1 and shown.endswith(("faster than eager", "slower than eager")), shown
    page.close()
    assert errors == []


def test_the_readers_own_call_and_op_costs_drive_every_figure(browser, site_url, fitted):
    page, errors = open_simulator(browser, site_url)
    # The boxes start at the runner's fitted costs, and the figures are the fitted model's.
    assert float(page.input_value('input[name="call_us"]')) == pytest.approx(fitted.modes["graph"].call_s * 1e6, rel=5e-3)
    assert float(page.input_value('input[name="op_us"]')) == pytest.approx(fitted.modes["eager"].op_s * 1e6, rel=5e-3)
    assert_matches_model(page, fitted)
    # One cost of the reader's own: the other stays the fitted one (XLA keeps its own call cost).
    page.fill('input[name="op_us"]', "25")
    assert_matches_model(page, fitted.with_reader_costs(graph_call_s=None, eager_op_s=25e-6))
    page.fill('input[name="call_us"]', "40")
    own = fitted.with_reader_costs(graph_call_s=40e-6, eager_op_s=25e-6)
    assert_matches_model(page, own)
    assert value(page, "payback") == pytest.approx(own.payback_calls(*inputs(page)[:1], inputs(page)[1] ** 2), rel=1e-9)
    page.fill('input[name="call_us"]', "0")
    assert "fixed cost must be a number of µs above 0" in page.inner_text(".tfsl-simulator .tfsl-status")
    page.close()
    assert errors == []
