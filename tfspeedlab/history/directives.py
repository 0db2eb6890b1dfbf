"""The release history (``tfspeedlab history`` results): trend charts and tables, and one case's
change between releases.

A build from a results tree with no history for the runner (a quick run's tree) shows the
not-measured note, and inline figures read "not measured in this build's results"; a case or
release named wrongly in a tree that has a history still stops the build.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from tfspeedlab.core.results.history import ReleaseResults
from tfspeedlab.core.results.schema import CaseResult, MissingCaseError
from tfspeedlab.core.spec.releases import ALL_RELEASES, Release, UnknownReleaseError, parse_selection
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.units import format_ratio, format_time
from tfspeedlab.core.wording import format_change
from tfspeedlab.history import charts as history_charts, tables as history_tables, trends
from tfspeedlab.render import markdown
from tfspeedlab.render.charts import THEMES
from tfspeedlab.render.context import Context, Runner
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import directive
from tfspeedlab.render.runners import RUNNER_TITLES

HISTORY_CHART_DIR = "assets/results/{runner}/history"


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

    return context.tabs(body)


def _history(context: Context, runner: str) -> list[ReleaseResults]:
    history = context.history.get(runner) or []
    if not history:  # a results tree without a history (a quick run's): the page still builds
        raise MissingCaseError(f"no release history under {context.results_root / runner}", True)
    return history


def _release(text: str) -> Release:
    try:
        found = parse_selection(text)
    except UnknownReleaseError as error:
        raise DirectiveError(str(error)) from None
    if len(found) != 1:
        raise DirectiveError(f"{text!r} names {len(found)} releases; a history figure reads one")
    return found[0]


def _trend_images(context: Context, runner: str, history: list[ReleaseResults], example: str, workload: str) -> str:
    groups = trends.workload_groups(history, example)
    if workload not in groups:
        raise DirectiveError(f"no workload {workload!r} in the {example} history; workloads: {list(groups)}")
    quantities = history_charts.trend_quantities(history, example, workload)
    # Cold starts (the startup example) are no time per call: the alt text says what the chart draws.
    cold = bool(quantities) and all(quantity.startswith("cold start") for quantity in quantities.values())
    alt = ("Start-up on every release: cold-start times, a line per case and pass" if cold
           else f"{markdown.text(workload)}: time per call on every release")
    return "\n\n".join(f"![{alt} ({theme})]"
                        f"({context.relative(chart_uri(runner, example, workload, theme))}#only-{theme})"
                        for theme in THEMES)


@directive("history_trend", "Runner tabs: the workload's trend chart across releases and its table of times per release.")
def history_trend(context: Context, example: str, workload: str) -> str:
    def render(runner: str, history: list[ReleaseResults]) -> str:
        return "\n\n".join([_trend_images(context, runner, history, example, workload),
                             history_tables.trend_table(history, example, workload)])

    return _history_tabs(context, render)


@directive("history_chart", "Runner tabs: the workload's trend chart across releases alone (an example without "
                            "workloads has one, ``re-measured on every release``: its history cases).")
def history_chart(context: Context, example: str, workload: str) -> str:
    return _history_tabs(context, lambda runner, history: _trend_images(context, runner, history, example, workload))


@directive("history_changes", "Runner tabs: every material change between consecutive releases, largest first.")
def history_changes(context: Context, example: str) -> str:
    return _history_tabs(context, lambda runner, history: history_tables.changes_table(history, example))


@directive("history_environments", "Runner tabs: what each release's environment installed, and how its run ended.")
def history_environments(context: Context, example: str) -> str:
    return _history_tabs(context, lambda runner, history: history_tables.environments_table(history, example))


@directive("history_sittings", "Runner tabs: per release measured in two passes, how far its cases moved between them; "
                               "where each pass was one process, each case's time in each pass.")
def history_sittings(context: Context, example: str) -> str:
    return _history_tabs(context, lambda runner, history: history_tables.sittings_table(history, example))


@directive("history_passes", "Runner tabs: per release measured in passes, the named cases' time in each pass, as "
                             "the chart's line per pass draws it (``HEADER=CASE`` or ``CASE``, a column each).")
def history_passes(context: Context, example: str, *cases: str) -> str:
    columns = _columns(cases)
    return _history_tabs(context, lambda runner, history: history_tables.pass_times_table(history, example, columns))


@directive("history_drift", "The largest median move of one release's cases between its two passes (``1.18×``).")
def history_drift(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    drift = trends.largest_drift(_history(context, runner), example)
    if drift is None:
        raise DirectiveError(f"no release of {example} was measured in two passes")
    return format_ratio(drift)


@directive("history_pass_move", "The largest move of one case of one release between its two passes, as the "
                                "per-pass table gives them, and where: ``1.58×, for import tensorflow on 2.12`` "
                                "(the case as code).")
def history_pass_move(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    move = trends.largest_pass_move(_history(context, runner), example)
    if move is None:
        raise DirectiveError(f"no release of {example} was measured in two passes")
    return f"{format_ratio(move.factor)}, for {markdown.code(move.case)} on {move.release.name}"


@directive("history_threshold", "The smallest change the changes table lists (``1.25×``).")
def history_threshold(context: Context) -> str:
    return format_ratio(trends.MATERIAL_CHANGE)


@directive("history_change", "One case from release BEFORE to release AFTER: ``1.52× slower [1.41–1.63×]``.")
def history_change(context: Context, example: str, case: str, before: str, after: str, *, runner: Runner = "cpu") -> str:
    return format_change(trends.across(_history(context, runner), example, case, _release(before),
                                       _release(after)))


@directive("history_versus", "Two cases on one release, CASE's time against OTHER's: ``4.27× slower [3.90–4.61×]``.")
def history_versus(context: Context, example: str, case: str, other: str, release: str, *,
                   runner: Runner = "cpu") -> str:
    history = _history(context, runner)
    wanted = _release(release)
    found = {label: dict(trends.measured(history, example, label)).get(wanted) for label in (case, other)}
    if None in found.values():
        missing = [label for label, result in found.items() if result is None]
        raise DirectiveError(f"{example} · {missing} not measured on {release}")
    return format_change(trends.release_ratio(history, example, (wanted, found[case]), (wanted, found[other])))


def _on_release(context: Context, example: str, case: str, release: str, runner: Runner) -> CaseResult:
    by_release = dict(trends.measured(_history(context, runner), example, case))
    wanted = _release(release)
    if wanted not in by_release:
        raise DirectiveError(f"{example} · {case!r} was not measured on {release}")
    return by_release[wanted]


@directive("history_time", "One case's time on one release, by the guide's estimator.")
def history_time(context: Context, example: str, case: str, release: str, *, runner: Runner = "cpu") -> str:
    return format_time(intervals.estimate_s(_on_release(context, example, case, release, runner)))


@directive("history_version", "The version of a package (tensorflow, keras, tf_keras, numpy) a release's "
                              "environment installed: ``3.13.2``.")
def history_version(context: Context, example: str, release: str,
                    package: Literal["tensorflow", "keras", "tf_keras", "numpy"], *, runner: Runner = "cpu") -> str:
    wanted = _release(release)
    item = next((item for item in _history(context, runner) if item.release == wanted), None)
    if item is None or example not in item.results:
        raise DirectiveError(f"{example} was not measured on {release}")
    return item.results[example].environment.get(package) or "not installed"


@directive("history_span", "Which releases were measured: ``10 of 10 releases (2.12 to 2.21)``, and on how many CPU models.")
def history_span(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    history = _history(context, runner)
    measured = [item.release for item in history if example in item.results]
    if not measured:
        return f"none of the {len(ALL_RELEASES)} releases"
    cpus = sorted({trends.cpu_of(history, example, release) or "an unknown CPU" for release in measured})
    environments = [item.results[example].environment for item in history if example in item.results]
    if len(cpus) > 1:
        where = f"on {len(cpus)} CPU models (releases measured on different ones are not compared)"
    elif any(environment.get(name) is not None for environment in environments
             for name in ("cpu_family", "cpu_flags")):
        where = f"all on one CPU model, {markdown.text(context.cpu_name.with_sets(environments[0]))}"
    else:  # files older than the harness's CPU fields: one machine, but which model it was is unknown
        where = (f"all on one machine whose CPU model was not recorded (its name only: "
                 f"{markdown.text(cpus[0])}), so no other page's run can be called the same CPU model or another")
    # Each file's utc_time is its last sitting's; a pooled file lists every sitting it holds.
    times = sorted(moment[:16].replace("T", " ") for environment in environments
                   for moment in (environment.get("sittings") or [environment["utc_time"]]))
    return (f"{len(measured)} of {len(ALL_RELEASES)} releases ({measured[0].name} to {measured[-1].name}), "
            f"{times[0]} to {times[-1]} UTC, {where}")


def _columns(cases: tuple[str, ...]) -> dict[str, str]:
    """Each ``HEADER=CASE`` argument as header → case label (a bare case label heads its own column)."""
    if not cases:
        raise DirectiveError("name at least one case, as HEADER=CASE or CASE")
    return dict((header, label) if equals else (case, case)
                for case in cases for header, equals, label in [case.partition("=")])


@directive("history_times", "Runner tabs: the named cases' times on every release (``HEADER=CASE`` or ``CASE``, a "
                            "column each), and the newest release against the oldest.")
def history_times(context: Context, example: str, *cases: str) -> str:
    columns = _columns(cases)
    return _history_tabs(context, lambda runner, history: history_tables.times_table(history, example, columns))


@directive("history_growth", "Runner tabs: the named loops' resident-memory growth per call on every release "
                             "(``HEADER=CASE`` or ``CASE``, a column each).")
def history_growth(context: Context, example: str, *cases: str) -> str:
    columns = _columns(cases)
    return _history_tabs(context, lambda runner, history: history_tables.growth_table(history, example, columns))


@directive("history_late_growth", "As ``history_growth``, over each loop's second half: the steady rate, after "
                                  "what a loop gives back early.")
def history_late_growth(context: Context, example: str, *cases: str) -> str:
    columns = _columns(cases)
    return _history_tabs(context, lambda runner, history: history_tables.growth_table(history, example, columns,
                                                                                      second_half=True))
