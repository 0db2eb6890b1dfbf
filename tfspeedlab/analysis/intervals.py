"""Speed-ups that reproduce: a stable estimator, a bootstrap interval, and the verdict it allows.

On a shared machine other processes only ever add time, in bursts, and a
whole process can land in a slow state. So a speed-up is not the ratio of two
medians. A case's time for comparisons is the ``PERCENTILE``-th percentile of
all its blocks, every process pooled: what a call costs when nothing else gets
in its way, measured over several processes, and less fragile than the single
fastest block. The choice comes from the experiment on "How to time
TensorFlow fairly" (``ESTIMATORS`` are the candidates it compares).

The interval resamples both levels (processes, then blocks within each), as a
hierarchical bootstrap, with a fixed seed so a site build is reproducible. A
verdict is a word only when the whole interval says it.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tfspeedlab.measure.measurement import Measurement
from tfspeedlab.results.schema import CaseResult, ResultsFile

# The percentile of all blocks (every process pooled) that speed-ups compare.
PERCENTILE = 10.0
CONFIDENCE = 0.95
RESAMPLES = 2000


def _runs(case: CaseResult | Sequence[Measurement]) -> list[np.ndarray]:
    runs = case.runs if isinstance(case, CaseResult) else case
    return [np.asarray(run.samples_s, dtype=float) for run in runs]


# Candidate estimators of a case's time, each from its runs' blocks (the experiment compares them).
ESTIMATORS: dict[str, Callable[[list[np.ndarray]], float]] = {
    "median of all blocks": lambda runs: float(np.median(np.concatenate(runs))),
    "median of process medians": lambda runs: float(np.median([np.median(run) for run in runs])),
    "fastest block": lambda runs: float(min(run.min() for run in runs)),
    "median of process 10th percentiles": lambda runs: float(np.median([np.percentile(run, 10) for run in runs])),
    "10th percentile of all blocks": lambda runs: float(np.percentile(np.concatenate(runs), PERCENTILE)),
}
CHOSEN = "10th percentile of all blocks"


def estimate_s(case: CaseResult | Sequence[Measurement]) -> float:
    """The case's time by the chosen estimator (seconds per call)."""
    return ESTIMATORS[CHOSEN](_runs(case))


@dataclass(frozen=True)
class Ratio:
    """``a ÷ b`` by the chosen estimator, with its bootstrap interval."""

    value: float
    low: float
    high: float

    @property
    def above_one(self) -> bool:
        return self.low > 1.0

    @property
    def below_one(self) -> bool:
        return self.high < 1.0


def _resampled_estimates(runs: list[np.ndarray], rng: np.random.Generator, resamples: int) -> np.ndarray:
    """The chosen estimator on ``resamples`` hierarchical resamples: processes, then blocks in each."""
    count, longest = len(runs), max(len(run) for run in runs)
    chosen = rng.integers(0, count, size=(resamples, count))
    # Resample b pools, at each of its ``count`` places, a fresh block resample of the process chosen there;
    # NaN pads the shorter runs and is ignored by the percentile.
    pooled = np.full((resamples, count, longest), np.nan)
    for place in range(count):
        for index, samples in enumerate(runs):
            rows = np.nonzero(chosen[:, place] == index)[0]
            if rows.size:
                picks = rng.integers(0, len(samples), size=(rows.size, len(samples)))
                pooled[rows, place, :len(samples)] = samples[picks]
    return np.nanpercentile(pooled.reshape(resamples, -1), PERCENTILE, axis=1)


def ratio(a: CaseResult | Sequence[Measurement], b: CaseResult | Sequence[Measurement],
          seed_text: str = "") -> Ratio:
    """``a``'s time over ``b``'s: above 1, ``b`` is faster. The seed comes from ``seed_text``."""
    runs_a, runs_b = _runs(a), _runs(b)
    rng = np.random.default_rng(zlib.crc32(seed_text.encode()))
    ratios = _resampled_estimates(runs_a, rng, RESAMPLES) / _resampled_estimates(runs_b, rng, RESAMPLES)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return Ratio(ESTIMATORS[CHOSEN](runs_a) / ESTIMATORS[CHOSEN](runs_b), float(low), float(high))


def speedup(results: ResultsFile, slower: str, faster: str) -> Ratio:
    """How many times faster ``faster`` is than ``slower``, with its interval."""
    return ratio(results.case(slower), results.case(faster), f"{results.example}|{slower}|{faster}")


def verdict(value: Ratio) -> str:
    """"faster" / "slower" for ``a ÷ b`` only when the whole interval is on one side of 1."""
    if value.above_one:
        return "faster"
    if value.below_one:
        return "slower"
    return "no clear difference"


@dataclass(frozen=True)
class EstimatorStability:
    """How one estimator's speed-up moves between processes, and between halves of them (re-runs)."""

    estimator: str
    all_processes: float
    per_process: tuple[float, ...]
    # The largest relative difference between the speed-ups of two disjoint halves of the processes.
    worst_split_difference: float

    @property
    def process_range(self) -> float:
        """(largest − smallest) per-process speed-up ÷ the speed-up over all processes."""
        return (max(self.per_process) - min(self.per_process)) / self.all_processes


def estimator_stability(results: ResultsFile, slower: str, faster: str) -> list[EstimatorStability]:
    """The experiment behind ``CHOSEN``: each candidate's speed-up over all runs, per run, and per half.

    Runs pair up by process: in a process, every case is timed block by block
    in turn, so run ``i`` of both cases saw the same machine.
    """
    slow_runs, fast_runs = _runs(results.case(slower)), _runs(results.case(faster))
    count = min(len(slow_runs), len(fast_runs))
    if count < 2:
        raise ValueError(f"{results.example}: the estimator experiment needs at least two runs per case")
    halves = [tuple(half) for half in itertools.combinations(range(count), count // 2)]
    found = []
    for name, estimate in ESTIMATORS.items():
        def speedup_of(indices) -> float:
            return estimate([slow_runs[i] for i in indices]) / estimate([fast_runs[i] for i in indices])

        differences = []
        for half in halves:
            other = tuple(i for i in range(count) if i not in half)
            a, b = speedup_of(half), speedup_of(other)
            differences.append(abs(a - b) / min(a, b))
        found.append(EstimatorStability(name, speedup_of(range(count)),
                                        tuple(speedup_of([i]) for i in range(count)), max(differences)))
    return found
