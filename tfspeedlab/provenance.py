"""Is a results file older than the code it describes?"""

from __future__ import annotations

import functools

from tfspeedlab.environment import run_git
from tfspeedlab.results import ResultsFile

# The code a results file describes: its example script and the timer.
TIMING_CODE = ("tfspeedlab/timer.py", "tfspeedlab/completion.py", "tfspeedlab/runner.py")


# A site build asks the same questions for every results file.
_git = functools.cache(run_git)


def last_change(paths: tuple[str, ...]) -> str | None:
    return _git("log", "-1", "--format=%H", "--", *paths) or None


def freshness(results: ResultsFile) -> str:
    """``yes``, or why not: the example or the timer changed after the measured commit."""
    measured = results.environment.get("git_commit")
    if not measured:
        return "unknown (no commit recorded)"
    if _git("cat-file", "-e", f"{measured}^{{commit}}") is None:
        return "unknown (commit not in this clone)"
    changed = last_change((f"examples/{results.example}.py", *TIMING_CODE))
    if changed is None or _git("merge-base", "--is-ancestor", changed, measured) is not None:
        dirty = " (measured with uncommitted changes)" if results.environment.get("git_dirty") else ""
        return "yes" + dirty
    return f"**no**: code changed in `{changed[:10]}` after it was measured"
