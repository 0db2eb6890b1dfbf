"""Which cases of a results file divide into speed-ups: each case against the baseline its example
declares, in the example's own layout, as its page pairs them.

A speed-up between two cases timed in the same processes is what carries over from one machine to
another (the same code on a faster CPU is faster in every mode); a raw time is not. So ``compare``
leads with these pairs where two runs come from different CPU models.

* ``Cases``: every case against the workload's baseline case (``graph`` against ``eager``); a
  training case that did not train while its baseline did has no speed-up, as on its page.
* ``Sweep``: at each swept value, every series against the baseline series at that value
  (``graph · 100 ops`` against ``eager · 100 ops``).
* ``Grid``: in each column (and part of a split grid), every row against the baseline row there.
* ``OpLayers``, or a layout without a baseline: no pairs (its pages compare no modes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.spec.layout import Cases, Grid, Sweep
from tfspeedlab.core.stats.summary import untrained_cases


@dataclass(frozen=True)
class SpeedupPair:
    """``case`` timed against ``baseline``: the speed-up is the baseline's time ÷ the case's."""

    case: str
    baseline: str


def speedup_pairs(results: ResultsFile) -> list[SpeedupPair]:
    """The file's speed-ups, in the order of its cases (see the module's note)."""
    layout = results.layout
    if isinstance(layout, Cases):
        return _against_baseline_case(results)
    if isinstance(layout, Sweep) and layout.baseline is not None:
        return _within_groups(results.cases, lambda case: case.params[layout.parameter],
                              lambda case: case.params[layout.series] == layout.baseline)
    if isinstance(layout, Grid) and layout.baseline is not None:
        return _within_groups(
            results.cases,
            lambda case: (case.params[layout.split] if layout.split else None, case.params[layout.columns]),
            lambda case: case.params[layout.rows] == layout.baseline)
    return []


def _against_baseline_case(results: ResultsFile) -> list[SpeedupPair]:
    if results.baseline is None:
        return []
    untrained = untrained_cases(results)
    return [SpeedupPair(case.label, results.baseline) for case in results.cases
            if case.label != results.baseline and case.label not in untrained]


def _within_groups(cases, group_of, is_baseline) -> list[SpeedupPair]:
    """Each case that is not a baseline, against the baseline case of its group (where there is one)."""
    baselines = {_key(group_of(case)): case.label for case in cases if is_baseline(case)}
    return [SpeedupPair(case.label, baselines[_key(group_of(case))]) for case in cases
            if not is_baseline(case) and _key(group_of(case)) in baselines]


def _key(value: Any) -> str:
    """A parameter value as a dictionary key: a results file's parameters may hold lists."""
    return json.dumps(value, sort_keys=True, default=str)
