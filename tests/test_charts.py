from conftest import synthetic_results
from tfspeedlab import charts
from tfspeedlab.measurement import Measurement
from tfspeedlab.results import CaseResult
from dataclasses import replace


def test_chart_has_caption_units_and_both_themes():
    results = synthetic_results()
    light = charts.time_per_call_svg(results, "light")
    dark = charts.time_per_call_svg(results, "dark")
    for svg in (light, dark):
        assert svg.lstrip().startswith("<?xml")
        assert "runner: cpu" in svg and "TensorFlow 2.99.0" in svg
        assert "time per call (ms" in svg
    assert charts.THEMES["light"].text in light and charts.THEMES["dark"].text in dark


def test_log_scale_only_when_the_spread_needs_it():
    narrow = synthetic_results()  # 10x spread
    assert "log scale" not in charts.time_per_call_svg(narrow, "light")
    slow = CaseResult("very slow", {}, Measurement((1.0, 1.0, 1.0), 1, 1.0, "test"))
    wide = replace(narrow, cases=narrow.cases + (slow,))
    assert "log scale" in charts.time_per_call_svg(wide, "light")
