"""The freshness check reads only what a verdict needs, and its verdicts are those of reading every
file of the measured commit (``provenance.definitions_at``), on this repository's own history."""

import json
import subprocess
from dataclasses import replace

import pytest

from conftest import REPO, synthetic_results
from tfspeedlab.core.results import provenance
from tfspeedlab.core.results.repo import example_names


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def has_history() -> bool:
    try:
        return bool(git("rev-parse", "HEAD"))
    except (OSError, subprocess.CalledProcessError):
        return False


pytestmark = pytest.mark.skipif(not has_history(), reason="needs this repository's git history")


@pytest.fixture
def nothing_read_yet(monkeypatch):
    """A new process's state: no commit's definitions kept, none read."""
    monkeypatch.delenv("TFSPEEDLAB_EXAMPLES", raising=False)

    provenance.forget_commits()
    yield provenance.forget_commits
    provenance.forget_commits()


def measured_at(commit: str, example: str):
    results = synthetic_results(example=example)
    return replace(results, environment={**results.environment, "git_commit": commit})


def test_a_file_measured_at_the_checked_out_code_is_fresh_without_parsing_the_commit(nothing_read_yet, monkeypatch):
    if git("status", "--porcelain", "--untracked-files=no", "--", *map(str, provenance.measuring_files("small_ops"))):
        pytest.skip("the measuring code has uncommitted changes: it is not the commit's")
    monkeypatch.setattr(provenance, "git_objects", lambda names: pytest.fail(f"read {len(names)} files of the commit"))
    verdict = provenance.freshness(measured_at(git("rev-parse", "HEAD"), "small_ops"))
    assert (verdict.fresh, verdict.reason) == (True, "yes")


def sampled_commits() -> list[str]:
    """The commits the committed results were measured at, and some of the measuring code's history
    (its modules moved and changed: verdicts of each kind)."""
    measured = set()
    for path in (REPO / "results").glob("*/*.json"):
        try:
            commit = json.loads(path.read_text(encoding="utf-8")).get("environment", {}).get("git_commit")
        except (ValueError, AttributeError):
            continue
        if commit:
            measured.add(commit)
    history = git("log", "--format=%H", "-n", "300", "--", "tfspeedlab/core/measure", "tfspeedlab/timer.py",
                  "examples").split()
    present = [commit for commit in sorted(measured) if subprocess.run(
        ["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=REPO, capture_output=True).returncode == 0]
    return present + history[::30]


def test_verdicts_equal_those_of_reading_every_file_of_the_commit(nothing_read_yet):
    commits = sampled_commits()
    examples = sorted(example_names())
    assert commits and examples
    verdicts = {}
    for commit in commits:
        nothing_read_yet()  # the fast path: nothing kept
        fast = [provenance.freshness(measured_at(commit, example)) for example in examples]
        nothing_read_yet()
        provenance.definitions_at(commit)  # every file of the commit read, and kept
        full = [provenance.freshness(measured_at(commit, example)) for example in examples]
        assert fast == full, commit
        verdicts.update({(commit, example): verdict for example, verdict in zip(examples, fast)})
    kinds = {(verdict.fresh, verdict.new) for verdict in verdicts.values()}
    # Fresh, a definition that changed and one that is new: each kind compared at least once.
    assert {(True, False), (False, False), (False, True)} <= kinds, kinds
