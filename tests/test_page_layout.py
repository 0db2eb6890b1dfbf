"""Every page of the nav fits a phone (390 px) and a laptop (1280 px), in a real browser, light and dark.

At both widths: the page never scrolls sideways, code in a table is never
broken inside a word, and a number is never split from its unit. A table
wider than a phone scrolls inside its own box; at a laptop's width every
column of every table is in view. Chart text, scaled down with its chart,
stays at least 10 px on a phone.
"""

from pathlib import Path

import pytest
import yaml

from conftest import REPO

PHONE, LAPTOP = 390, 1280
SCHEMES = ("light", "dark")
# Below this a reader needs to zoom in to read a chart on a phone.
MIN_CHART_TEXT_PX = 10.0


def nav_paths() -> list[str]:
    """The URL path of every page in mkdocs.yml's nav: ``index.md`` → ``/``, ``x.ipynb`` → ``/x/``."""
    class NavLoader(yaml.SafeLoader):
        pass
    # mkdocs.yml holds MkDocs' own tags (!relative); the nav needs none of them.
    NavLoader.add_multi_constructor("!", lambda loader, suffix, node: None)
    config = yaml.load((REPO / "mkdocs.yml").read_text(), Loader=NavLoader)

    def sources(entries):
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from (sources(value) if isinstance(value, list) else [value])

    paths = []
    for source in sources(config["nav"]):
        page = Path(source).with_suffix("")
        paths.append("/" if page.name == "index" else f"/{page.as_posix()}/")
    return paths


NAV_PATHS = nav_paths()
# Every page of the site: the nav's, and each notebook's page (linked from its guide page, not the nav).
PATHS = NAV_PATHS + [f"/notebooks/{notebook.stem}/" for notebook in sorted((REPO / "notebooks").glob("*.ipynb"))]
# A nav a reader can take in: the guide's pages grouped by question, no second copy as notebooks.
MAX_NAV_LINKS = 30
def _cases():
    for width in (PHONE, LAPTOP):
        for path in PATHS:
            yield pytest.param(width, path, id=f"{width}px-{path.strip('/') or 'home'}")


# The path of every page the rendered navigation links to.
NAV_LINKS = """() => [...new Set([...document.querySelectorAll('nav.md-nav--primary a.md-nav__link[href]')]
  .map(link => new URL(link.getAttribute('href'), location.href))
  .filter(url => url.origin === location.origin && !url.hash).map(url => url.pathname))]"""

# Layout faults of the page as it is laid out now, in words a reader would use.
LAYOUT_FAULTS = r"""(wholeTablesInView) => {
  const faults = [];
  const root = document.documentElement;
  if (root.scrollWidth > innerWidth) {
    faults.push(`the page is ${root.scrollWidth} px wide in a ${innerWidth} px window`);
  }
  const article = document.querySelector('article');
  if (!article) return [`no page content at ${location.pathname}`];
  const shown = element => element.getClientRects().length > 0;  // not in a tab that is not selected
  const hidden = new Set(), scrolled = new Set();
  for (const cell of article.querySelectorAll('td, th')) {
    if (!shown(cell)) continue;
    const right = cell.getBoundingClientRect().right;
    const words = `"${cell.textContent.trim().slice(0, 30)}"`;
    // Every box around the cell that cuts off what sticks out sideways, up to the window.
    for (let box = cell.parentElement; box && box !== document.body; box = box.parentElement) {
      const style = getComputedStyle(box);
      if (style.overflowX === 'visible') continue;
      const edge = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
      if (right <= edge + 1) continue;
      const scrolls = ['auto', 'scroll'].includes(style.overflowX) && box.scrollWidth > box.clientWidth;
      (scrolls ? scrolled : hidden).add(words);
    }
    if (right > innerWidth + 1 && !cell.closest('.md-typeset__scrollwrap')) hidden.add(words);
  }
  if (hidden.size) faults.push(`table cells cut off where no scrolling reaches them: ${[...hidden].join(', ')}`);
  if (wholeTablesInView && scrolled.size) {
    faults.push(`table cells out of view until the table is scrolled: ${[...scrolled].join(', ')}`);
  }
  // Code in a table may wrap at a space, after the "/" of a path, between
  // "=" and "[": not inside a name, dotted or not ("TF_USE_LEGAC|Y_KERAS").
  const broken = new Set();
  const range = document.createRange();
  for (const code of article.querySelectorAll('td code, th code')) {
    if (!shown(code)) continue;
    const text = code.textContent;
    let before = '', top = null, offset = 0;
    const inName = /[\w.]/;
    const characters = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = characters.nextNode(); node; node = characters.nextNode()) {
      for (let i = 0; i < node.length; i++, offset++) {
        const character = node.data[i];
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (rect && !/\s/.test(character)) {
          if (top !== null && Math.abs(rect.top - top) > 2 && inName.test(before) && inName.test(character)) {
            broken.add(`"${text.slice(0, offset)}|${text.slice(offset)}"`);
          }
          top = rect.top;
        }
        before = character;
      }
    }
  }
  if (broken.size) faults.push(`code broken inside a word (at |): ${[...broken].join(', ')}`);
  // A number then a breakable space then a unit, outside code: a line may end between them.
  const split = /\d+(?:[.,]\d+)*[ \t\n]+(?:ns|µs|ms|s|B|KiB|MiB|GiB)(?!\w)/g;
  const splittable = new Set();
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('code, pre, script, style, svg')) continue;
    for (const found of node.textContent.matchAll(split)) splittable.add(`"${found[0]}"`);
  }
  if (splittable.size) {
    faults.push(`numbers that may wrap away from their unit: ${[...splittable].slice(0, 8).join(', ')}`);
  }
  return faults;
}"""

