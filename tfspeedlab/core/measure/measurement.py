"""The raw times of one benchmarked case and the statistics derived from them."""

from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass

# Spread at which a measurement is flagged as noisy: an interquartile range of a
# tenth of the median or more means two runs may disagree by that much, so a
# difference of that size between modes is not evidence (torch.utils.benchmark
# uses the same threshold for its "(! XX%)" marker).
IQR_WARN_THRESHOLD = 0.1


@dataclass(frozen=True)
class Measurement:
    """Per-call times of one case: one sample per timed block.

    Each sample is the mean time of one call within a block of ``calls_per_block``
    back-to-back calls. The statistics are properties so they can never drift
    from the samples they describe.
    """

    samples_s: tuple[float, ...]
    calls_per_block: int
    first_call_s: float
    completion: str
    tracing_count: int | None = None

    def __post_init__(self) -> None:
        if not self.samples_s:
            raise ValueError("a Measurement needs at least one sample")
        if self.calls_per_block < 1:
            raise ValueError("calls_per_block must be at least 1")

    @property
    def blocks(self) -> int:
        return len(self.samples_s)

    @property
    def median_s(self) -> float:
        return statistics.median(self.samples_s)

    @property
    def mean_s(self) -> float:
        return statistics.fmean(self.samples_s)

    @property
    def min_s(self) -> float:
        return min(self.samples_s)

    @property
    def quartiles_s(self) -> tuple[float, float]:
        """First and third quartile (linear interpolation, as numpy's default)."""
        if len(self.samples_s) == 1:
            return self.samples_s[0], self.samples_s[0]
        q1, _, q3 = statistics.quantiles(self.samples_s, n=4, method="inclusive")
        return q1, q3

    @property
    def iqr_s(self) -> float:
        q1, q3 = self.quartiles_s
        return q3 - q1

    @property
    def relative_iqr(self) -> float:
        return self.iqr_s / self.median_s if self.median_s > 0 else 0.0

    @property
    def noisy(self) -> bool:
        return self.relative_iqr >= IQR_WARN_THRESHOLD

    @property
    def total_calls(self) -> int:
        return self.blocks * self.calls_per_block


def per_step(measurement: Measurement, steps_per_call: int) -> Measurement:
    """Per-call samples divided into per-step samples; the first call stays whole."""
    if steps_per_call == 1:
        return measurement
    return dataclasses.replace(
        measurement, samples_s=tuple(sample / steps_per_call for sample in measurement.samples_s)
    )
