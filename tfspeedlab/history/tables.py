"""The tables of the release-history page: a workload's times per release, the material changes
between consecutive releases, and what each release's environment installed."""

from __future__ import annotations

from tfspeedlab.core.results.history import ReleaseResults
from tfspeedlab.core.results.schema import NotInResults
from tfspeedlab.core.stats import intervals, memory_growth
from tfspeedlab.core.units import format_ratio, format_time
from tfspeedlab.core.wording import ONE_PROCESS_NOTE, change_cell, format_change, growth_cell, time_change
from tfspeedlab.history import trends
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.markdown import LEFT, Markdown, code, italic, join, table


def passes_note(gap: trends.PassGap) -> str:
    """Under a table whose no-verdict cells come from a history pooled from passes of one process each:
    the reason, which is not "one process" (start-up's passes timed 8 cold starts, each a fresh process)
    but the passes' disagreement, counted."""
    if gap.cold_starts:
        ran = (f"Each release's {gap.passes * gap.blocks_per_pass} cold starts, each a fresh process, ran "
               f"{gap.blocks_per_pass} in each of {gap.passes} passes.")
    else:
        ran = f"Each release ran one process of {gap.blocks_per_pass} blocks in each of {gap.passes} passes."
    timed = "cold starts" if gap.cold_starts else "blocks"
    return (f"¹ No verdict. {ran} For {gap.apart} of the {gap.pairs} release and case pairs, the two passes' {timed} "
            "did not overlap. An interval would measure that gap between passes, not the release.")


def _noted(history: list[ReleaseResults], example: str, found: Markdown) -> Markdown:
    """``found`` with its one-process note replaced by the passes' reason, where the passes are it."""
    gap = trends.pass_gap(history, example)
    if gap is None or ONE_PROCESS_NOTE not in found:
        return found
    return Markdown(found.replace(ONE_PROCESS_NOTE, passes_note(gap)))


# The most modes one trend table shows: with the release and Keras columns, a phone's width holds three.
TREND_COLUMNS = 3


def trend_table(history: list[ReleaseResults], example: str, workload: str) -> Markdown:
    """Releases × modes (a column per mode keeps the table narrow): each cell the time per call,
    the 10th percentile of all blocks; the last row each mode's newest release against its oldest.
    A workload of more than ``TREND_COLUMNS`` modes gets a table per ``TREND_COLUMNS``, in its order,
    and the Keras version sits below the release in its cell: a phone shows every column."""
    labels = [(trends.mode_label(history, example, label, mode), label)
              for mode, label in trends.workload_groups(history, example)[workload].items()]
    return Markdown("\n\n".join(times_table(history, example, dict(labels[start:start + TREND_COLUMNS]),
                                             keras_with_release=True)
                                 for start in range(0, len(labels), TREND_COLUMNS)))


def times_table(history: list[ReleaseResults], example: str, labels: dict[str, str],
                keras_with_release: bool = False) -> Markdown:
    """Releases × columns (each a case, ``labels``: column → case label): each cell the case's time per
    call on that release; the last row each column's newest release against its oldest. The Keras
    version each release installed is the second column, or in the release's cell (``keras_with_release``)."""
    releases = [item.release for item in history]
    series = {mode: dict(trends.measured(history, example, label)) for mode, label in labels.items()}
    keras = {item.release: (item.environment or {}).get("keras") for item in history}
    rows = [[release.name, code(keras[release]) if keras[release] else "—",
             *(format_time(intervals.estimate_s(measured[release])) if release in measured else "—"
               for measured in series.values())]
            for release in releases]
    changes = []
    for mode, measured in series.items():
        if not measured:
            changes.append("—")
            continue
        first, last = min(measured), max(measured)
        try:
            changes.append(change_cell(trends.across(history, example, labels[mode], first, last))
                           if first != last else "—")
        except trends.DifferentMachines:
            changes.append("not compared (different CPUs)")
    span = f"{releases[-1].name} vs {releases[0].name}" if releases else "change"
    if keras_with_release:  # one column fewer: the version on a line of its own below the release
        found = table([Markdown("Release<br>Keras"), *series],
                      [*([join(release, Markdown("<br>"), version), *times] for release, version, *times in rows),
                       [span, *changes]])
    else:
        found = table(["Release", "Keras", *series], [*rows, [span, "", *changes]])
    return _noted(history, example, found)


def changes_table(history: list[ReleaseResults], example: str) -> Markdown:
    steps = trends.material_steps(history, example)
    if not steps:
        return Markdown(italic(f"No case changed by {format_ratio(trends.MATERIAL_CHANGE)} or more, with its interval "
                               "clear of 1, between consecutive releases."))
    # The change, what the table answers, comes right after the case, and the two times share a cell:
    # five columns ran past a phone's width and cut the change off.
    rows = [[step.case, format_change(step.change), f"{step.before.name} → {step.after.name}",
             f"{format_time(step.old_s)} → {format_time(step.new_s)}"] for step in steps]
    return table(["Case", "Change [95% interval]", "Releases", "Time per call"], rows, [LEFT, LEFT, LEFT, "--:"])


