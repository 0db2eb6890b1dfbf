"""The site beyond one generator: ProperDocs builds the same pages as MkDocs, and no page is ever
published with a directive left unrendered, whatever (or whoever) skipped it."""

import os
import shutil
import subprocess
import sys
import textwrap
import urllib.parse
from html.parser import HTMLParser

import pytest

from conftest import REPO
from tfspeedlab.site import unrendered
from tfspeedlab.site.built_pages import article_lines, pages


@pytest.mark.slow
def test_properdocs_builds_every_page_with_the_same_text_and_figures(committed_site, tmp_path):
    site = tmp_path / "site"
    completed = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", str(site)],
        cwd=REPO, capture_output=True, text=True, timeout=900,
        env={**os.environ, "TFSPEEDLAB_RESULTS": str(REPO / "results"), "NO_MKDOCS_2_WARNING": "1"})
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert pages(site) == pages(committed_site)
    differing = [page for page in pages(site) if article_lines(site / page) != article_lines(committed_site / page)]
    assert not differing, f"ProperDocs and MkDocs differ on {differing}"
    assert unrendered.check_site(site) == []


def test_the_check_finds_a_directive_left_in_text_or_an_attribute_but_not_in_code(tmp_path):
    assert unrendered.first_unrendered("<p>Eager takes {{ median small_ops eager }} per call.</p>")
    assert unrendered.first_unrendered('<img alt="{{ median small_ops eager }}" src="x.svg">')
    assert unrendered.first_unrendered("<p>a lost brace }} here</p>")
    assert unrendered.first_unrendered("<pre><code>{{ median small_ops eager }}</code></pre>"
                                       "<p>Write <code>{{ name args }}</code>.</p><script>x = '{{'</script>") is None
    # A notebook cell's source, kept plain for its copy button, is code; the text after it is not.
    copy_of_cell = '<div class="clipboard-copy-txt" id="cell-5">params={"a": {"b": 1}}</div>'
    assert unrendered.first_unrendered(copy_of_cell) is None
    assert unrendered.first_unrendered(copy_of_cell + "<p>{{ median small_ops eager }}</p>")
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "index.html").write_text("<p>fine</p>")
    (tmp_path / "index.html").write_text("<article><p>{{ median small_ops eager }}</p></article>")
    assert unrendered.check_site(tmp_path) == [
        "index.html: an unrendered directive in the built page: '{{ median small_ops eager }}'"]
    assert unrendered.main([str(tmp_path)]) == 1 and unrendered.main([str(tmp_path / "ok")]) == 0


def _tiny_site(tmp_path, extensions: str):
    """A one-page site with the tfspeedlab plugin, its Markdown extensions as given, built from the
    committed results of one example."""
    results = tmp_path / "results"
    (results / "gpu").mkdir(parents=True)
    (results / "cpu").mkdir()
    shutil.copy(REPO / "results" / "cpu" / "small_ops.json", results / "cpu")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Page\n\nEager: {{ time small_ops eager }} per call.\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: tiny\nstrict: true\nplugins:\n  - tfspeedlab\n"
                                         "markdown_extensions:\n" + textwrap.indent(extensions, "  ") + "\n")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TFSPEEDLAB_RESULTS": str(results),
                               "TFSPEEDLAB_CACHE": str(tmp_path / "cache"), "NO_MKDOCS_2_WARNING": "1"})


def test_a_build_that_skips_the_extension_fails_instead_of_publishing_a_bare_directive(tmp_path):
    skipped = _tiny_site(tmp_path / "without", "- admonition")
    assert skipped.returncode != 0
    assert "index.md: an unrendered directive in the built page: " \
           "'Eager: {{ time small_ops eager }} per call.'" in skipped.stderr
    rendered = _tiny_site(tmp_path / "with", "- admonition\n- tfspeedlab.site.markdown_ext")
    assert rendered.returncode == 0, rendered.stderr[-3000:]
    assert "{{" not in (tmp_path / "with" / "site" / "index.html").read_text()


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.found.append(value)


@pytest.mark.slow
def test_the_site_works_at_any_base_path(tmp_path):
    """Built for another base path, no page links to an absolute path, and every relative link
    lands on a file the build wrote (MkDocs' own 404 page is absolute by design, and left out)."""
    root = tmp_path / "checkout"
    root.mkdir()
    for name in ("docs", "overrides", "notebooks", "snippets", "examples", "results", "tfspeedlab"):
        (root / name).symlink_to(REPO / name)
    config = (REPO / "mkdocs.yml").read_text().replace("site_url: https://tfspeedlab.github.io/tfspeedlab/",
                                                      "site_url: https://example.org/another/path/")
    assert "example.org/another/path" in config
    (root / "mkdocs.yml").write_text(config)
    site = tmp_path / "site"
    completed = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=root,
                               capture_output=True, text=True, timeout=900,
                               env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "TFSPEEDLAB_RESULTS": str(REPO / "results")})
    assert completed.returncode == 0, completed.stderr[-3000:]
    absolute, broken = [], []
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html":
            continue
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.found:
            if link.startswith(("http://", "https://", "mailto:", "data:", "#", "javascript:")):
                continue
            if link.startswith("/"):
                absolute.append(f"{page.relative_to(site)}: {link}")
                continue
            target = (page.parent / urllib.parse.unquote(link.split("#")[0].split("?")[0])).resolve()
            if link.split("#")[0] and not (target.exists() or (target / "index.html").exists()):
                broken.append(f"{page.relative_to(site)}: {link}")
    assert not absolute, absolute[:10]
    assert not broken, broken[:10]


def test_a_mark_in_a_script_or_style_is_no_directive_but_one_after_it_is():
    """The shortcut past <script> and <style> blocks (most pages hold a mark in one) still sees a
    mark in the page's text, also one after a block or in an attribute of a later element."""
    script = '<script>var x = {a: {b: 1}}; if (y) {{z}}</script><style>a{{color:red}}</style>'
    assert unrendered.first_unrendered(f"<p>text</p>{script}") is None
    assert unrendered.first_unrendered(f"{script}<p>{{{{ median small_ops eager }}}}</p>")
    assert unrendered.first_unrendered(f'{script}<img alt="}}}}" src="x.svg">')
    assert unrendered.first_unrendered(f"<SCRIPT type='module'>{{{{</SCRIPT><p>}}}}</p>")
