"""How far a speed-up moves between sittings on one machine, beyond what one sitting's processes show.

Three processes of one sitting say how much a speed-up varies within that sitting. A shared
virtual machine also moves between sittings (other tenants, the host's state by the hour), and
it moves some comparisons more than others: on the committed run of 2026-12-02, the predict
ladder's CNN ``tf.function`` rung was 61× faster than ``predict``, and 90× and 74× in two later
sittings, outside an interval that the sitting's own processes made ±14% wide.

A re-measure sitting of the same comparison gives one deviation from the committed speed-up, on
a log scale. Its expected square is the drift between sittings, counted once for each of the two
sittings, plus each sitting's own sampling variance (the squared standard error of the mean of
its per-process log speed-ups). So the drift's variance is estimated as the mean, over every
comparison and re-measure sitting, of (deviation² − both standard errors²) ÷ 2, and never below
zero. It is a property of the machine and the example, not of one comparison: three sittings
give a comparison too few deviations of its own, so the example's comparisons pool theirs.

An example with re-measure sittings of its own on the committed file's CPU model uses its own
drift; the others use the drift pooled over every example that has some. Nothing is assumed for
a machine with no re-measures (a reader's): its intervals describe one sitting, and say so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tfspeedlab.core.memo import Memo
from tfspeedlab.core.results.cpu import same_cpu
from tfspeedlab.core.results.pool import as_json
from tfspeedlab.core.results.schema import CaseResult, FieldReader, ResultsFile
from tfspeedlab.core.results.timing import PER_CALL
from tfspeedlab.core.stats import intervals
from tfspeedlab.fairness.coverage import HEADLINE, Landing, comparisons, landings


@dataclass(frozen=True)
class SittingDrift:
    """The standard deviation of a speed-up's logarithm between sittings, net of each sitting's own noise."""

    log_sd: float
    # The (comparison, re-measure sitting) deviations it was estimated from, and the sittings.
    deviations: int
    sittings: tuple[str, ...]
    # Estimated from this example's own re-measures (else pooled over the examples that have some).
    own: bool

    @property
    def typical_move(self) -> float:
        """One standard deviation of drift as a factor's share: 0.08 means a speed-up moves by about 8%."""
        return math.exp(self.log_sd) - 1

    @property
    def degrees_of_freedom(self) -> int:
        """The sittings it was estimated from, not its deviations: the deviations of one sitting
        share that sitting's shift, so the independent pieces are the sittings."""
        return len(self.sittings)

    @property
    def quantile(self) -> float:
        """The two-sided 97.5% quantile the drift is scaled by: Student's t on its sittings."""
        return intervals.t975(self.degrees_of_freedom)

    @property
    def widening(self) -> tuple[float, int]:
        """What a case carries for ``intervals.ratio``: the log SD and its degrees of freedom."""
        return self.log_sd, self.degrees_of_freedom


# Each comparison's ``_log_and_variance`` by the samples of its two cases (``intervals.digest``): the
# held-out check (``held_out_landings``) estimates the drift again for every sitting it leaves out,
# from the same files, and two pages ask for it.
LOG_AND_VARIANCE_CACHE: Memo[str, tuple[float, float]] = Memo()


def _log_and_variance(results: ResultsFile, slower: str, faster: str) -> tuple[float, float]:
    """The speed-up's logarithm by the chosen estimator, and the squared standard error of the mean of
    its per-process logarithms (0 with one process: it then adds nothing to subtract)."""
    slow, fast = intervals.runs_of(results.case(slower)), intervals.runs_of(results.case(faster))

    def computed() -> tuple[float, float]:
        count = min(len(slow), len(fast))
        logs = [math.log(PER_CALL.of([slow[i]]) / PER_CALL.of([fast[i]])) for i in range(count)]
        variance = float(np.var(logs, ddof=1)) / count if count > 1 else 0.0
        return math.log(PER_CALL.of(slow) / PER_CALL.of(fast)), variance

    return LOG_AND_VARIANCE_CACHE.get(intervals.digest(slow, fast).key, computed)


def deviations(committed: ResultsFile, remeasures: list[ResultsFile],
               narrowed: Mapping[str, Any] | None = None) -> list[float]:
    """Per comparison the committed table shows and re-measure that has it: (deviation² − both
    sittings' squared standard errors) ÷ 2, an unbiased estimate of the drift's variance."""
    found = []
    for comparison in comparisons(committed, narrowed):
        committed_log, committed_variance = _log_and_variance(committed, comparison.slower, comparison.faster)
        for again in remeasures:
            if {comparison.slower, comparison.faster} <= {case.label for case in again.cases}:
                log, variance = _log_and_variance(again, comparison.slower, comparison.faster)
                found.append(((log - committed_log) ** 2 - variance - committed_variance) / 2)
    return found