def environments_table(history: list[ReleaseResults], example: str) -> Markdown:
    rows = []
    for item in history:
        record = item.environment or {}
        results = item.results.get(example)
        if item.environment_failure is not None and results is None:
            outcome = f"environment failed: {item.environment_failure.get('error', 'unknown error').splitlines()[0]}"
        elif example in item.failures:
            outcome = f"failed: {item.failures[example].splitlines()[0]}"
        elif results is None:
            outcome = "not run"
        else:
            skipped = results.params.get("not_run") or {}
            outcome = "measured" + (f"; not run: {', '.join(sorted(skipped))}" if skipped else "")
        measured = results.environment["utc_time"][:10] if results is not None else "—"
        rows.append([item.release.name, *(code(record[name]) if record.get(name) else "—" for name in
                                          ("tensorflow", "keras", "tf_keras", "numpy")),
                     (record.get("resolved_at") or "—")[:10], measured, outcome])
    # Two tables, the versions and then the run, each narrow enough for a phone: as one, eight
    # columns ran off its screen.
    # The release is its TensorFlow's major and minor version: that column names the row where it holds one.
    installed = table(["TensorFlow", "Keras", "tf-keras", "NumPy"],
                      [[row[1] if row[1] != "—" else f"{row[0]}: none installed", *row[2:5]] for row in rows],
                      [LEFT] * 4)
    ran = table(["Release", "Packages as of", "Measured", "Outcome"], [[row[0], *row[5:]] for row in rows], [LEFT] * 4)
    return Markdown(f"{installed}\n\n{ran}")


def sittings_table(history: list[ReleaseResults], example: str) -> Markdown:
    """Per release measured twice: how many cases differ between the sittings, and by how much. Where
    the sittings are passes of one process each, no case can be said to differ (``trends.pass_gap``):
    then each case's time in each pass, the times the chart's line per pass draws, and no factor (a
    column of no verdicts beside a bare median factor said nothing a reader could use)."""
    shifts = trends.sitting_shifts(history, example)
    if not shifts:
        return Markdown(italic("Every release was measured in one sitting."))
    if any(shift.differing is None for shift in shifts):
        return pass_times_table(history, example, {label: label for label in trends.case_labels(history, example)})
    rows = [[shift.release.name, f"{shift.differing} of {shift.cases}", time_change(shift.median_change)]
            for shift in shifts]
    return table(["Release", "Cases that differ between the passes", "Second pass against the first (median over its cases)"], rows)


def pass_times_table(history: list[ReleaseResults], example: str, labels: dict[str, str]) -> Markdown:
    """Releases × cases (``labels``: column → case label): each cell the case's time in each pass, in
    the order the passes ran, ``5.47 s → 3.46 s``."""
    by_case = {header: dict(trends.pass_times(history, example, label)) for header, label in labels.items()}
    unknown = [label for label in labels.values() if label not in trends.case_labels(history, example)]
    if unknown:
        raise DirectiveError(f"{example}'s history has no case {unknown}; cases: {trends.case_labels(history, example)}")
    releases = [item.release for item in history if any(item.release in found for found in by_case.values())]
    rows = [[release.name, *(" → ".join(format_time(seconds) for seconds in found[release]) if release in found
                             else "—" for found in by_case.values())]
            for release in releases]
    passes = max((len(times) for found in by_case.values() for times in found.values()), default=2)
    order = " → ".join(f"pass {number}" for number in range(1, passes + 1))
    return table(["Release", *(f"{header}, {order}" for header in labels)], rows)


def growth_table(history: list[ReleaseResults], example: str, labels: dict[str, str],
                 second_half: bool = False) -> Markdown:
    """Releases × loops (``labels``: column → case label): each cell the loop's resident-memory growth
    per call on that release, in the wording module's words, with its interval; over the whole
    followed loop, or over its ``second_half`` (the steady rate, after what a loop gives back early)."""
    rows = []
    for item in history:
        results = item.results.get(example)
        if results is None:
            continue
        keras = (item.environment or {}).get("keras")
        cells = []
        for label in labels.values():
            try:
                found = memory_growth.growth(results.case(label))
                cells.append(growth_cell(found.late_per_call if second_half else found.per_call))
            except NotInResults:
                cells.append("—")
        rows.append([item.release.name, code(keras) if keras else "—", *cells])
    return table(["Release", "Keras", *labels], rows)
