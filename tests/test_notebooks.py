"""The notebooks: each runs top to bottom in a headless kernel (quick), and its site page works.

Each notebook runs in a kernel of its own, as a reader's would: a fresh Python
that imports TensorFlow, with no command line to pass ``--quick`` on.
"""

import importlib.util
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from conftest import REPO
from tfspeedlab.core.results.store import load_results
from tfspeedlab.core.stats.summary import COLUMNS
from tfspeedlab.harness.supervisor import TIMEOUT_QUICK_S
from tfspeedlab.site.views import view_for

NOTEBOOK_DIR = REPO / "notebooks"
NOTEBOOKS = sorted(path.stem for path in NOTEBOOK_DIR.glob("*.ipynb"))
# A time as the harness prints it: "364 µs", "6.59 ms", "1.03 s" (the space may be a no-break one).
A_TIME = re.compile(r"\d(?:[\d,.]*\d)?\s(?:ns|µs|ms|s)\b")


def _converter():
    spec = importlib.util.spec_from_file_location("notebooks", REPO / "scripts" / "notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


notebooks = _converter()


def _read(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)


# ------------------------------------------------------------ the notebooks as committed


def test_every_example_has_a_notebook():
    assert NOTEBOOKS == sorted(path.stem for path in (REPO / "examples").glob("*.py")
                               if not path.name.startswith("_"))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_notebook_runs_quick_and_says_how_to_ask_for_the_full_run(name):
    cells = _read(name).cells
    *_, text, parameter, entry = cells
    assert entry.source == notebooks.NOTEBOOK_ENTRY
    assert parameter.source.startswith("QUICK_RUN = True") and parameter.metadata["tags"] == ["parameters"]
    assert text.cell_type == "markdown" and "`QUICK_RUN = False`" in text.source
    assert not any("__main__" in cell.source for cell in cells)
    assert cells[1].source == notebooks.INSTALL_CELL
    # Plain Python, no IPython magics (`%pip`, `!git`): the cells run as written in any kernel.
    assert not [line for cell in cells if cell.cell_type == "code"
                for line in cell.source.splitlines() if line.lstrip().startswith(("%", "!"))]
    # Stored unrun: whatever a page shows under a cell comes from results files, not from a past run.
    code = [cell for cell in cells if cell.cell_type == "code"]
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


def test_the_install_cell_installs_only_where_tfspeedlab_is_missing(monkeypatch, tmp_path):
    commands = []

    def run(command, check):  # records the command; a clone makes its folder, as git would
        commands.append(command)
        if command[:2] == ["git", "clone"]:
            (Path(command[-1]) / "examples").mkdir(parents=True)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setenv("TFSPEEDLAB_EXAMPLES", "")  # so that monkeypatch puts back what was there before
    monkeypatch.delenv("TFSPEEDLAB_EXAMPLES")
    cell = compile(notebooks.INSTALL_CELL, "<install cell>", "exec")  # plain Python: no magics
    exec(cell, {})
    # Here tfspeedlab is installed: re-installing from GitHub would replace the code being run.
    assert commands == [] and "TFSPEEDLAB_EXAMPLES" not in os.environ
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)  # as in Colab
    exec(cell, {})
    clone = str(tmp_path / "tfspeedlab-src")
    assert commands == [["git", "clone", "--quiet", "--depth", "1", notebooks.REPOSITORY, clone],
                        [sys.executable, "-m", "pip", "install", "--quiet", clone + "[measure]"]]
    assert os.environ["TFSPEEDLAB_EXAMPLES"] == str(tmp_path / "tfspeedlab-src" / "examples")


def test_a_script_without_an_install_cell_gets_one_after_its_title(tmp_path):
    script = tmp_path / "tiny.py"
    script.write_text('# %% [markdown]\n# # Tiny\n\n# %%\nimport tfspeedlab\n\n'
                      '# %%\nif __name__ == "__main__":\n    tfspeedlab.main(workload)\n')
    cells = nbformat.reads(notebooks.to_notebook(script), as_version=4).cells
    assert [cell.source for cell in cells[:3]] == ["# Tiny", notebooks.INSTALL_CELL, "import tfspeedlab"]
    assert cells[-1].source == notebooks.NOTEBOOK_ENTRY


def test_a_script_ending_otherwise_is_refused_not_half_converted(tmp_path):
    script = tmp_path / "odd.py"
    script.write_text('# %%\nimport tfspeedlab\n\n# %%\ntfspeedlab.main(workload)\n')
    with pytest.raises(ValueError, match="the last cell must be exactly"):
        notebooks.to_notebook(script)


# ------------------------------------------------------------ run top to bottom


def _stdout(cell) -> str:
    return "".join(output.get("text", "") for output in cell.outputs
                   if output.output_type == "stream" and output.name == "stdout")


# One notebook run top to bottom in a child process of its own, which writes the notebook as run.
# A hang guard, as the harness's for a quick run; not a limit the test checks.
_EXECUTE = f"""
import sys, traceback
import nbformat
from nbclient import NotebookClient
source, target, folder = sys.argv[1:]
notebook = nbformat.read(source, as_version=4)
client = NotebookClient(notebook, timeout={TIMEOUT_QUICK_S}, kernel_name="python3",
                        resources={{"metadata": {{"path": folder}}}})
try:
    client.execute()
except Exception:  # CellExecutionError carries the failing cell's traceback
    traceback.print_exc()
    sys.exit(1)
finally:
    nbformat.write(notebook, target)
"""
# Notebooks run this many at a time: each kernel is a fresh Python importing TensorFlow and then
# mostly one busy core; two at once on a 2-core runner take about half the time of one after another.
AT_ONCE = 2


