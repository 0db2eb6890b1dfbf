"""Scripts under snippets/ are shown on pages for readers to copy: each runs as-is."""

import re
import subprocess
import sys

import pytest

from conftest import REPO

SNIPPETS = sorted((REPO / "snippets").glob("*.py"))


def each_model_in_a_process_of_its_own(stdout: str) -> None:
    """The memory page's fix: every model of the search trains in a fresh process. With ``Pool.map``'s
    default chunk size, ``maxtasksperchild=1`` gives a process to a chunk of several models, and five
    models share three processes: the reader who copies that still grows."""
    processes = re.findall(r"^\d+ units: loss \S+, process (\d+)$", stdout, re.MULTILINE)
    assert len(processes) >= 5, stdout  # enough models for map's default chunks to hold two
    assert len(set(processes)) == len(processes), f"models shared a process: {stdout}"


# What a snippet's output must show besides running, where a page claims more of it.
OUTPUT_CHECKS = {"models_in_fresh_processes.py": each_model_in_a_process_of_its_own}


@pytest.mark.parametrize("script", SNIPPETS, ids=[path.name for path in SNIPPETS])
def test_snippet_runs_as_a_script(script):
    # A fresh process, as a reader would run it (AutoGraph needs the source file).
    completed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert completed.stdout.strip()
    if script.name in OUTPUT_CHECKS:
        OUTPUT_CHECKS[script.name](completed.stdout)
