"""The plain snippets of the eager-vs-graph pages: TensorFlow and the standard library only, timed fairly, run as-is.

pytest-codeblocks already runs every ```python block of docs/ inside the test
process, from a string: AutoGraph finds no source there and leaves functions
as written. A reader saves a snippet to a file and runs it, and then AutoGraph
converts it. So here every snippet also runs from a file of its own, in a
fresh process that imports TensorFlow once for all of them, and what it prints
is checked against what its page says.
"""

import ast
import json
import re
import subprocess
import sys

import pytest
from pytest_codeblocks.main import extract_from_file

from conftest import REPO

PAGES = ["matmul.md", "op-count.md", "training-step.md", "tracing.md", "xla.md",
         "predict-loop.md", "training-apis.md", "input-pipeline.md"]
# "≈15–30 lines" is what a reader copies without scrolling; a little slack for a long print.
MAX_LINES = 35
# PEP 8's limit, and about what the content column shows at 1280 px without a scroll bar.
MAX_LINE_LENGTH = 79

RUN_EACH = '''
import contextlib, io, json, runpy, sys, traceback

outputs = []
for path in sys.argv[2:]:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            runpy.run_path(path, run_name="__main__")
        outputs.append({"error": None, "stdout": printed.getvalue()})
    except BaseException:
        outputs.append({"error": traceback.format_exc(), "stdout": printed.getvalue()})
with open(sys.argv[1], "w") as report:
    json.dump(outputs, report)
'''


def runnable_blocks(page: str) -> list[str]:
    """The ```python blocks of a page that pytest-codeblocks runs (not marked skip)."""
    return [block.code for block in extract_from_file(REPO / "docs" / page)
            if block.syntax == "python" and not any("skip" in mark for mark in block.marks)]


def plain_snippets(page: str) -> list[str]:
    """The page's timing snippets: runnable blocks that read the clock. The answer box's Before and
    After tabs show a code change, not a timing, and are checked by test_every_runnable_block_fits_a_line."""
    return [code for code in runnable_blocks(page) if "perf_counter" in code or "timeit" in code]


# Every page with code a reader copies: the timing pages, and the question pages whose code is a change.
CODE_PAGES = [*PAGES, "tf1-vs-tf2.md", "releases.md", "frameworks.md", "golden-rules.md", "keras-backends.md"]


@pytest.mark.parametrize("page", CODE_PAGES)
def test_every_runnable_block_fits_a_line(page):
    # A line longer than this is cut off in the page's code box at 1280 px.
    for code in runnable_blocks(page):
        assert max(len(line) for line in code.splitlines()) <= MAX_LINE_LENGTH, code[:200]


@pytest.mark.parametrize("path", sorted((REPO / "snippets").glob("*.py")), ids=lambda path: path.name)
def test_every_included_snippet_fits_a_line(path):
    # A snippet file is shown whole in a page's code box (pymdownx.snippets).
    lines = path.read_text().splitlines()
    assert max(len(line) for line in lines) <= MAX_LINE_LENGTH, path.name


SNIPPETS = [(page, index, code) for page in PAGES for index, code in enumerate(plain_snippets(page))]
IDS = [f"{page}#{index}" for page, index, _ in SNIPPETS]


@pytest.mark.parametrize("page", PAGES)
def test_each_page_offers_a_plain_snippet(page):
    assert plain_snippets(page), f"docs/{page} has no ```python block a reader can run as-is"


def imported_modules(code: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize(("page", "index", "code"), SNIPPETS, ids=IDS)
def test_snippet_needs_only_tensorflow_and_times_fairly(page, index, code):
    # NumPy comes with TensorFlow (a dependency of every wheel): a Keras page's snippet may build its data with it.
    assert imported_modules(code) - {"tensorflow", "numpy"} <= set(sys.stdlib_module_names)
    assert "tfspeedlab" not in code
    assert len(code.strip().splitlines()) <= MAX_LINES
    assert max(len(line) for line in code.splitlines()) <= MAX_LINE_LENGTH
    # The clock is read only after the result is: each timed call ends in .numpy(), or is a fit()
    # whose history it reads (fit returns once its last step has run, with the loss as a float).
    assert ".numpy()" in code or ".history[" in code
    assert "timeit" in code or "time.perf_counter" in code
    if "timeit.repeat" in code:
        # Several timed blocks, of which a low one counts: the 10th percentile, the guide's own estimator
        # (xla, op-count), or the fastest; after an untimed call (for a tf.function, its trace).
        assert ("min(" in code or 'statistics.quantiles(blocks, n=10, method="inclusive")[0]' in code) \
            and "repeat=" in code
        lines = code.splitlines()
        first_timed = next(number for number, line in enumerate(lines) if "timeit.repeat" in line)
        # fit() returns once its steps have run: reading its history is the warm-up's completion.
        assert any(".numpy()" in line or ".history[" in line for line in lines[:first_timed]), \
            "no warm-up call before the timing"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """What each snippet printed, run from its own file (as a reader runs it)."""
    folder = tmp_path_factory.mktemp("snippets")
    paths = []
    for number, (_, _, code) in enumerate(SNIPPETS):
        path = folder / f"snippet_{number}.py"
        path.write_text(code, encoding="utf-8")
        paths.append(str(path))
    report = folder / "outputs.json"
    completed = subprocess.run([sys.executable, "-c", RUN_EACH, str(report), *paths],
                               capture_output=True, text=True, timeout=900, cwd=folder)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return dict(zip(IDS, json.loads(report.read_text())))


@pytest.mark.parametrize(("page", "index", "code"), SNIPPETS, ids=IDS)
def test_snippet_runs_from_a_file_and_prints_its_times(outputs, page, index, code):
    found = outputs[f"{page}#{index}"]
    assert found["error"] is None, found["error"][-3000:]
    assert found["stdout"].strip()
    if "speed-up" in code:
        assert re.search(r"speed-up[^\n]*\d+\.\d+x", found["stdout"]), found["stdout"]


def test_retracing_snippet_shows_what_the_tracing_page_says(outputs):
    [key] = [key for key, (_, _, code) in zip(IDS, SNIPPETS) if "experimental_get_tracing_count" in code]
    traces = dict(re.findall(r"^\s*(.+?):\s+(\d+) traces in 10 calls", outputs[key]["stdout"], re.MULTILINE))
    # A new Python value or a new shape retraces on every call; a tensor or an input_signature does not.
    assert traces == {"Python float": "10", "tensor": "1", "new shape": "10", "new shape, input_signature": "1"}