# The smallest text of each chart as it is drawn on the page: the chart's SVG
# is laid out inline at the width its image is shown at, and each text
# element's font size is scaled as its transforms and the viewBox scale it.
CHART_TEXT_PX = """async () => {
  const charts = [...document.querySelectorAll('article img[src*="/assets/results/"]')]
    .filter(img => img.getClientRects().length > 0);
  const found = [];
  for (const img of charts) {
    const svg = await (await fetch(img.src)).text();
    const holder = document.createElement('div');
    const width = img.getBoundingClientRect().width;
    holder.style.cssText = `position:absolute;left:0;top:0;visibility:hidden;width:${width}px`;
    holder.innerHTML = svg.slice(svg.indexOf('<svg'));
    const drawn = holder.querySelector('svg');
    drawn.setAttribute('width', '100%');
    drawn.removeAttribute('height');
    document.body.appendChild(holder);
    let smallest = Infinity, text = '';
    for (const element of drawn.querySelectorAll('text')) {
      const matrix = element.getScreenCTM();
      const px = parseFloat(getComputedStyle(element).fontSize) * Math.hypot(matrix.a, matrix.b);
      if (px < smallest) { smallest = px; text = element.textContent.trim(); }
    }
    holder.remove();
    found.push({chart: img.getAttribute('src').split('/').pop(), width, smallest, text});
  }
  return found;
}"""


@pytest.fixture(scope="module")
def windows(browser):
    """A browser page per window width and colour scheme, kept across the pages visited.

    Each its own browser context: Material remembers the scheme it first chose
    in local storage, so one context would show every page in its first scheme.
    """
    opened = {(width, scheme): browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
              for width in (PHONE, LAPTOP) for scheme in SCHEMES}
    errors = []
    for page in opened.values():
        page.on("pageerror", lambda error: errors.append(str(error)))
    yield opened, errors
    for page in opened.values():
        page.close()


@pytest.fixture(scope="module")
def phone_charts():
    """What ``CHART_TEXT_PX`` finds on each page at a phone's width, by (path, scheme).

    Filled as the layout test has each page open on a phone, so that the chart
    test reads the same pages without loading every one of them again.
    """
    return {}


def _open(page, url: str) -> None:
    """Load ``url`` and wait until it is drawn."""
    page.goto(url)
    page.wait_for_load_state("load")
    # The simulator draws its figures once its parameters have arrived: measure them drawn.
    page.wait_for_function("() => !document.querySelector('.tfsl-simulator') || "
                           "document.querySelector('.tfsl-simulator').dataset.ready === 'yes'", timeout=20_000)


def test_the_nav_is_every_guide_page_and_no_notebook(browser, site_url):
    """The nav links every page of the guide once, and no notebook: each notebook is on its page."""
    page = browser.new_page()
    page.goto(site_url + "/")
    linked = page.evaluate(NAV_LINKS)
    page.close()
    assert sorted(linked) == sorted(NAV_PATHS)
    assert len(linked) <= MAX_NAV_LINKS
    assert not any(path.startswith("/notebooks/") for path in linked)


@pytest.mark.parametrize("width", [PHONE, LAPTOP])
def test_the_home_page_says_on_its_first_screen_that_no_figure_comes_from_a_gpu(browser, committed_site_url, width):
    """The seed question's asker measured on a GPU: before any figure, the home page says they are all a CPU's."""
    page = browser.new_page(viewport={"width": width, "height": 800})
    _open(page, committed_site_url + "/")
    bottom = page.evaluate("""() => {
      const said = [...document.querySelectorAll('article p')].find(p => p.textContent.includes('none on a GPU'));
      return said ? said.getBoundingClientRect().bottom + window.scrollY : null;
    }""")
    page.close()
    assert bottom is not None and bottom <= 800, bottom


