"""A case measured in several processes (runs): its time per call and both kinds of spread.

Nothing is pooled away: the runs stay as measured. ``per_call_s`` is the guide's time per call —
the ``PER_CALL_PERCENTILE``-th percentile of all blocks, every process pooled: what a call costs
when nothing else on the machine got in its way (the experiment behind the choice is on "How to
time TensorFlow fairly"), and the time every speed-up divides. ``median_s`` is the median of the
runs' medians (a typical call); ``relative_iqr`` is the typical spread within a process;
``process_spread`` how far the runs' medians lie apart.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np

from tfspeedlab.core.measure.measurement import IQR_WARN_THRESHOLD, Measurement

# The percentile of all blocks that is a case's time per call.
PER_CALL_PERCENTILE = 10


@dataclass(frozen=True)
class Timing:
    runs: tuple[Measurement, ...]

    def __post_init__(self) -> None:
        if not self.runs:
            raise ValueError("a Timing needs at least one run")

    @property
    def per_call_s(self) -> float:
        """The time per call: the ``PER_CALL_PERCENTILE``-th percentile of every block of every run."""
        return float(np.percentile(np.asarray(self.samples_s, dtype=float), PER_CALL_PERCENTILE))

    @property
    def median_s(self) -> float:
        return statistics.median(run.median_s for run in self.runs)

    @property
    def first_call_s(self) -> float:
        """The first call of a fresh process (tracing, compiling), typical over the runs."""
        return statistics.median(run.first_call_s for run in self.runs)

    @property
    def quartiles_s(self) -> tuple[float, float]:
        """Typical first and third quartile within a process."""
        return (statistics.median(run.quartiles_s[0] for run in self.runs),
                statistics.median(run.quartiles_s[1] for run in self.runs))

    @property
    def iqr_s(self) -> float:
        q1, q3 = self.quartiles_s
        return q3 - q1

    @property
    def relative_iqr(self) -> float:
        return self.iqr_s / self.median_s

    @property
    def process_spread(self) -> float:
        """(slowest run's median − fastest run's median) ÷ median: 0 for a single run."""
        medians = [run.median_s for run in self.runs]
        return (max(medians) - min(medians)) / self.median_s

    @property
    def spread(self) -> float:
        """The larger of the two spreads: what the page's ``(! N%)`` mark shows."""
        return max(self.relative_iqr, self.process_spread)

    @property
    def noisy(self) -> bool:
        return self.spread >= IQR_WARN_THRESHOLD

    @property
    def samples_s(self) -> tuple[float, ...]:
        return tuple(sample for run in self.runs for sample in run.samples_s)

    @property
    def min_s(self) -> float:
        return min(run.min_s for run in self.runs)

    @property
    def blocks(self) -> int:
        return sum(run.blocks for run in self.runs)

    @property
    def calls_per_block(self) -> int:
        return min(run.calls_per_block for run in self.runs)

    @property
    def completion(self) -> str:
        return self.runs[0].completion

    @property
    def tracing_count(self) -> int | None:
        return self.runs[0].tracing_count
