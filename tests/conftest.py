import functools
import http.server
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import CaseResult, ResultsFile

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
# Keep TensorFlow's start-up chatter out of test logs.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


# Tiny examples with plain-Python cases: they exercise the harness, not TensorFlow.
PASSING_EXAMPLE = '''
# # A passing example
import time
import tfspeedlab

def workload(quick=False):
    return tfspeedlab.Workload(
        name="passing", title="Passing",
        cases=[tfspeedlab.Case("sleep", time.sleep, (0.001,))], budget_s=0.05,
    )
'''
SLOW_EXAMPLE = '''
# # A slow example
import time
import tfspeedlab

def workload(quick=False):
    print("slow example started", flush=True)
    return tfspeedlab.Workload(
        name="slow", title="Slow",
        cases=[tfspeedlab.Case("sleep", time.sleep, (0.01,))], budget_s=120,
    )
'''


# Tests that use these run every example, build a whole site or start Chromium: minutes each, so
# the contributors' fast tier (`pytest -m "not slow"`) leaves them out.
SLOW_FIXTURES = frozenset({"quick_results", "quick_site", "committed_site", "site_url", "browser"})
# Modules whose tests start TensorFlow in fresh processes (examples, notebooks, snippets, the
# diagnosis of real functions): seconds to minutes each.
SLOW_MODULES = frozenset({"test_notebooks.py", "test_plain_snippets.py", "test_snippets.py", "test_examples.py",
                          "test_launch.py", "test_diagnose.py", "test_diagnose_model.py", "test_gpu_run.py"})


