"""Speed-ups that reproduce: a stable estimator, a bootstrap interval, and the verdict it allows.

On a shared machine other processes only ever add time, in bursts, and a
whole process can land in a slow state. So a speed-up is not the ratio of two
medians. A case's time for comparisons is its time per call (``Timing.per_call_s``,
by the ``PER_CALL`` estimator): the 10th percentile of all its blocks, every
process pooled, what a call costs when nothing else gets in its way, measured
over several processes, and less fragile than the single fastest block. The
choice comes from the experiment on "How to time TensorFlow fairly"
(``ESTIMATORS`` are the candidates it compares).

The interval resamples both levels (processes, then blocks within each), as a
hierarchical bootstrap, with a fixed seed so a site build is reproducible. A
verdict is a word only when the whole interval says it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.memo import Memo
from tfspeedlab.core.results.schema import CaseResult, ResultsFile
from tfspeedlab.core.results.timing import PER_CALL, Estimator, block_times

CONFIDENCE = 0.95
RESAMPLES = 2000


def runs_of(case: CaseResult | Sequence[Measurement]) -> list[np.ndarray]:
    """Each process's block times (seconds per call) of a case, or of a list of runs."""
    return block_times(case.runs if isinstance(case, CaseResult) else case)


# The candidates the experiment compares; the last, ``CHOSEN``, is the guide's (``Timing.per_call_s``).
CHOSEN = "10th percentile of all blocks"
ESTIMATORS: dict[str, Estimator] = {
    "median of all blocks": Estimator(50, per_process=False),
    "median of process medians": Estimator(50, per_process=True),
    "fastest block": Estimator(0, per_process=False),
    "median of process 10th percentiles": Estimator(10, per_process=True),
    CHOSEN: PER_CALL,
}


def estimate_s(case: CaseResult | Sequence[Measurement]) -> float:
    """The case's time per call (seconds), as ``Timing.per_call_s``, also for a list of runs."""
    return PER_CALL.of(runs_of(case))


@dataclass(frozen=True)
class Ratio:
    """``a ÷ b`` by the chosen estimator, with its bootstrap interval."""

    value: float
    low: float
    high: float
    # The processes the less-measured side was timed in (None: not from runs, e.g. a test's figure).
    processes: int | None = None
    # The between-sittings drift (SD of the log speed-up) folded into the interval; 0: one sitting's.
    drift: float = 0.0

    @property
    def one_process(self) -> bool:
        """Timed in a single process on one side: no interval between processes, so no verdict."""
        return self.processes is not None and self.processes < 2

    @property
    def above_one(self) -> bool:
        return self.low > 1.0

    @property
    def below_one(self) -> bool:
        return self.high < 1.0


@dataclass(frozen=True)
class Estimate:
    """A figure derived from several cases (a difference of two times, a fitted cost, a break-even),
    with its 95% interval from the same figure on every hierarchical resample of those cases."""

    value: float
    low: float
    high: float

    @property
    def holds_zero(self) -> bool:
        """Whether the interval reaches across 0: a difference this run cannot tell from none."""
        return self.low <= 0 <= self.high


def estimate_of(point: float, resamples: np.ndarray) -> Estimate:
    """``point`` with the central 95% of ``resamples`` (the same figure on each resample) as its interval."""
    return Estimate(float(point), *_central(resamples))


def _central(resamples: np.ndarray) -> tuple[float, float]:
    """The ends of the central ``CONFIDENCE`` of ``resamples``."""
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(np.asarray(resamples, dtype=float), [tail, 100 - tail])
    return float(low), float(high)


def _resampled_estimates(runs: list[np.ndarray], rng: np.random.Generator, resamples: int) -> np.ndarray:
    """The chosen estimator on ``resamples`` hierarchical resamples: processes, then blocks in each."""
    count, longest = len(runs), max(len(run) for run in runs)
    chosen = rng.integers(0, count, size=(resamples, count))
    # Resample b holds, at each of its ``count`` places, a fresh block resample of the process chosen
    # there; NaN pads the shorter runs and is ignored by the percentiles.
    pooled = np.full((resamples, count, longest), np.nan)
    for place in range(count):
        for index, samples in enumerate(runs):
            rows = np.nonzero(chosen[:, place] == index)[0]
            if rows.size:
                picks = rng.integers(0, len(samples), size=(rows.size, len(samples)))
                pooled[rows, place, :len(samples)] = samples[picks]
    return PER_CALL.of_resamples(pooled)


@dataclass(frozen=True)
class SamplesDigest:
    """The samples of one or more cases, in order, read once. ``key`` (SHA-256 over the run lengths, the
    samples and how an interval is taken) names a kept interval or resample: a 32-bit key over the
    thousands a build keeps could collide. ``seed`` (CRC-32 of the same samples) seeds their bootstrap,
    so a comparison gets one interval wherever a page asks: every printed interval was drawn with it."""

    key: str
    seed: int