def _drift(found: list[float], sittings: tuple[str, ...], own: bool) -> SittingDrift:
    return SittingDrift(math.sqrt(max(float(np.mean(found)), 0.0)), len(found), sittings, own)


def same_machine(committed: ResultsFile, again: ResultsFile) -> bool:
    """Whether ``again`` re-measured ``committed``: the same CPU model (two CPUs differ by more than two
    sittings of one do), and not a sitting already pooled into the committed file. A sitting that
    measured something else (a quick run, other workload parameters, fewer processes) is no
    re-measure on any machine: ``ResultsFileError`` naming its file and field (``check_remeasure``)."""
    check_remeasure(committed, again)
    held = committed.environment.get("sittings") or [committed.environment.get("utc_time")]
    return same_cpu(again.environment, committed.environment) and again.environment.get("utc_time") not in held


# A narrowed run (``--only``) records what it kept in its parameters; the cases it kept are compared
# one by one instead.
NARROWING_PARAMETER = "only"


def check_remeasure(committed: ResultsFile, again: ResultsFile) -> None:
    """Refuse a sitting's file (``ResultsFileError``, its file and field named) unless it repeats the
    committed run as it was: full or quick alike, the same workload parameters, and every case it shares
    with the committed file with the same parameters, timed in as many processes per sitting. A quick
    run's one process and shorter blocks moved small-ops' drift enough to widen every interval of the
    machine twofold; and with one process a sitting has no noise of its own to subtract."""
    reader = FieldReader(again.source or again.example)
    home = committed.source or committed.example
    reader.require(again.quick == committed.quick, "quick",
                   f"is {str(again.quick).lower()}, but {home} is a {'quick' if committed.quick else 'full'} run; "
                   "a re-measure repeats the committed run as it was")
    wanted = {name: value for name, value in committed.params.items() if name != NARROWING_PARAMETER}
    found = {name: value for name, value in again.params.items() if name != NARROWING_PARAMETER}
    for name in sorted(set(wanted) | set(found)):
        reader.require(as_json(found.get(name)) == as_json(wanted.get(name)), f"params.{name[:40]}",
                       f"is {as_json(found.get(name))[:80]}, but {home} has {as_json(wanted.get(name))[:80]}; "
                       "a re-measure times the committed workload")
    labels = {case.label: case for case in committed.cases}
    for index, case in enumerate(again.cases):
        if (kept := labels.get(case.label)) is None:
            continue
        reader.require(as_json(case.params) == as_json(kept.params), f"cases[{index}].params",
                       f"of {case.label[:80]!r} differ from {home}'s; a re-measure times the committed workload")
        counts, wanted_counts = processes_per_sitting(again, case), processes_per_sitting(committed, kept)
        reader.require(counts == wanted_counts, f"cases[{index}].runs",
                       f"of {case.label[:80]!r} come from {_counts(counts)} process(es) per sitting, but {home} "
                       f"timed it in {_counts(wanted_counts)}; a re-measure runs as many (--processes)")


def processes_per_sitting(results: ResultsFile, case: CaseResult) -> frozenset[int]:
    """How many processes timed ``case`` in each sitting ``results`` holds: its runs, or in a file pooled
    from several sittings each one's share (``environment.sitting_runs``, where it adds up to them)."""
    recorded = results.environment.get("sitting_runs")
    counts = isinstance(recorded, list) and bool(recorded) and all(
        isinstance(count, int) and not isinstance(count, bool) and count > 0 for count in recorded)
    return frozenset(recorded) if counts and sum(recorded) == len(case.runs) else frozenset({len(case.runs)})


def _counts(counts: frozenset[int]) -> str:
    return " or ".join(str(count) for count in sorted(counts))


def check_sittings(committed: Mapping[str, ResultsFile], sittings: Mapping[str, Mapping[str, ResultsFile]]) -> None:
    """Every sitting's file of a committed example checked to re-measure it (``check_remeasure``): a
    build refuses a sitting that measured something else, on any CPU model, before any figure reads it."""
    for sitting in sittings.values():
        for example, again in sitting.items():
            if example in committed:
                check_remeasure(committed[example], again)


