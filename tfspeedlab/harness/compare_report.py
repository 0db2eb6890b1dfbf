"""``tfspeedlab compare``'s report: for a terminal, and as JSON.

Both say the same things in the same order: each side's environment, where they differ, the
comparisons the report leads with (times on one machine, speed-ups across machines; each sorted
by change, the biggest slow-down first), raw times across machines when asked for, one summary
line, and what ``--fail-on-slower`` found. Every phrase of a comparison comes from the wording
module; a side timed in one process gets figures and no verdict.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from tfspeedlab.core.stats.intervals import Ratio
from tfspeedlab.core.stats.summary import text_columns
from tfspeedlab.core.units import format_time
from tfspeedlab.core.wording import (ONE_PROCESS, ONE_PROCESS_NOTE, speedup_by_value, speedup_cell,
                                     verdict_counts)
from tfspeedlab.harness.compare import CaseChange, Change, Comparison, SpeedupChange, slowed, summarize_changes

# What the times compared are, said once under a table of them.
TIMES_NOTE = "times: the 10th percentile of all blocks, every process pooled"
SPEEDUPS_HEADING = ("Speed-ups within each example, each side's own (the baseline's time ÷ the case's): these "
                    "transfer between machines; raw times do not (--times shows them)")
RAW_TIMES_HEADING = ("Raw times (--times): across machines they say which machine is faster, not whether the "
                     "code changed")


def _side_speedup(found: Ratio) -> str:
    """One side's speed-up: in the four verdicts with its interval, or its figure alone (marked for the
    note) where that side timed it in one process."""
    return f"{speedup_by_value(found.value)}¹" if found.one_process else speedup_cell(found)


def _case_name(change: Change) -> str:
    return f"{change.runner}/{change.example} · {change.case}"


def _times_table(changes: list[CaseChange]) -> list[str]:
    rows = [("Case", "Old", "New", "New against old [95% interval]")]
    rows += [(_case_name(change), format_time(change.old_s), format_time(change.new_s), speedup_cell(change.gain))
             for change in changes]
    return [text_columns(rows), *_one_process_note(changes)]


def _speedups_table(changes: list[SpeedupChange]) -> list[str]:
    rows = [("Case", "Against", "Old", "New", "New against old, relative to the baseline [95% interval]")]
    rows += [(_case_name(change), change.baseline, _side_speedup(change.old), _side_speedup(change.new),
              speedup_cell(change.gain)) for change in changes]
    return [text_columns(rows), *_one_process_note(changes)]


def _one_process_note(changes: list[Change]) -> list[str]:
    return [ONE_PROCESS_NOTE] if any(change.gain.one_process for change in changes) else []


def _summary_line(comparison: Comparison) -> str:
    summary = summarize_changes(comparison.leading)
    what = "speed-ups" if comparison.leads_with_speedups else "cases"
    if not summary.compared:
        return f"Summary: no {what} to compare on both sides"
    relative = " (each case against its baseline)" if comparison.leads_with_speedups else f" ({TIMES_NOTE})"
    return (f"Summary: {summary.differing} of {summary.compared} {what} differ significantly: "
            f"{verdict_counts(summary.counts)}; geometric mean of the changes: "
            f"{speedup_by_value(summary.geometric_mean)}{relative}")


def _failing_line(comparison: Comparison, percent: float) -> str:
    found = slowed(comparison.leading, percent)
    threshold = f"by {percent:g}% or more" if percent else "by any amount"
    if found:
        return (f"--fail-on-slower: {len(found)} significantly slower {threshold}: "
                + ", ".join(_case_name(change) for change in found))
    if not comparison.leading:
        return "--fail-on-slower: nothing to judge (no comparison on both sides)"
    if all(change.verdict is None for change in comparison.leading):
        return f"--fail-on-slower: nothing to judge ({ONE_PROCESS})"
    return f"--fail-on-slower: none significantly slower {threshold}"


def text_report(comparison: Comparison, show_times: bool = False, fail_percent: float | None = None) -> str:
    lines = []
    sides = (("old", comparison.old_path, comparison.old), ("new", comparison.new_path, comparison.new))
    for name, path, side in sides:
        lines.append(f"{name}: {path}")
        lines += [f"  {line}" for line in side.lines()]
    lines += comparison.differences.lines()
    for name, side in (("old", comparison.old), ("new", comparison.new)):
        if side.one_process:
            lines.append(f"{name}: {ONE_PROCESS} (no verdict on a comparison it takes part in)")
    lines.append("")
    if comparison.leads_with_speedups:
        lines.append(SPEEDUPS_HEADING)
        lines += _speedups_table(comparison.speedups) if comparison.speedups else ["(none: no example here "
                                                                                   "declares a baseline)"]
        if comparison.without_speedups:
            lines.append(f"No speed-up to compare (no baseline case): {', '.join(comparison.without_speedups)}")
        if show_times:
            lines += ["", RAW_TIMES_HEADING, *_times_table(comparison.times)]
    else:
        lines += _times_table(comparison.times)
    lines += ["", _summary_line(comparison)]
    if fail_percent is not None:
        lines.append(_failing_line(comparison, fail_percent))
    return "\n".join(_without_controls(line) for line in "\n".join(lines).split("\n"))


def _without_controls(line: str) -> str:
    """A line with every control character (an escape sequence a results file's label or CPU name might
    carry) shown as "?": a file read from elsewhere must not drive the reader's terminal."""
    return "".join("?" if unicodedata.category(character) == "Cc" else character for character in line)


def _ratio_json(found: Ratio) -> dict[str, Any]:
    return {"value": found.value, "low": found.low, "high": found.high, "processes": found.processes}


def _change_json(change: Change) -> dict[str, Any]:
    """One comparison: its case, both sides, and its gain (new against old as a speed-up) with the
    verdict (null from one process) and the phrase a terminal prints."""
    record: dict[str, Any] = {"runner": change.runner, "example": change.example, "case": change.case}
    if isinstance(change, SpeedupChange):
        record.update(baseline=change.baseline, old=_ratio_json(change.old), new=_ratio_json(change.new))
    else:
        record.update(old_s=change.old_s, new_s=change.new_s)
    verdict = change.verdict
    return {**record, "gain": _ratio_json(change.gain), "verdict": None if verdict is None else verdict.value,
            "text": speedup_cell(change.gain) if verdict is not None else ONE_PROCESS}


def json_report(comparison: Comparison, show_times: bool = False, fail_percent: float | None = None) -> dict[str, Any]:
    summary = summarize_changes(comparison.leading)
    report: dict[str, Any] = {
        "old": {"path": str(comparison.old_path), "environment": comparison.old.to_json()},
        "new": {"path": str(comparison.new_path), "environment": comparison.new.to_json()},
        "differences": comparison.differences.to_json(),
        "leads_with": "speedups" if comparison.leads_with_speedups else "times",
        "speedups": [_change_json(change) for change in comparison.speedups],
        "without_speedups": comparison.without_speedups,
        "summary": {"compared": summary.compared, "differing": summary.differing,
                    "geometric_mean_gain": summary.geometric_mean if summary.compared else None,
                    "verdicts": {("no verdict" if word is None else word.value): count
                                 for word, count in summary.counts.items()}},
    }
    if show_times or not comparison.leads_with_speedups:
        report["times"] = [_change_json(change) for change in comparison.times]
    if fail_percent is not None:
        report["fail_on_slower"] = {"percent": fail_percent,
                                    "failed": [_change_json(change) for change in slowed(comparison.leading,
                                                                                          fail_percent)]}
    return report