def digest(*cases: list[np.ndarray]) -> SamplesDigest:
    """The digest of the cases' block times (``runs_of``), a ``|`` marking where one ends and the next begins."""
    key, seed = hashlib.sha256(f"{CHOSEN}|{RESAMPLES}|{CONFIDENCE}".encode()), 0
    for index, runs in enumerate(cases):
        if index:
            key.update(b"|")
            seed = zlib.crc32(b"|", seed)
        for run in runs:
            samples = np.ascontiguousarray(run, dtype=np.float64).tobytes()
            key.update(len(run).to_bytes(4, "little") + samples)
            seed = zlib.crc32(samples, seed)
    return SamplesDigest(key.hexdigest(), seed)


# resampled_estimates by its samples, resamples and seed ("KEY/RESAMPLES/SEED"): a page's fitted lines
# and trend charts ask for the same cases again and again within a build, and a site build keeps them
# for the next one (``tfspeedlab.site.build_cache``). Keyed by the samples, as ``INTERVAL_CACHE``.
RESAMPLED_CACHE: Memo[str, np.ndarray] = Memo()


def resampled_estimates(case: CaseResult, resamples: int = RESAMPLES, seed: int | None = None) -> np.ndarray:
    """The case's time by the chosen estimator on ``resamples`` hierarchical resamples (seeded from its
    samples unless ``seed`` is given): for intervals of figures derived from several cases. Read only."""
    runs = runs_of(case)
    found = digest(runs)

    def resampled() -> np.ndarray:
        estimates = _resampled_estimates(runs, np.random.default_rng(found.seed if seed is None else seed), resamples)
        estimates.flags.writeable = False  # shared by every caller
        return estimates

    return RESAMPLED_CACHE.get(f"{found.key}/{resamples}/{seed}", resampled)


def difference(a: CaseResult, b: CaseResult) -> Estimate:
    """``a``'s time less ``b``'s (seconds per call), with the interval of that difference over both
    cases' hierarchical resamples: what one case's call costs beyond the other's."""
    return estimate_of(estimate_s(a) - estimate_s(b), resampled_estimates(a) - resampled_estimates(b))


# How a ratio's interval is taken (the coverage experiment on "How to time TensorFlow fairly" chose it):
# * "hierarchical bootstrap": processes, then blocks within each, resampled for each case apart;
# * "paired processes": the ratio in each process (the cases took turns block by block in it), and a
#   t interval on their logarithms around the pooled ratio — it widens as the processes disagree
#   and as there are fewer of them, which a bootstrap of three processes cannot;
# * "wider of both": each end from whichever of the two reaches further.
# * "with drift": the wider of both, each end widened by the drift between sittings measured on the
#   machine (``tfspeedlab.fairness.drift``), added in quadrature on the log scale: what a re-measure
#   on another day can move on top of what this sitting's processes show.
METHODS = ("hierarchical bootstrap", "paired processes", "wider of both", "with drift")
METHOD = "with drift"
# Two-sided 97.5% quantiles of Student's t by degrees of freedom (no SciPy for thirty numbers).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)
NORMAL_975 = 1.96


def t975(degrees_of_freedom: int) -> float:
    """Student's two-sided 97.5% quantile (1.96 past thirty degrees of freedom, where t is within 4% of it)."""
    if degrees_of_freedom < 1:
        raise ValueError(f"t needs at least one degree of freedom, not {degrees_of_freedom}")
    return _T975[degrees_of_freedom - 1] if degrees_of_freedom <= len(_T975) else NORMAL_975


def _case_drift(case: CaseResult | Sequence[Measurement]) -> tuple[float, int]:
    if isinstance(case, CaseResult) and case.drift is not None:
        return case.drift
    return 0.0, 0


def widened(value: float, low: float, high: float, log_sd: float, quantile: float) -> tuple[float, float]:
    """An interval's ends widened by ``quantile`` × the drift ``log_sd``, in quadrature on the log scale."""
    spread = (quantile * log_sd) ** 2
    centre = math.log(value)
    return (math.exp(centre - math.sqrt((centre - math.log(low)) ** 2 + spread)),
            math.exp(centre + math.sqrt((math.log(high) - centre) ** 2 + spread)))


def with_drift(found: Ratio, log_sd: float, quantile: float) -> Ratio:
    """``found`` with each end widened by ``quantile`` × the drift ``log_sd``, in quadrature on the log scale."""
    if log_sd <= 0:
        return found
    low, high = widened(found.value, found.low, found.high, log_sd, quantile)
    return dataclasses.replace(found, low=low, high=high, drift=log_sd)


