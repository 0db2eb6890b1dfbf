"""A reader's saved Keras model timed on several Keras 3 backends: each call's time per call and first
call on each, its speed-up over the first backend named (with the guide's interval), the calls after
which a backend's costlier first call is paid back, and the verdict.

The runs of each backend come from fresh processes taken in turn (tensorflow, jax, torch, tensorflow,
jax, torch, …), so run ``i`` of every backend saw the machine at about the same time, as the cases
of a full run do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tfspeedlab.core import wording
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.cost_model import break_even
from tfspeedlab.core.units import format_time
from tfspeedlab.diagnosis.report import Report


# The guide's page that explains the report.
LINKS = (("keras-backends.md", "Which Keras backend is fastest?"),)


@dataclass(frozen=True)
class Comparison:
    """A backend's call against the reference backend's same call."""

    call: str
    backend: str
    speedup: intervals.Ratio  # the reference's time ÷ this backend's
    pays_back_after: float | None  # calls; None: not clearly faster, so never


@dataclass(frozen=True)
class BackendDiagnosis:
    target: str
    batch: int
    backends: tuple[str, ...]  # the first is the reference
    # Each call (``predict``, ``model(x)``, ``train_on_batch``) → each backend it ran on → its case,
    # one run per process.
    calls: dict[str, dict[str, CaseResult]]
    # (call, backend) → why the call could not run on that backend.
    unavailable: dict[tuple[str, str], str] = field(default_factory=dict)
    jit_compile: dict[str, bool] = field(default_factory=dict)  # what "auto" resolved to, per backend
    interrupted: bool = False

    @property
    def reference(self) -> str:
        return self.backends[0]

    def comparisons(self) -> list[Comparison]:
        found = []
        for call, by_backend in self.calls.items():
            reference = by_backend.get(self.reference)
            if reference is None:
                continue
            for backend in self.backends[1:]:
                other = by_backend.get(backend)
                if other is None:
                    continue
                speedup = intervals.ratio(reference, other)
                first_calls_s = reference.measurement.first_call_s, other.measurement.first_call_s
                if not speedup.above_one:
                    after = None
                elif first_calls_s[1] <= first_calls_s[0]:
                    after = 0.0  # nothing to pay back: its first call was no costlier
                else:
                    after = break_even(intervals.estimate_s(reference), first_calls_s[0], intervals.estimate_s(other),
                                       first_calls_s[1])
                found.append(Comparison(call, backend, speedup, after))
        return found

    @property
    def verdict(self) -> str:
        lines = []
        for call in self.calls:
            wins = [found for found in self.comparisons() if found.call == call and found.speedup.above_one]
            if not wins:
                lines.append(f"{call}: no backend beat {self.reference}; none had its whole interval above 1×.")
                continue
            best = max(wins, key=lambda found: found.speedup.value)
            paid = ("its first call was no costlier" if best.pays_back_after == 0 else
                    f"its first call is paid back after {_calls(best.pays_back_after)}")
            lines.append(f"{call}: against {self.reference}, {best.backend} ran "
                         f"{wording.format_speedup(best.speedup)}; {paid}.")
        return "\n".join(lines)


def _calls(count: float | None) -> str:
    if count is None:
        return "never"
    if count == 0:
        return "no calls (its first call was no costlier)"
    return f"{count:,.0f} call{'s' if count != 1 else ''}"


def report(diagnosis: BackendDiagnosis) -> Report:
    """The report, within 80 columns: the verdict a line per call."""
    processes = max((len(case.runs) for by_backend in diagnosis.calls.values() for case in by_backend.values()),
                    default=0)
    lines = [f"tfspeedlab diagnose {diagnosis.target} --backends {','.join(diagnosis.backends)} "
             f"--batch {diagnosis.batch}",
             f"Keras 3 backends, batch {diagnosis.batch}, {processes} fresh process(es) per backend, "
             f"against {diagnosis.reference}",
             "jit_compile=\"auto\" resolved to: " + ", ".join(
                 f"{backend} {'XLA/compiled' if jit else 'not compiled'}"
                 for backend, jit in diagnosis.jit_compile.items())]
    comparisons = {(found.call, found.backend): found for found in diagnosis.comparisons()}
    header = f"{'call':<15}{'backend':<11}{'per call':>9}{'first call':>11}  against {diagnosis.reference}"
    table = [header, "-" * len(header)]
    for call, by_backend in diagnosis.calls.items():
        for backend in diagnosis.backends:
            if backend not in by_backend:
                if (call, backend) in diagnosis.unavailable:
                    table.append(f"{call:<15}{backend:<11}could not run: {diagnosis.unavailable[call, backend]}"[:80])
                continue
            compared = comparisons.get((call, backend))
            against = "—" if compared is None else wording.page_speedup(compared.speedup)
            table.append(f"{call:<15}{backend:<11}{format_time(intervals.estimate_s(by_backend[backend])):>9}"
                         f"{format_time(by_backend[backend].measurement.first_call_s):>11}  {against}")
            if compared is not None and compared.pays_back_after:
                table.append(f"{'':<26}first call paid back after {_calls(compared.pays_back_after)}")
    interrupted = "\nInterrupted: the backends not yet measured are missing." if diagnosis.interrupted else ""
    return Report(diagnosis.target, ("\n".join(lines), "\n".join(table)), diagnosis.verdict + interrupted, LINKS)


def to_json(diagnosis: BackendDiagnosis) -> dict[str, Any]:
    def outcome(call: str, backend: str) -> dict[str, Any] | None:
        """The call's times on the backend, or its error; None where it was not measured there."""
        case = diagnosis.calls[call].get(backend)
        if case is None:
            error = diagnosis.unavailable.get((call, backend))
            return None if error is None else {"error": error}
        return {"per_call_s": intervals.estimate_s(case), "first_call_s": case.measurement.first_call_s,
                "samples_s": [list(run.samples_s) for run in case.runs]}

    return {
        "kind": "keras backends",
        "target": diagnosis.target,
        "batch": diagnosis.batch,
        "backends": list(diagnosis.backends),
        "jit_compile": dict(diagnosis.jit_compile),
        "interrupted": diagnosis.interrupted,
        "calls": {call: {backend: found for backend in diagnosis.backends if (found := outcome(call, backend))}
                  for call in diagnosis.calls},
        "comparisons": [{"call": found.call, "backend": found.backend, "speedup": found.speedup.value,
                         "low": found.speedup.low, "high": found.speedup.high,
                         "pays_back_after": found.pays_back_after} for found in diagnosis.comparisons()],
        "verdict": diagnosis.verdict,
    }
