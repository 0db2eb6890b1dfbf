"""A case measured in several processes (runs): its time per call and both kinds of spread.

Nothing is pooled away: the runs stay as measured. ``per_call_s`` is the guide's time per call by
the ``PER_CALL`` estimator — the 10th percentile of all blocks, every process pooled: what a call
costs when nothing else on the machine got in its way (the experiment behind the choice is on "How
to time TensorFlow fairly"), and the time every speed-up and its interval
(``tfspeedlab.core.stats.intervals``) divides. ``median_s`` is the median of the
runs' medians (a typical call); ``relative_iqr`` is the typical spread within a process;
``process_spread`` how far the runs' medians lie apart.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tfspeedlab.core.measure.measurement import Measurement


@dataclass(frozen=True)
class Estimator:
    """A percentile ``q`` (0: the fastest, 50: the median) of each process's blocks, then the median over
    processes (``per_process``), or of all blocks pooled."""

    q: float
    per_process: bool

    def of(self, runs: Sequence[np.ndarray]) -> float:
        """The estimate from each process's block times (``block_times``)."""
        if self.per_process:
            return float(np.median([percentile(run, self.q) for run in runs]))
        return percentile(np.concatenate(runs), self.q)

    def of_resamples(self, pooled: np.ndarray) -> np.ndarray:
        """The estimate of each resample: ``pooled`` is resamples × processes × blocks, NaN-padded."""
        if self.per_process:
            return np.median(_nanpercentile_rows(pooled, self.q), axis=1)
        return _nanpercentile_rows(pooled.reshape(len(pooled), -1), self.q)


def percentile(values: np.ndarray, q: float) -> float:
    """``float(np.percentile(values, q))``, equal to the last bit, without its overhead: a build takes
    tens of thousands of these (a speed-up per process, for every paired interval and drift), and
    NumPy's general path cost more than the sort. NumPy's "linear" method, as ``_nanpercentile_rows``
    says; a NaN anywhere gives NaN, as NumPy does."""
    ordered = np.sort(np.asarray(values, dtype=float), axis=None)
    if ordered.size == 0:
        return float(np.percentile(ordered, q))  # NumPy's own answer to nothing
    if math.isnan(ordered[-1]):  # NaN sorts last
        return math.nan
    count = ordered.size
    virtual = (count - 1) * (q / 100)
    if virtual >= count - 1:
        return float(ordered[-1])
    below = math.floor(virtual)
    gamma = virtual - below
    low, high = float(ordered[below]), float(ordered[below + 1])
    difference = high - low
    return high - difference * (1 - gamma) if gamma >= 0.5 else low + difference * gamma


def _nanpercentile_rows(values: np.ndarray, q: float) -> np.ndarray:
    """``np.nanpercentile(values, q, axis=-1)``, equal to the last bit, in a few whole-array operations.

    NumPy hands each row of a 2-D array to ``nanpercentile`` one at a time, and even grouped by how
    many numbers a row holds, its per-call overhead was most of a cold site build's bootstrap time
    (two bootstraps of thousands of rows per interval). Here every row is sorted at once (NaN last)
    and its two order statistics are interpolated as NumPy's "linear" method does: the virtual index
    ``(n - 1) × q/100``, its floor and the next, the last number where the index reaches the end, and
    NumPy's ``_lerp`` (from the upper neighbour when the weight is at least one half).
    """
    rows = values.reshape(-1, values.shape[-1])
    counts = np.count_nonzero(~np.isnan(rows), axis=1)
    result = np.full(len(rows), np.nan)
    held = counts > 0
    if not held.any():
        return result.reshape(values.shape[:-1])
    count = counts[held]
    virtual = (count - 1) * (q / 100)
    floor = np.floor(virtual).astype(np.intp)
    at_end = virtual >= count - 1
    below = np.where(at_end, count - 1, floor)
    above = np.where(at_end, count - 1, floor + 1)
    ordered = np.sort(rows[held], axis=1)  # NaN last (faster here than a partition of the rows)
    gamma = virtual - np.where(at_end, -1, floor)
    low = np.take_along_axis(ordered, below[:, None], axis=1)[:, 0]
    high = np.take_along_axis(ordered, above[:, None], axis=1)[:, 0]
    difference = high - low
    result[held] = np.where(gamma >= 0.5, high - difference * (1 - gamma), low + difference * gamma)
    return result.reshape(values.shape[:-1])


# The guide's estimator, for every time, speed-up and interval: the 10th percentile of all blocks.
PER_CALL = Estimator(10, per_process=False)


def block_times(runs: Sequence[Measurement]) -> list[np.ndarray]:
    """Each run's block times (seconds per call), as an estimator reads them."""
    return [np.asarray(run.samples_s, dtype=float) for run in runs]


@dataclass(frozen=True)
class Timing:
    runs: tuple[Measurement, ...]

    def __post_init__(self) -> None:
        if not self.runs:
            raise ValueError("a Timing needs at least one run")

    @property
    def per_call_s(self) -> float:
        """The time per call by the ``PER_CALL`` estimator: the 10th percentile of every block of every run."""
        return PER_CALL.of(block_times(self.runs))

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
    def samples_s(self) -> tuple[float, ...]:
        return tuple(sample for run in self.runs for sample in run.samples_s)

    @property
    def blocks(self) -> int:
        return sum(run.blocks for run in self.runs)

    @property
    def calls_per_block(self) -> int:
        return min(run.calls_per_block for run in self.runs)