def ratio(a: CaseResult | Sequence[Measurement], b: CaseResult | Sequence[Measurement],
          method: str | None = None, drift: tuple[float, int] | None = None) -> Ratio:
    """``a``'s time over ``b``'s: above 1, ``b`` is faster; its interval by ``method`` (default ``METHOD``).

    Under "with drift", the drift is the cases' own (``CaseResult.drift``, set where the site found
    re-measure sittings; the larger of the two), or ``drift`` as (log SD, sittings it was estimated
    from) when given; without one, the interval is the wider of both, one sitting's.

    ``ratio(b, a)`` is exactly the reciprocal of ``ratio(a, b)``, interval included: a page may ask for
    a comparison either way round (a verdict, an interval, a speed-up) and must get one answer.
    """
    method = method or METHOD
    if method not in METHODS:
        raise ValueError(f"no interval method {method!r}; methods: {', '.join(METHODS)}")
    runs_a, runs_b = runs_of(a), runs_of(b)
    processes = min(len(runs_a), len(runs_b))
    within = "wider of both" if method == "with drift" else method
    if digest(runs_b).seed < digest(runs_a).seed:  # bootstrap in one canonical order, then turn it round
        turned = _ratio(runs_b, runs_a, within)
        found = Ratio(1 / turned.value, 1 / turned.high, 1 / turned.low, processes)
    else:
        found = dataclasses.replace(_ratio(runs_a, runs_b, within), processes=processes)
    if method != "with drift" or processes < 2:  # one process gets no verdict anyway
        return found
    log_sd, sittings = drift if drift is not None else max(_case_drift(a), _case_drift(b))
    return with_drift(found, log_sd, t975(sittings)) if sittings else found


def _ratio(runs_a: list[np.ndarray], runs_b: list[np.ndarray], method: str) -> Ratio:
    bootstrap = _bootstrap_ratio(runs_a, runs_b)
    if method == "hierarchical bootstrap":
        return bootstrap
    paired = _paired_interval(runs_a, runs_b, bootstrap.value)
    if paired is None:  # one process: nothing to pair, the blocks' bootstrap is all there is
        return bootstrap
    if method == "paired processes":
        return Ratio(bootstrap.value, *paired)
    return Ratio(bootstrap.value, min(bootstrap.low, paired[0]), max(bootstrap.high, paired[1]))


def _paired_interval(runs_a: list[np.ndarray], runs_b: list[np.ndarray], value: float) -> tuple[float, float] | None:
    """A t interval on the logarithms of the per-process ratios, centred on the pooled ratio ``value``:
    run ``i`` of both cases came from the same process (or the same turn of their processes)."""
    count = min(len(runs_a), len(runs_b))
    if count < 2:
        return None
    logs = np.log([PER_CALL.of([runs_a[i]]) / PER_CALL.of([runs_b[i]]) for i in range(count)])
    half = t975(count - 1) * float(np.std(logs, ddof=1)) / math.sqrt(count)
    centre = math.log(value)
    return math.exp(centre - half), math.exp(centre + half)


# Every interval computed so far, by ``digest`` of its samples: a page asks the same comparison many
# times (a table, a sentence, a verdict), and a site build keeps these between builds
# (``tfspeedlab.site.build_cache``). Keyed by the samples themselves, so a changed file never meets
# a stale entry.
INTERVAL_CACHE: Memo[str, tuple[float, float]] = Memo()


def _bootstrap_ratio(runs_a: list[np.ndarray], runs_b: list[np.ndarray]) -> Ratio:
    found = digest(runs_a, runs_b)

    def interval() -> tuple[float, float]:
        rng = np.random.default_rng(found.seed)
        return _central(_resampled_estimates(runs_a, rng, RESAMPLES) / _resampled_estimates(runs_b, rng, RESAMPLES))

    return Ratio(PER_CALL.of(runs_a) / PER_CALL.of(runs_b), *INTERVAL_CACHE.get(found.key, interval))


def speedup(results: ResultsFile, slower: str, faster: str) -> Ratio:
    """How many times faster ``faster`` is than ``slower``, with its interval."""
    return ratio(results.case(slower), results.case(faster))


@dataclass(frozen=True)
class EstimatorStability:
    """How one estimator's speed-up moves between processes, and between halves of them (re-runs)."""

    estimator: str
    all_processes: float
    per_process: tuple[float, ...]
    # The largest relative difference between the speed-ups of two disjoint halves of the processes.
    worst_split_difference: float


def estimator_stability(results: ResultsFile, slower: str, faster: str) -> list[EstimatorStability]:
    """The experiment behind ``CHOSEN``: each candidate's speed-up over all runs, per run, and per half.

    Runs pair up by process: in a process, every case is timed block by block
    in turn, so run ``i`` of both cases saw the same machine.
    """
    slow_runs, fast_runs = runs_of(results.case(slower)), runs_of(results.case(faster))
    count = min(len(slow_runs), len(fast_runs))
    if count < 2:
        raise ValueError(f"{results.example}: the estimator experiment needs at least two runs per case")
    halves = [tuple(half) for half in itertools.combinations(range(count), count // 2)]
    found = []
    for name, estimator in ESTIMATORS.items():
        def speedup_of(indices) -> float:
            return estimator.of([slow_runs[i] for i in indices]) / estimator.of([fast_runs[i] for i in indices])

        differences = []
        for half in halves:
            other = tuple(i for i in range(count) if i not in half)
            a, b = speedup_of(half), speedup_of(other)
            differences.append(abs(a - b) / min(a, b))
        found.append(EstimatorStability(name, speedup_of(range(count)),
                                        tuple(speedup_of([i]) for i in range(count)), max(differences)))
    return found