def remeasures_of(example: str, committed: ResultsFile,
                  sittings: Mapping[str, Mapping[str, ResultsFile]]) -> dict[str, ResultsFile]:
    """Each sitting's re-measure of ``example`` that counts against ``committed``, by sitting."""
    return {name: found[example] for name, found in sittings.items()
            if example in found and same_machine(committed, found[example])}


def for_runner(committed: Mapping[str, ResultsFile],
               sittings: Mapping[str, Mapping[str, ResultsFile]]) -> dict[str, SittingDrift]:
    """Every committed example's drift: its own where it has re-measures (the headline examples), else
    the drift pooled over those that have; empty where no example has any."""
    own, pooled, pooled_sittings = {}, [], set()
    for example, narrowed in HEADLINE.items():
        if example not in committed:
            continue
        found = remeasures_of(example, committed[example], sittings)
        if not found:
            continue
        values = deviations(committed[example], list(found.values()), narrowed)
        if values:
            own[example] = _drift(values, tuple(found), own=True)
            pooled += values
            pooled_sittings |= set(found)
    if not pooled:
        return {}
    shared = _drift(pooled, tuple(sorted(pooled_sittings)), own=False)
    return {example: own.get(example, shared) for example in committed}


def _widened(found: ResultsFile, drift: SittingDrift) -> ResultsFile:
    """``found`` with every case carrying ``drift``, for every interval drawn from it."""
    return replace(found, cases=tuple(replace(case, drift=drift.widening) for case in found.cases))


def attach(committed: Mapping[str, ResultsFile], drifts: Mapping[str, SittingDrift]) -> dict[str, ResultsFile]:
    """The committed files with each case carrying its example's drift."""
    return {example: _widened(found, drifts[example]) if example in drifts else found
            for example, found in committed.items()}


def attach_remeasures(committed: Mapping[str, ResultsFile], sittings: Mapping[str, Mapping[str, ResultsFile]],
                      drifts: Mapping[str, SittingDrift]) -> dict[str, dict[str, ResultsFile]]:
    """The re-measure sittings as a page shows them, each case carrying a drift as a committed file's
    does: a re-measure is a sitting too, and moves between sittings as much. On the committed file's
    CPU model it takes its example's drift; on another, the drift pooled over the re-measured examples
    (no re-measure checked that model). The coverage and drift figures read the sittings unwidened."""
    shared = next((found for found in drifts.values() if not found.own), None)

    def as_shown(example: str, found: ResultsFile) -> ResultsFile:
        own = drifts.get(example)
        home = committed.get(example)
        chosen = own if own is not None and home is not None and same_cpu(home.environment, found.environment) \
            else shared or own
        return found if chosen is None else _widened(found, chosen)

    return {name: {example: as_shown(example, found) for example, found in sitting.items()}
            for name, sitting in sittings.items()}


def attach_history(history: list, drifts: Mapping[str, SittingDrift]) -> list:
    """The release history (``ReleaseResults``, one folder per release) with every case carrying the
    drift pooled over the runner's re-measured examples: its passes are sittings of their own on a
    machine no re-measure has checked, so it is widened as a committed file on another CPU is."""
    shared = next((found for found in drifts.values() if not found.own), None)
    if shared is None:
        return history
    return [replace(item, results={example: _widened(found, shared) for example, found in item.results.items()})
            for item in history]


def held_out_landings(committed: Mapping[str, ResultsFile],
                      sittings: Mapping[str, Mapping[str, ResultsFile]]) -> dict[str, list[Landing]]:
    """Per headline example, where each sitting's re-measures landed against the committed intervals
    under "with drift", the drift estimated from the *other* sittings: no sitting is checked against
    an interval it helped to widen. That drift is scaled by the t the pages use (on every sitting),
    so the check is of the intervals a reader sees, not of wider ones."""
    found: dict[str, list[Landing]] = {}
    published = for_runner(committed, sittings)
    for name, sitting in sittings.items():
        drifts = for_runner(committed, {other: held for other, held in sittings.items() if other != name})
        for example, narrowed in HEADLINE.items():
            if example in committed and example in sitting and same_machine(committed[example], sitting[example]):
                held = drifts.get(example)
                found.setdefault(example, []).extend(
                    landings(committed[example], [sitting[example]], narrowed, "with drift",
                             (held.log_sd, published[example].degrees_of_freedom) if held else None))
    return found
