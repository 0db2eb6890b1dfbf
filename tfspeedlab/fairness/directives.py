"""Figures of the check on the guide's own intervals, for sentences on the fair-timing page: how a few
examples' speed-ups held up on their own, how re-measured *times* fared against one sitting's
interval, and the narrowest "the same within X%" the drift between sittings allows."""

from __future__ import annotations

import math

from tfspeedlab.core import wording
from tfspeedlab.fairness import coverage as coverage_analysis, drift
from tfspeedlab.fairness.coverage import HEADLINE
from tfspeedlab.render.context import Context, Runner
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import directive


# What each figure reads where the build has no re-measure sittings of a headline example on its
# committed CPU model (a reader's own results, a quick run): the page still builds, and says so.
NO_SITTINGS = "*not measured: these results have no re-measure sittings*"


@directive("coverage_of", "How many of the named headline examples' re-measured speed-ups landed inside the "
                          "committed interval under the guide's method, against its aim: ``14 of 18 inside their "
                          "intervals, 78%, short of the 80% the guide aims for``.")
def coverage_of(context: Context, *examples: str, runner: Runner = "cpu") -> str:
    unknown = [example for example in examples if example not in HEADLINE]
    if unknown or not examples:
        raise DirectiveError(f"coverage_of takes headline examples ({', '.join(HEADLINE)}), not {unknown or 'none'}")
    landings = drift.held_out_landings(context.results[runner], context.remeasures.get(runner) or {})
    found = [landing for example in examples for landing in landings.get(example, [])]
    landed, total = sum(landing.inside for landing in found), sum(len(landing.remeasured) for landing in found)
    if not total:
        return NO_SITTINGS
    required = coverage_analysis.REQUIRED_INSIDE
    aim = ("short of" if landed / total < required else "meeting") + f" the {required:.0%} the guide aims for"
    return f"{landed} of {total} inside their intervals, {landed / total:.0%}, {aim}"


@directive("time_coverage", "Of the headline examples' re-measured times (not speed-ups), how many landed inside "
                            "the committed time's one-sitting 95% interval: ``60 of 120, 50%``.")
def time_coverage(context: Context, *, runner: Runner = "cpu") -> str:
    committed, sittings = context.results[runner], context.remeasures.get(runner) or {}
    found = [landing for example, narrowed in HEADLINE.items() if example in committed
             for landing in coverage_analysis.time_landings(
                 committed[example], list(drift.remeasures_of(example, committed[example], sittings).values()),
                 narrowed)]
    total = sum(len(landing.remeasured) for landing in found)
    if not total:
        return NO_SITTINGS
    landed = sum(landing.inside for landing in found)
    return f"{landed} of {total}, {landed / total:.0%}"


@directive("drift_floor", "The narrowest \"the same within X%\" a drift-widened interval can read on this machine: "
                          "the drift between sittings alone, scaled by its t, from the example that drifts least "
                          "to the one that drifts most (examples without re-measures take the pooled drift): "
                          "``16% to 19%``.")
def drift_floor(context: Context, *, runner: Runner = "cpu") -> str:
    found = drift.for_runner(context.results[runner], context.remeasures.get(runner) or {})
    if not found:
        return NO_SITTINGS
    # An interval of no width of its own, widened by the drift alone, reaches exp(t × drift) either way.
    floors = sorted({wording.same_within_percent(1 / reach, reach)
                     for reach in (math.exp(one.quantile * one.log_sd) for one in found.values())})
    return f"{floors[0]}%" if len(floors) == 1 else f"{floors[0]}% to {floors[-1]}%"
