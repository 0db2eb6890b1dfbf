"""The fair-timing page's check of its own intervals: how often a re-measure lands inside them, and
how far each example moved between sittings (the drift that widens them)."""

from __future__ import annotations

from tfspeedlab.analysis.drift import SittingDrift
from tfspeedlab.site.markdown import Markdown, bold, code, table


def coverage_table(by_method: dict[str, list], chosen: str) -> Markdown:
    """Per headline example and interval method: the re-measured speed-ups that landed inside the
    committed 95% interval, and the share; the guide's method in bold."""
    methods = list(by_method)
    first = by_method[methods[0]]
    body = []
    for index, row in enumerate(first):
        cells = [code(row.example), str(row.sittings), str(row.total)]
        for method in methods:
            found = by_method[method][index]
            cells.append(f"{found.landed} ({found.share:.0%})")
        body.append(cells)
    totals = [bold("all"), "", str(sum(row.total for row in first))]
    for method in methods:
        landed, total = sum(row.landed for row in by_method[method]), sum(row.total for row in by_method[method])
        share = f"{landed} ({landed / total:.0%})" if total else "—"
        totals.append(bold(share) if method == chosen else share)
    header = ["Example", "Sittings", "Re-measured speed-ups",
              *(f"Inside, {method}{' (the guide’s)' if method == chosen else ''}" for method in methods)]
    return table(header, [*body, totals])


def coverage_finding(rows: list, expected: float, required: float) -> Markdown:
    """What the chosen method's row of the coverage table says, in one paragraph from its figures."""
    landed, total = sum(row.landed for row in rows), sum(row.total for row in rows)
    if not total:
        return Markdown("")
    share = landed / total
    if share >= required:
        verdict = (f"at least the {required:.0%} the guide aims for "
                   f"(normal theory expects about {expected:.0%})")
        advice = ""
    else:
        verdict = (f"fewer than the {required:.0%} the guide aims for, and than the {expected:.0%} normal theory "
                   f"expects of a fresh estimate")
        advice = (" The sittings differ by more than these intervals allow for: a verdict whose interval "
                  "ends within a few percent of 1× is provisional, and may read otherwise on another day.")
    return Markdown(f"Under the guide's method, **{landed} of {total}** re-measured speed-ups "
                    f"(**{share:.0%}**) landed inside the committed interval: {verdict}.{advice}")


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
