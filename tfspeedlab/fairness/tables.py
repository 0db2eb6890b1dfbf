"""The fair-timing page's check of its own intervals: how often a re-measure lands inside them, and
how far each example moved between sittings (the drift that widens them)."""

from __future__ import annotations

from dataclasses import dataclass

from tfspeedlab.fairness.drift import SittingDrift
from tfspeedlab.render.markdown import Markdown, bold, code, table


def coverage_table(by_method: dict[str, list], chosen: str) -> Markdown:
    """Per headline example and interval method: the re-measured speed-ups that landed inside the
    committed 95% interval, and the share; the guide's method first (a phone shows the first columns)
    and its total in bold."""
    others = [method for method in by_method if method != chosen]
    first = by_method[chosen]

    def share(method: str, index: int) -> str:
        found = by_method[method][index]
        return f"{found.landed} ({found.share:.0%})"

    def total_share(method: str) -> str:
        landed, total = sum(row.landed for row in by_method[method]), sum(row.total for row in by_method[method])
        return f"{landed} ({landed / total:.0%})" if total else "—"

    body = [[code(row.example), share(chosen, index), str(row.sittings), str(row.total),
             *(share(method, index) for method in others)] for index, row in enumerate(first)]
    totals = [bold("all"), bold(total_share(chosen)), f"{sum(row.sittings for row in first)} example-sittings",
              str(sum(row.total for row in first)),
              *(total_share(method) for method in others)]
    header = ["Example", f"Inside, {chosen} (the guide’s)", "Sittings", "Re-measured speed-ups",
              *(f"Inside, {method}" for method in others)]
    return table(header, [*body, totals])


@dataclass(frozen=True)
class SittingSpan:
    """The re-measure sittings a coverage check rests on: how many, and the first and last (UTC)."""

    sittings: int
    first: str
    last: str


def coverage_finding(rows: list, expected: float, required: float, span: SittingSpan) -> Markdown:
    """What the chosen method's row of the coverage table says, in one paragraph from its figures."""
    landed, total = sum(row.landed for row in rows), sum(row.total for row in rows)
    if not total:
        return Markdown("")
    share = landed / total
    if share >= required:
        verdict = (f"That meets the {required:.0%} the guide aims for; normal theory expects about "
                   f"{expected:.0%}.")
    else:
        verdict = (f"That falls short of the {required:.0%} the guide aims for, and of the {expected:.0%} normal "
                   "theory expects of a fresh estimate. The sittings differ by more than these intervals allow "
                   "for: a verdict whose interval ends within a few percent of 1× may read otherwise on another "
                   "day.")
    # The speed-ups of one sitting share that sitting's shift, whichever example they come from: the
    # independent checks are the sittings, not the speed-ups.
    caution = (f" The speed-ups come from {span.sittings} sittings on one host, taken between {span.first} and "
               f"{span.last} UTC, each re-measuring every example. They are closer to {span.sittings} independent "
               f"checks than to {total}: enough to show a method that falls far short, too few to pin the rate "
               "down. They say nothing of how the machine moves over weeks."
               if span.sittings < total else "")
    return Markdown(f"Under the guide's method, **{landed} of {total}** re-measured speed-ups, **{share:.0%}**, "
                    f"landed inside the committed interval. {verdict}{caution}")


def drift_table(drifts: dict[str, SittingDrift]) -> Markdown:
    """Per example with re-measures of its own: the sittings, the deviations and the typical move between
    sittings; then the pooled figure every other example's intervals take."""
    own = {example: found for example, found in drifts.items() if found.own}
    body = [[code(example), str(len(found.sittings)), str(found.deviations), f"±{found.typical_move:.1%}",
             f"{found.quantile:.2f}"] for example, found in own.items()]
    pooled = next((found for found in drifts.values() if not found.own), None)
    if pooled is not None:
        body.append([bold("every other example (pooled)"), str(len(pooled.sittings)), str(pooled.deviations),
                     bold(f"±{pooled.typical_move:.1%}"), f"{pooled.quantile:.2f}"])
    return table(["Example", "Re-measure sittings", "Deviations", "Drift between sittings (1 SD)",
                  "Scaled by (t, 97.5%)"], body)
