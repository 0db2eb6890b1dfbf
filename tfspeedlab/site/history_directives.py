"""The directives of the release-history page (``tfspeedlab history`` results).

``{{ history_trend NAME WORKLOAD }}``
    Runner tabs: the workload's trend chart across releases and its table of times per release.
``{{ history_changes NAME }}``
    Runner tabs: every material change between consecutive releases, largest first.
``{{ history_environments NAME }}``
    Runner tabs: what each release's environment installed, and how its run ended.
``{{ history_sittings NAME }}``
    Runner tabs: per release measured in two passes, how far its cases moved between them.
``{{ history_drift NAME }}``, ``{{ history_threshold }}``
    The largest median move of one release's cases between its two passes (``1.18×``), and
    the smallest change the changes table lists (``1.25×``).
``{{ history_change NAME CASE FROM TO }}``
    One case from release FROM to release TO: ``1.52× slower [1.41–1.63×]``.
``{{ history_versus NAME CASE OTHER RELEASE }}``
    Two cases on one release, CASE's time against OTHER's: ``4.27× slower [3.90–4.61×]``.
``{{ history_time NAME CASE RELEASE }}``
    One case's time on one release.
``{{ history_span NAME }}``
    Which releases were measured: ``10 of 10 releases (2.12 to 2.21)``.

A build from a results tree with no history for the runner (a quick run's tree) shows
the not-measured note, and inline figures read "not measured in this build's results";
a case or release named wrongly in a tree that has a history still stops the build.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from tfspeedlab.analysis import history as trends
from tfspeedlab.analysis import intervals
from tfspeedlab.analysis.summary import format_change
from tfspeedlab.spec.releases import ALL_RELEASES, parse_selection
from tfspeedlab.results.history import ReleaseResults
from tfspeedlab.results.schema import MissingCaseError
from tfspeedlab.site import history_tables, markdown
from tfspeedlab.site.charts import THEMES
from tfspeedlab.site.runners import RUNNER_TITLES, runner_tabs
from tfspeedlab.units import format_ratio, format_time



class Context(Protocol):
    """What these directives read of ``directives.Context`` (which imports this module)."""

    history: dict[str, list[ReleaseResults]]
    results_root: Path

    def relative(self, uri: str) -> str: ...

HISTORY_CHART_DIR = "assets/results/{runner}/history"


class HistoryDirectiveError(ValueError):
    """A history directive that names a workload, case or release the history does not hold."""


def chart_uri(runner: str, example: str, workload: str, theme: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", workload.lower()).strip("-")
    return f"{HISTORY_CHART_DIR.format(runner=runner)}/{example}-{slug}-{theme}.svg"


def not_measured(runner: str) -> str:
    """One line, not an admonition: a history page has a tab of its own for every table."""
    return (f"*Not yet measured on {RUNNER_TITLES[runner]}: no release history has been recorded there; "
            f"`tfspeedlab history --runner {runner}` on such a machine fills this tab.*\n")


def _history_tabs(context: Context, render: Callable[[str, list[ReleaseResults]], str]) -> str:
    def body(runner: str) -> str:
        history = context.history.get(runner) or []
        return not_measured(runner) if not history else render(runner, history) + "\n"

    return runner_tabs(body)


def _history(context: Context, runner: str) -> list[ReleaseResults]:
    history = context.history.get(runner) or []
    if not history:  # a results tree without a history (a quick run's): the page still builds
        raise MissingCaseError(f"no release history under {context.results_root / runner}", True)
    return history


def _release(text: str):
    try:
        [release] = parse_selection(text)
    except ValueError as error:
        raise HistoryDirectiveError(str(error)) from None
    return release


def history_trend(context: Context, example: str, workload: str) -> str:
    def render(runner: str, history: list[ReleaseResults]) -> str:
        groups = trends.workload_groups(history, example)
        if workload not in groups:
            raise HistoryDirectiveError(f"no workload {workload!r} in the {example} history; workloads: {list(groups)}")
        images = [f"![{markdown.text(workload)}: time per call on every release ({theme})]"
                  f"({context.relative(chart_uri(runner, example, workload, theme))}#only-{theme})"
                  for theme in THEMES]
        return "\n\n".join([*images, history_tables.trend_table(history, example, workload)])

    return _history_tabs(context, render)


def history_changes(context: Context, example: str) -> str:
    return _history_tabs(context, lambda runner, history: history_tables.changes_table(history, example))


def history_environments(context: Context, example: str) -> str:
    return _history_tabs(context, lambda runner, history: history_tables.environments_table(history, example))


def history_sittings(context: Context, example: str) -> str:
    return _history_tabs(context, lambda runner, history: history_tables.sittings_table(history, example))


def history_drift(context: Context, example: str, *, runner: str = "cpu") -> str:
    drift = trends.largest_drift(_history(context, runner), example)
    if drift is None:
        raise HistoryDirectiveError(f"no release of {example} was measured in two passes")
    return format_ratio(drift)


def history_threshold(context: Context) -> str:
    return format_ratio(trends.MATERIAL_CHANGE)


def history_change(context: Context, example: str, case: str, before: str, after: str, *, runner: str = "cpu") -> str:
    history = _history(context, runner)
    try:
        found = trends.across(history, example, case, _release(before), _release(after))
    except KeyError:
        raise HistoryDirectiveError(f"{example} · {case!r} was not measured on both {before} and {after}") from None
    return format_change(found)


def history_versus(context: Context, example: str, case: str, other: str, release: str, *,
                   runner: str = "cpu") -> str:
    history = _history(context, runner)
    wanted = _release(release)
    found = {label: dict(trends.measured(history, example, label)).get(wanted) for label in (case, other)}
    if None in found.values():
        missing = [label for label, result in found.items() if result is None]
        raise HistoryDirectiveError(f"{example} · {missing} not measured on {release}")
    return format_change(intervals.ratio(found[case], found[other]), unclear="not clearly different")


def history_time(context: Context, example: str, case: str, release: str, *, runner: str = "cpu") -> str:
    history = _history(context, runner)
    by_release = dict(trends.measured(history, example, case))
    wanted = _release(release)
    if wanted not in by_release:
        raise HistoryDirectiveError(f"{example} · {case!r} was not measured on {release}")
    return format_time(intervals.estimate_s(by_release[wanted]))


def history_span(context: Context, example: str, *, runner: str = "cpu") -> str:
    """Which releases were measured, and on how many CPU models (releases measured on different
    ones are not compared)."""
    history = _history(context, runner)
    measured = [item.release for item in history if example in item.results]
    if not measured:
        return f"none of the {len(ALL_RELEASES)} releases"
    cpus = sorted({trends.cpu_of(history, example, release) or "an unknown CPU" for release in measured})
    where = (f"all on one CPU model ({markdown.text(cpus[0])})" if len(cpus) == 1 else
             f"on {len(cpus)} CPU models (releases measured on different ones are not compared)")
    return f"{len(measured)} of {len(ALL_RELEASES)} releases ({measured[0].name} to {measured[-1].name}), {where}"


HISTORY_DIRECTIVES = {
    "history_trend": history_trend,
    "history_changes": history_changes,
    "history_environments": history_environments,
    "history_sittings": history_sittings,
    "history_drift": history_drift,
    "history_threshold": history_threshold,
    "history_change": history_change,
    "history_time": history_time,
    "history_versus": history_versus,
    "history_span": history_span,
}
