"""What an example hands to the harness: the cases to time and how."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    """One thing to time: ``fn(*args)``, labelled, with the parameters that set it apart."""

    label: str
    fn: Callable[..., Any]
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


@dataclass(frozen=True)
class Workload:
    """An example's cases, its parameters, and the case speed-ups are measured against."""

    name: str
    title: str
    cases: Sequence[Case]
    params: Mapping[str, Any] = field(default_factory=dict)
    baseline: str | None = None
    budget_s: float = 1.0

    def __post_init__(self) -> None:
        labels = [case.label for case in self.cases]
        if not labels:
            raise ValueError(f"workload {self.name!r} has no cases")
        if len(set(labels)) != len(labels):
            raise ValueError(f"workload {self.name!r} has duplicate case labels: {labels}")
        if self.baseline is not None and self.baseline not in labels:
            raise ValueError(f"baseline {self.baseline!r} is not one of the cases {labels}")


def main(build: Callable[..., Workload]) -> None:
    """Entry point for ``python examples/NAME.py [--quick] [--out DIR]``."""
    from tfspeedlab.standalone import run_standalone

    run_standalone(build)
