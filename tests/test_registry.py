"""The directive registry: typed parameters, names registered once, errors that say what is valid, a
handler's bug kept as a bug, and the contributors' list equal to the registry."""

import enum
import re
from dataclasses import replace
from typing import Literal

import markdown as python_markdown
import pytest

from conftest import REPO, synthetic_results
from tfspeedlab.core.results.schema import RUNNERS
from tfspeedlab.core.results.store import write_results
from tfspeedlab.render import registry
from tfspeedlab.render.context import Context
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import REGISTRY, directive
from tfspeedlab.site import directives, markdown_ext


def context(tmp_path, *files):
    return Context(results={"cpu": {f.example: f for f in files}, "gpu": {}}, results_root=tmp_path,
                   repo_url=None, page_uri="x.md")


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@pytest.fixture
def scratch():
    """Directives registered by a test, removed after it: the registry is the site's own."""
    before = dict(REGISTRY)
    yield
    REGISTRY.clear()
    REGISTRY.update(before)


def test_arguments_are_converted_by_their_annotations(scratch, tmp_path):
    seen = {}

    @directive("test_typed", "A test directive.")
    def typed(context, count: int, share: float, colour: Colour, mode: Literal["on", "off"], *,
              strict: bool = False) -> str:
        seen.update(count=count, share=share, colour=colour, mode=mode, strict=strict)
        return "ok"

    assert directives.render("test_typed", ["3", "0.5", "blue", "on", "strict=yes"], context(tmp_path)) == "ok"
    assert seen == {"count": 3, "share": 0.5, "colour": Colour.BLUE, "mode": "on", "strict": True}
    assert REGISTRY["test_typed"].usage == "{{ test_typed COUNT SHARE red|blue on|off [strict=true|false] }}"


@pytest.mark.parametrize("args, message", [
    (["three", "0.5", "red", "on"], "count: must be a whole number, got 'three'"),
    (["3", "half", "red", "on"], "share: must be a number, got 'half'"),
    (["3", "0.5", "green", "on"], "colour: must be one of red, blue, got 'green'"),
    (["3", "0.5", "red", "maybe"], "mode: must be one of on, off, got 'maybe'"),
    (["3", "0.5", "red", "on", "strict=perhaps"], "strict: must be true or false, got 'perhaps'"),
])
def test_a_value_that_does_not_convert_names_the_parameter_and_the_usage(scratch, tmp_path, args, message):
    @directive("test_typed", "A test directive.")
    def typed(context, count: int, share: float, colour: Colour, mode: Literal["on", "off"], *,
              strict: bool = False) -> str:
        return "never"

    with pytest.raises(DirectiveError, match=re.escape(message) + r"; usage: \{\{ test_typed COUNT"):
        directives.render("test_typed", args, context(tmp_path))


def test_a_name_is_registered_once(scratch, tmp_path):
    @directive("test_original", "A test directive.")
    def original(context) -> str:
        return "same"

    assert directives.render("test_original", [], context(tmp_path)) == "same"
    with pytest.raises(ValueError, match="'test_original' registered twice"):
        directive("test_original", "Another.")(lambda context: "")


def test_a_bug_in_a_handler_is_not_reported_as_a_typo(scratch, tmp_path):
    """Only a DirectiveError reads as a page's mistake; anything else keeps its traceback."""
    @directive("test_buggy", "A test directive.")
    def buggy(context) -> str:
        return len(None)  # a TypeError, as a handler's bug would raise

    with pytest.raises(TypeError):
        directives.render("test_buggy", [], context(tmp_path))
    with pytest.raises(TypeError):
        markdown_ext.expand_apart("{{ test_buggy }}", context(tmp_path))


def test_every_directive_has_a_summary_and_no_two_share_a_handler():
    for found in registry.directives():
        assert found.summary and found.summary.endswith((".", ")", "``")), found.name
    handlers = [found.handler for found in registry.directives()]
    assert len(handlers) == len(set(handlers))


def test_a_comparison_names_its_arguments_for_what_they_are():
    assert REGISTRY["factor"].usage == "{{ factor EXAMPLE SLOWER FASTER [runner=cpu|gpu] }}"


def test_the_contributors_list_is_the_registry():
    document = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert registry.with_catalogue(document) == document, \
        "regenerate it: python -m tfspeedlab.site.directives --write CONTRIBUTING.md"
    # Every directive once, under the package that registers it.
    listed = re.findall(r"^- `\{\{ (\w+)", document, flags=re.MULTILINE)
    assert sorted(listed) == [found.name for found in registry.directives()]
    sections = re.findall(r"^#### `([\w.]+)`\n\n((?:- .*\n)+)", document, flags=re.MULTILINE)
    assert {name: package for package, lines in sections for name in re.findall(r"^- `\{\{ (\w+)", lines, re.MULTILINE)} \
        == {found.name: registry.package_of(found) for found in registry.directives()}
    assert {"tfspeedlab.history", "tfspeedlab.site.directives"} <= set(dict(sections))


def test_the_extension_renders_directives_in_plain_python_markdown(tmp_path, monkeypatch):
    """No MkDocs at all: Python-Markdown with the extension, as another generator would run it."""
    for runner in RUNNERS:
        (tmp_path / runner).mkdir()
    results = replace(synthetic_results(example="small_ops"), quick=False)  # a full run: a missing case is a typo
    write_results(results, tmp_path)
    monkeypatch.setenv("TFSPEEDLAB_RESULTS", str(tmp_path))
    page = python_markdown.markdown("Graph mode is {{ factor small_ops eager graph }} faster.",
                                    extensions=["tfspeedlab.site.markdown_ext"])
    expected = directives.render("factor", ["small_ops", "eager", "graph"], context(tmp_path, results))
    assert page == f"<p>Graph mode is {expected} faster.</p>"
    with pytest.raises(markdown_ext.DirectiveBuildError, match=r"index\.md: '\{\{ factor small_ops eager xla \}\}': "
                                                                r"no case 'xla'"):
        python_markdown.markdown("{{ factor small_ops eager xla }}", extensions=["tfspeedlab.site.markdown_ext"])
    with pytest.raises(markdown_ext.DirectiveBuildError, match="holds '{{' outside a directive"):
        python_markdown.markdown("{{ Median small_ops eager }}", extensions=["tfspeedlab.site.markdown_ext"])
