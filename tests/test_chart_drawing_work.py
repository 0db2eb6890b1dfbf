"""A chart is drawn with no work its SVG does not show: a laid-out figure drawn once, no pixels
rendered to measure its labels, no tick object past an axis's limits, a panel title placed once, no
empty axis label placed. Each saving keeps the drawing (``assert_same_drawing``: the same SVG but
for matplotlib's ids and its layout's last-digit noise)."""

import io
from pathlib import Path
from unittest import mock

import matplotlib.pyplot as plt
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from conftest import synthetic_results
from test_chart_themes import assert_same_drawing
from tfspeedlab.core.results.store import load_runner
from tfspeedlab.render import charts
from tfspeedlab.site import views

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def committed():
    return load_runner(REPO / "results" / "cpu")


def constrained_figure(theme: charts.Theme):
    """Two panels under a legend outside them, on log axes: what constrained layout places."""
    figure, panels = plt.subplots(2, 1, figsize=(charts.FIGURE_WIDTH_IN, 5), layout="constrained")
    for number, axes in enumerate(panels):
        axes.plot([1, 10, 100], [3e-3, 2e-2, 4e-1], label=f"line {number}", color=theme.lines[number])
        axes.set_yscale("log")
        axes.set_xscale("log")
        axes.set_ylim(2e-3, 5e-1)
        charts.plain_log_ticks(axes.yaxis)
        axes.set_title(f"panel {number}", loc="left")
    figure.legend(loc="outside upper left", ncols=2)
    return figure


def counted_draws(draw):
    """How often a figure was drawn (``Figure.draw``, by savefig or a canvas) while ``draw()`` ran, and its result."""
    with mock.patch.object(Figure, "draw", side_effect=Figure.draw, autospec=True) as figure_draws:
        found = draw()
    return figure_draws.call_count, found


def test_a_constrained_figure_is_drawn_once_and_laid_out_as_savefig_lays_it_out():
    theme = charts.THEMES["light"]
    with charts.chart_style(theme):
        draws, svg = counted_draws(lambda: charts.figure_svg(constrained_figure(theme)))
        figure = constrained_figure(theme)  # savefig's own way: a draw to lay it out, then the draw it saves
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", transparent=True, metadata={"Date": None})
        plt.close(figure)
    assert draws == 1
    assert_same_drawing(svg, buffer.getvalue())


@pytest.mark.parametrize("example", ["step_profile", "predict_ladder", "memory"])
def test_a_committed_laid_out_chart_is_drawn_once_and_never_rendered_to_pixels(committed, example):
    with mock.patch.object(FigureCanvasAgg, "draw", side_effect=AssertionError("rendered to pixels")):
        draws, svg = counted_draws(lambda: views.chart_svg(committed[example], "light"))
    assert draws == 1 and svg.startswith("<?xml")


def test_a_log_axis_makes_no_tick_object_past_its_limits_and_draws_the_same_ticks():
    theme = charts.THEMES["light"]
    with charts.chart_style(theme):
        figure = constrained_figure(theme)
        svg = charts.figure_svg(figure)
    for axes in figure.axes:
        low, high = axes.get_ylim()
        made = [tick.get_loc() for tick in axes.yaxis.get_minor_ticks(0) + axes.yaxis.minorTicks]
        assert made and all(low * 0.999 <= loc <= high * 1.001 for loc in made if loc), made
    with charts.chart_style(theme):  # every minor tick matplotlib's own locator draws, drawn
        figure = constrained_figure(theme)
        for axes in figure.axes:
            axes.yaxis.set_minor_locator(axes.yaxis.get_minor_locator().locator)
        assert_same_drawing(svg, charts.figure_svg(figure))


def test_a_panel_title_at_top_is_where_matplotlib_places_it_and_stays_there():
    theme = charts.THEMES["light"]
    drawn = {}
    for placed in (False, True):
        with charts.chart_style(theme):
            figure, axes = plt.subplots(figsize=(charts.FIGURE_WIDTH_IN, 3))
            axes.plot([1, 2], [3, 4])
            if placed:
                charts.panel_title_at_top(axes, "a panel · its title")
            else:
                axes.set_title("a panel · its title", loc="left")
            drawn[placed] = charts.figure_svg(figure)
    assert drawn[True] == drawn[False]
    # Placed once: a draw does not measure the axes to place it again.
    with charts.chart_style(theme):
        figure, axes = plt.subplots(figsize=(charts.FIGURE_WIDTH_IN, 3))
        charts.panel_title_at_top(axes, "a panel · its title")
        with mock.patch("matplotlib.axis.YAxis.get_tightbbox", side_effect=AssertionError("measured again")):
            charts.figure_svg(figure)


def test_a_bar_chart_does_not_measure_its_ticks_to_place_an_axis_label_it_has_not():
    # A bar panel has no y label (the names stand above the bars): nothing to place, so no measuring.
    with mock.patch("matplotlib.axis.YAxis._get_tick_boxes_siblings", side_effect=AssertionError("measured")):
        svg = views.chart_svg(synthetic_results(), "light")
    assert svg.startswith("<?xml")
