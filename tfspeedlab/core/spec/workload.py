"""What an example hands to the harness: the cases to time, how, and how their results are read."""

from __future__ import annotations

import dataclasses

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tfspeedlab.core.spec.layout import Cases, Layout, parameters_read, shared_coordinate


class SkipExample(Exception):
    """Raised by a workload builder that cannot run here (an optional extra is missing).

    The harness reports the message, writes nothing and keeps earlier results;
    it is not a failure.
    """


class CaseUnavailable(Exception):
    """Raised by a case's ``setup`` when this one case cannot run here (a Keras backend that cannot
    compile a layer, a framework missing one op); its message says why.

    The harness records the reason in the results file (``ResultsFile.unavailable``) in place of
    times, so the page says why the row is missing; the other cases are timed as usual.
    """


@dataclass(frozen=True)
class Prepared:
    """A case made ready to time: ``fn(*args)``, plus what to check once timing is done."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    metrics: Callable[[], Mapping[str, float]] | None = None
    watch: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Case:
    """One thing to time, labelled, with the parameters that set it apart.

    Give either ``fn`` (and ``args``), or ``setup``: a function that builds the
    case only when it is about to run, for cases that must start from a clean
    process (``process``) or are too costly to build up front.
    """

    label: str
    fn: Callable[..., Any] | None = None
    args: tuple[Any, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    # tf.functions called by ``fn`` that must not retrace while timed.
    watch: tuple[Any, ...] = ()
    # How many steps one call of ``fn`` performs (a fit() over 20 batches is
    # 20 steps); times are reported per step.
    steps_per_call: int = 1
    # Measured quantities other than time (tracing count, loss change...),
    # collected once after timing and stored beside the times.
    metrics: Callable[[], Mapping[str, float]] | None = None
    # Options passed on to ``bench`` for this case only.
    bench_options: Mapping[str, Any] = field(default_factory=dict)
    setup: Callable[[], Prepared] | None = None
    # Cases with the same ``process`` name run together in a fresh Python
    # process, with ``env`` set before TensorFlow is imported: TF1-style graph
    # mode and the legacy Keras are chosen once per process, for good.
    process: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    # Fresh processes to time the case in, alternating with the other groups
    # (A B C A B C …): two processes of the same code can differ by 10% or
    # more, so every case is a set of runs, one per process. None: the
    # harness's choice for a full or quick run.
    rounds: int | None = None

    def __post_init__(self) -> None:
        if (self.fn is None) == (self.setup is None):
            raise ValueError(f"case {self.label!r}: give exactly one of fn and setup")
        if self.env and self.process is None:
            raise ValueError(f"case {self.label!r}: env needs a process of its own")
        if self.rounds is not None and self.rounds < 1:
            raise ValueError(f"case {self.label!r}: rounds must be at least 1")

    def prepare(self) -> Prepared:
        if self.setup is not None:
            return self.setup()
        return Prepared(self.fn, self.args, self.metrics, self.watch)


@dataclass(frozen=True)
class Workload:
    """An example's cases, its parameters, the case speed-ups are measured against, and its layout."""

    name: str
    title: str
    cases: Sequence[Case]
    params: Mapping[str, Any] = field(default_factory=dict)
    baseline: str | None = None
    budget_s: float = 1.0
    # How pages read the results: a table of cases, a sweep, a grid, op layers.
    layout: Layout = field(default_factory=Cases)

    def __post_init__(self) -> None:
        labels = [case.label for case in self.cases]
        if not labels:
            raise ValueError(f"workload {self.name!r} has no cases")
        if len(set(labels)) != len(labels):
            raise ValueError(f"workload {self.name!r} has duplicate case labels: {labels}")
        if self.baseline is not None and self.baseline not in labels:
            raise ValueError(f"baseline {self.baseline!r} is not one of the cases {labels}")
        isolated = {case.process is not None for case in self.cases}
        if len(isolated) > 1:
            raise ValueError(f"workload {self.name!r}: give every case a process, or none")
        for name in self.processes:
            envs = {tuple(sorted(case.env.items())) for case in self.cases if case.process == name}
            if len(envs) > 1:
                raise ValueError(f"workload {self.name!r}: cases of process {name!r} disagree on env")
        missing = [case.label for case in self.cases if not set(parameters_read(self.layout)) <= set(case.params)]
        if missing:
            raise ValueError(f"workload {self.name!r}: its {type(self.layout).__name__} layout reads the case "
                             f"parameters {parameters_read(self.layout)}, which cases {missing} lack")
        shared = shared_coordinate(self.layout, [case.params for case in self.cases])
        if shared is not None:  # refused before a run measures what its results file would refuse
            first, second, where = shared
            raise ValueError(f"workload {self.name!r}: cases {labels[first]!r} and {labels[second]!r} sit on one "
                             f"{self.layout.kind} coordinate {where!r}; each needs its own")

    def only(self, wanted: Mapping[str, str]) -> Workload:
        """The workload narrowed to the cases whose parameters read as ``wanted`` (``{"batch": "1"}``),
        recorded in its parameters (``only``) so that a narrowed results file says what it left out."""
        if not wanted:
            return self
        kept = [case for case in self.cases if all(str(case.params.get(name)) == value for name, value in wanted.items())]
        if not kept:
            raise ValueError(f"workload {self.name!r}: no case has " +
                             ", ".join(f"{name}={value}" for name, value in wanted.items()))
        baseline = self.baseline if self.baseline in {case.label for case in kept} else None
        return dataclasses.replace(self, cases=kept, baseline=baseline, params={**self.params, "only": dict(wanted)})

    @property
    def processes(self) -> list[str]:
        """Process groups in the order their cases appear; empty when none is isolated."""
        return [group for group in self.groups if group is not None]

    @property
    def groups(self) -> list[str | None]:
        """The processes one round runs, in order: each named group, or ``[None]`` for all cases together."""
        return list(dict.fromkeys(case.process for case in self.cases))