@pytest.mark.parametrize("width, path", list(_cases()))
def test_page_fits_the_window(windows, phone_charts, site_url, width, path):
    pages, errors = windows
    errors.clear()
    faults = {}
    for scheme in SCHEMES:
        page = pages[width, scheme]
        _open(page, site_url + path)
        assert page.get_attribute("body", "data-md-color-scheme") == ("slate" if scheme == "dark" else "default")
        if found := page.evaluate(LAYOUT_FAULTS, width >= LAPTOP):
            faults[scheme] = found
        if width == PHONE:  # for the chart test, from the page as loaded (the faults check only reads it)
            phone_charts[path, scheme] = page.evaluate(CHART_TEXT_PX)
    assert faults == {}
    assert errors == []


def test_chart_text_is_readable_on_a_phone(windows, phone_charts, site_url):
    pages, errors = windows
    errors.clear()
    too_small, charts_seen = [], set()
    for path in PATHS:
        for scheme in SCHEMES:
            if (path, scheme) not in phone_charts:  # the layout test did not reach it (deselected, or failed first)
                _open(pages[PHONE, scheme], site_url + path)
                phone_charts[path, scheme] = pages[PHONE, scheme].evaluate(CHART_TEXT_PX)
            for chart in phone_charts[path, scheme]:
                charts_seen.add(chart["chart"])
                if chart["smallest"] < MIN_CHART_TEXT_PX:
                    too_small.append(f"{path} {chart['chart']} at {chart['width']:.0f} px wide: "
                                     f"\"{chart['text']}\" is {chart['smallest']:.1f} px")
    # Both schemes' charts of the measured pages: the check must not pass by finding none.
    assert {name.split("#")[1] for name in charts_seen} == {"only-light", "only-dark"} and len(charts_seen) > 10
    assert too_small == []
    assert errors == []


# The question pages: each opens with its answer and the code to change.
QUESTION_PAGES = ("/tf1-vs-tf2/", "/predict-loop/", "/training-apis/", "/input-pipeline/", "/releases/", "/xla/",
                  "/worth-it/", "/tracing/", "/training-step/", "/diagnose/", "/frameworks/", "/keras-backends/",
                  "/memory-startup/", "/cpu-settings/")
# Two screens of a 1280 × 800 laptop, and a phone's first screen and a bit.
ANSWER_WITHIN_PX, PHONE_FIRST_LINK_WITHIN_PX = 1600, 900
FIRST_CODE_TOP = """() => {
  const blocks = [...document.querySelectorAll('article .highlight, article pre')]
    .filter(block => block.getBoundingClientRect().height > 0);
  return blocks.length ? blocks[0].getBoundingClientRect().top + window.scrollY : null;
}"""


@pytest.fixture(params=["quick", "committed"])
def either_site_url(request):
    """The site built from the quick results, then the site as published (its figures are longer)."""
    return request.getfixturevalue("site_url" if request.param == "quick" else "committed_site_url")


@pytest.mark.parametrize("path", QUESTION_PAGES)
def test_a_question_page_shows_the_answer_and_its_code_within_two_screens(browser, either_site_url, path):
    page = browser.new_page(viewport={"width": LAPTOP, "height": 800})
    _open(page, either_site_url + path)
    top = page.evaluate(FIRST_CODE_TOP)
    answer = page.evaluate("() => !!document.querySelector('article .admonition.success')")
    page.close()
    assert answer, f"{path} opens with no answer box"
    assert top is not None and top <= ANSWER_WITHIN_PX, f"{path}: the first code block starts at {top} px"


def test_the_home_page_links_the_tf1_question_within_a_phones_first_screen(browser, either_site_url):
    page = browser.new_page(viewport={"width": PHONE, "height": 800})
    _open(page, either_site_url + "/")
    top = page.evaluate("""() => {
      const link = [...document.querySelectorAll('article a[href]')].find(a => a.getAttribute('href').includes('tf1-vs-tf2'));
      return link ? link.getBoundingClientRect().top + window.scrollY : null;
    }""")
    title = page.title()
    page.close()
    assert top is not None and top <= PHONE_FIRST_LINK_WITHIN_PX, top
    assert "slow" in title.lower() and title.strip().lower() != "tfspeedlab"
