"""A chart is drawn once, in the light theme, and recoloured for the dark one (a cold build's drawing
halved): the recoloured SVG must be the dark drawing itself, but for the ids matplotlib derives from
colours, and a chart whose colours might depend on the theme must be drawn in each."""

import functools
import re
from pathlib import Path

import pytest

from conftest import synthetic_results
from tfspeedlab.core.results.store import load_runner
from tfspeedlab.render import charts
from tfspeedlab.site import views

REPO = Path(__file__).resolve().parents[1]


def ids_numbered(svg: str) -> str:
    """The SVG with each element id replaced by its order of appearance: matplotlib names a marker
    or a clip path by a digest of its style, colour included."""
    for index, name in enumerate(dict.fromkeys(re.findall(r'\bid="([^"]+)"', svg))):
        svg = re.sub(rf'(?<=["#]){re.escape(name)}(?=["\)])', f"id{index}", svg)
    return svg


NUMBER = re.compile(r"-?\d+\.\d+")


def assert_same_drawing(found: str, drawn: str, name: str = "") -> None:
    """The two SVGs alike but for their ids and for coordinates within 0.001 px: matplotlib's layout
    is not exact from one drawing to the next (keras_backends' chart, drawn twice in one theme, put
    a label at 1187.075073 and at 1187.075072)."""
    found, drawn = ids_numbered(found), ids_numbered(drawn)
    assert NUMBER.split(found) == NUMBER.split(drawn), name
    pairs = zip(map(float, NUMBER.findall(found)), map(float, NUMBER.findall(drawn)))
    assert all(abs(a - b) <= 1e-3 for a, b in pairs), name


def test_a_bar_chart_recoloured_is_its_dark_drawing():
    results = synthetic_results()
    light = views.chart_svg(results, "light")
    dark = views.chart_svg(results, "dark")
    recoloured = charts.recoloured(light, "dark")
    assert recoloured is not None and recoloured != light
    assert_same_drawing(recoloured, dark)


def test_every_committed_chart_recoloured_is_its_dark_drawing_or_is_drawn_again():
    committed = load_runner(REPO / "results" / "cpu")
    recoloured = 0
    for example, results in committed.items():
        light = views.chart_svg(results, "light")
        found = charts.recoloured(light, "dark")
        if found is not None:
            assert_same_drawing(found, views.chart_svg(results, "dark"), example)
            recoloured += 1
    assert recoloured >= len(committed) - 3  # all but the colour-map charts (cpu_settings' grid)


@pytest.mark.parametrize("change", [
    lambda svg: svg.replace("</svg>", '<image width="1" height="1" xlink:href="data:image/png;base64,AAAA"/></svg>'),
    lambda svg: svg.replace("fill: #1f2328", "fill: #cbace8", 1),  # a colour map's shade: no theme's colour
    lambda svg: svg.replace("</svg>", '<text x="0" y="0">#c2410c</text></svg>'),  # a colour outside a fill
])
def test_a_chart_with_a_colour_no_theme_names_is_not_recoloured(change):
    light = views.chart_svg(synthetic_results(), "light")
    assert charts.recoloured(light, "dark") is not None
    assert charts.recoloured(change(light), "dark") is None


def test_drawn_in_themes_draws_once_where_it_can_recolour_and_in_each_theme_where_not():
    asked = []

    def draw(results, theme_name, shaded=False):
        asked.append(theme_name)
        svg = views.chart_svg(results, theme_name)
        return svg.replace("</svg>", "<image/></svg>") if shaded else svg

    drawn = charts.drawn_in_themes(draw, (synthetic_results(),))
    assert asked == ["light"] and set(drawn) == set(charts.THEMES)
    asked.clear()
    shaded = charts.drawn_in_themes(functools.partial(draw, shaded=True), (synthetic_results(),))
    assert asked == ["light", "dark"]
    assert shaded["dark"] == views.chart_svg(synthetic_results(), "dark").replace("</svg>", "<image/></svg>")