@pytest.fixture(scope="session")
def executed_notebooks(tmp_path_factory) -> dict[str, tuple[int, Path, str]]:
    """Every notebook run top to bottom (quick), ``AT_ONCE`` at a time: name → (exit code, the notebook
    as run, what its runner printed on stderr)."""
    root = tmp_path_factory.mktemp("notebooks-run")
    waiting, running, done = list(NOTEBOOKS), {}, {}
    try:
        _run_in_turn(root, waiting, running, done)
    finally:  # Ctrl-C or a failure here: no kernel left running
        for child, log in running.values():
            child.kill()
            log.close()
    return done


def _run_in_turn(root: Path, waiting: list[str], running: dict, done: dict) -> None:
    while waiting or running:
        while waiting and len(running) < AT_ONCE:
            name = waiting.pop(0)
            folder = root / name
            folder.mkdir()
            log = open(folder / "stderr.txt", "w+")
            child = subprocess.Popen([sys.executable, "-c", _EXECUTE, str(NOTEBOOK_DIR / f"{name}.ipynb"),
                                      str(folder / f"{name}.ipynb"), str(folder)],
                                     stdout=subprocess.DEVNULL, stderr=log, cwd=folder)
            running[name] = (child, log)
        finished = [name for name, (child, _) in running.items() if child.poll() is not None]
        for name in finished:
            child, log = running.pop(name)
            log.seek(0)
            done[name] = (child.returncode, root / name / f"{name}.ipynb", log.read())
            log.close()
        if not finished:
            time.sleep(0.5)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_top_to_bottom_quick(name, executed_notebooks):
    code, path, errors = executed_notebooks[name]
    assert code == 0, errors[-6000:]
    tmp_path = path.parent
    notebook = nbformat.read(path, as_version=4)
    out = _stdout(notebook.cells[-1])
    if out.startswith("skipped:"):  # an optional dependency missing (frameworks), as `tfspeedlab run` skips it
        pytest.skip(out.strip())
    assert not (tmp_path / "tfspeedlab-src").exists(), "the install cell ran where tfspeedlab is installed"
    assert "quick run" in out and "tfspeedlab.main(workload, quick=False)" in out
    # The measurement ran: its title line, then the table of cases, each with a measured time.
    assert re.search(r" — runner: \w+, TensorFlow [\d.]+\S*, quick run", out), out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if re.match(r"\s*".join(map(re.escape, COLUMNS)), line))
    assert set(lines[header + 1].replace(" ", "")) == {"-"}
    rows = [line for line in lines[header + 2:] if line.strip()]
    assert rows and all(A_TIME.search(row) for row in rows), out


# ------------------------------------------------------------ the site's notebook pages
# (``committed_site``, the site as published, is built once per session: tests/conftest.py.)


class _Page(HTMLParser):
    """Every element id of a page, the targets of its TOC and skip links, and its headings' text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.toc_links: list[tuple[str, str]] = []  # (href, text)
        self._link: list | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        classes = set((attributes.get("class") or "").split())
        href = attributes.get("href") or ""
        # Material's TOC (secondary nav, and the page's entry in the primary nav) and "Skip to content".
        if tag == "a" and href.startswith("#") and classes & {"md-nav__link", "md-skip"}:
            self._link = [href, ""]

    def handle_data(self, data):
        if self._link is not None:
            self._link[1] += data

    def handle_endtag(self, tag):
        if tag == "a" and self._link is not None:
            self.toc_links.append((self._link[0], " ".join(self._link[1].split())))
            self._link = None


def _notebook_pages(site):
    pages = sorted((site / "notebooks").glob("*/index.html"))
    assert [page.parent.name for page in pages] == NOTEBOOKS
    return pages


def test_every_toc_link_on_a_notebook_page_has_its_target(committed_site):
    broken = []
    for page in _notebook_pages(committed_site):
        parsed = _Page(page.read_text())
        assert parsed.toc_links, page
        broken += [f"{page.parent.name}: {href} ({text})" for href, text in parsed.toc_links
                   if href[1:] not in parsed.ids]
    assert broken == []


def test_toc_entries_keep_the_code_in_their_headings(committed_site):
    links = dict(_Page((committed_site / "notebooks" / "frameworks" / "index.html").read_text()).toc_links)
    titles = set(links.values())
    assert "PyTorch: eager, and torch.compile (Inductor, which compiles C++ on CPU)" in titles
    assert "JAX: op by op, and jax.jit" in titles
    assert {"Run it", "Measured results"} <= titles


def test_a_notebook_page_shows_the_committed_results_under_its_last_cell(committed_site):
    for page in _notebook_pages(committed_site):
        html = page.read_text()
        name = page.parent.name
        last_cell, section = html.rfind("QUICK"), html.find('id="measured-results"')
        assert 0 < last_cell < section, name
        assert "Not this notebook&rsquo;s output" in html or "Not this notebook's output" in html, name
        if (REPO / "results" / "cpu" / f"{name}.json").exists():
            assert f"results/cpu/{name}.json" in html[section:], name
    # The figures are the results file's: each time in the table its view renders is on the page.
    results = load_results(REPO / "results" / "cpu" / "small_ops.json")
    times = A_TIME.findall(view_for(results).table(results))
    section = (committed_site / "notebooks" / "small_ops" / "index.html").read_text().split('id="measured-results"')[1]
    assert times and [time for time in times if time not in section] == []