def pytest_collection_modifyitems(items):
    for item in items:
        path = Path(str(item.fspath))
        in_docs = path.suffix == ".md" and path.parent.name == "docs"  # the pages' code blocks run TensorFlow
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())) or path.name in SLOW_MODULES or in_docs:
            item.add_marker(pytest.mark.slow)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes: to show that something left a tree as it was."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def build_site(results_dir: Path, site_dir: Path) -> subprocess.CompletedProcess:
    """A strict MkDocs build of the site from ``results_dir``, as the docs install runs it: with
    TensorFlow and the other measuring packages unimportable (``tests/without_tensorflow.py``)."""
    return subprocess.run(
        [sys.executable, str(REPO / "tests" / "without_tensorflow.py"), "mkdocs", "build", "--strict",
         "--site-dir", str(site_dir)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
        env={**os.environ, "TFSPEEDLAB_RESULTS": str(results_dir), "NO_MKDOCS_2_WARNING": "1"},
    )


def default_sigint() -> None:
    """For ``preexec_fn``: Ctrl-C's default action in the child, whatever this process inherited.
    A shell starts a background job (``cmd &`` without job control) with SIGINT ignored, and an
    ignored signal stays ignored across exec: a run started from such a job would never see the
    interrupt a test sends it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def output_after_interrupt(process: subprocess.Popen, timeout: float) -> str:
    """What an interrupted run prints until it exits; if it has not exited within ``timeout``, the test
    fails with what it printed and the processes still alive (their state and signal masks): a hang
    must say where it hangs."""
    try:
        return process.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        alive = subprocess.run(["ps", "-eo", "pid,ppid,pgid,stat,etime,args"], capture_output=True, text=True).stdout
        masks = []
        for line in alive.splitlines()[1:]:
            pid = line.split()[0]
            status = Path(f"/proc/{pid}/status")
            if "tfspeedlab" in line and status.exists():
                fields = [f for f in status.read_text().splitlines() if f.startswith(("SigBlk", "SigIgn", "SigCgt"))]
                masks.append(f"{pid}: {' '.join(fields)}")
        try:
            os.killpg(process.pid, 9)  # the run's whole group, when it leads one
        except (ProcessLookupError, PermissionError):
            process.kill()
        try:
            printed = process.communicate(timeout=10)[0]
        except subprocess.TimeoutExpired:  # a worker in a session of its own still holds the pipe
            printed = "(nothing: a process left running still holds its output)"
        pytest.fail(f"still running {timeout:g} s after the interrupt\n--- printed ---\n{printed[-4000:]}"
                    f"\n--- processes ---\n{alive}\n--- signals ---\n" + "\n".join(masks))


def run_cli(*args: str, cwd: Path = REPO, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tfspeedlab", *args],
        cwd=cwd, capture_output=True, text=True, timeout=timeout, env={**os.environ, **env},
    )


@pytest.fixture(scope="session")
def quick_results(tmp_path_factory) -> Path:
    """Every example run for real in quick mode, once per test session."""
    out = tmp_path_factory.mktemp("results")
    completed = run_cli("run", "--quick", "--runner", "cpu", "--out", str(out))
    assert completed.returncode == 0, completed.stderr[-4000:]
    return out


def synthetic_results(samples=(1e-3, 1.1e-3, 1.05e-3), runner="cpu", example="demo") -> ResultsFile:
    """A hand-made results file for testing rendering and validation only, never shown on a page."""
    cases = tuple(
        CaseResult(label, {"mode": label}, Measurement(tuple(s * factor for s in samples), 10, 0.05, "test"))
        for label, factor in (("eager", 10.0), ("graph", 1.0))
    )
    environment = {
        "python": "3.11.0", "tensorflow": "2.99.0", "keras": None, "numpy": "2.0.0", "os": "Linux",
        "cpu_model": "Test CPU", "logical_cores": 2, "intra_op_threads": 0, "inter_op_threads": 0,
        "gpus": [], "cuda_build": None, "cudnn_build": None, "git_commit": None,
        "utc_time": "2026-01-01T00:00:00+00:00",
    }
    return ResultsFile(example, "Demo workload", runner, True, {"n": 1}, environment, cases, baseline="eager")


def site_results(quick_results, destination):
    """The quick results, plus the committed file of any example the quick run skipped.

    The frameworks comparison is skipped where its optional extra is not
    installed (as on CI); its page still needs a results file to build, as a
    reader's checkout has.
    """
    shutil.copytree(quick_results, destination)
    for committed in (REPO / "results" / "cpu").glob("*.json"):
        if not (destination / "cpu" / committed.name).exists() and not committed.name.endswith(".failed.json"):
            shutil.copy(committed, destination / "cpu" / committed.name)
    return destination


@pytest.fixture(scope="session")
def quick_site(quick_results, tmp_path_factory) -> Path:
    """The site built from the quick results (see ``site_results``), once per test session.

    A strict build takes one to two minutes, so every test that reads this
    site shares one; none may change it. A test that needs other inputs (a
    GPU file, a malformed file) builds a site of its own.
    """
    results = site_results(quick_results, tmp_path_factory.mktemp("quick-site-results") / "results")
    site = tmp_path_factory.mktemp("quick-site")
    completed = build_site(results, site)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return site


@pytest.fixture(scope="session")
def committed_site(tmp_path_factory) -> Path:
    """The site as published: built from the committed results, once per test session (read only)."""
    site = tmp_path_factory.mktemp("committed-site")
    completed = build_site(REPO / "results", site)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return site


def _served(site: Path):
    """``site`` served over HTTP on a free local port until the generator is closed: yields its URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def site_url(quick_site):
    """``quick_site`` served over HTTP on a free local port, for the browser tests."""
    yield from _served(quick_site)


@pytest.fixture(scope="session")
def committed_site_url(committed_site):
    """``committed_site``, the site as published, served like ``site_url``.

    For the layout checks whose outcome depends on the figures' length: the
    quick results' figures are not the published ones.
    """
    yield from _served(committed_site)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, driven by Playwright, for the tests of one module.

    Not one per session: while Playwright's sync API runs, its event loop is
    the thread's running loop, and ``asyncio.run`` (nbclient, in the notebook
    tests) refuses to start. A launch costs about two seconds.
    """
    if CHROMIUM is None:
        message = "Chromium is not installed (apt-get install chromium); scripts/test.sh installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield instance
        instance.close()


def fresh_build_cache(tmp_path, monkeypatch, *memos):
    """A build cache of its own under ``tmp_path``, with ``memos`` (what the tested builds keep) empty
    before the test and after: a fixture yields from this."""
    from tfspeedlab.site import build_cache

    monkeypatch.setenv(build_cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    for memo in memos:
        memo.clear()
    yield tmp_path / "cache"
    build_cache.save()
    for memo in memos:
        memo.clear()
