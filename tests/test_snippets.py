"""Scripts under snippets/ are shown on pages for readers to copy: each runs as-is."""

import subprocess
import sys

import pytest

from conftest import REPO

SNIPPETS = sorted((REPO / "snippets").glob("*.py"))


@pytest.mark.parametrize("script", SNIPPETS, ids=[path.name for path in SNIPPETS])
def test_snippet_runs_as_a_script(script):
    # A fresh process, as a reader would run it (AutoGraph needs the source file).
    completed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert completed.stdout.strip()
