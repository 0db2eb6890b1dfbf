"""What XLA costs before it pays: the time its compile adds to a first call over the plain graph's, how
many calls repay it, and how far one case's first call moved between processes."""

from __future__ import annotations

import math

from tfspeedlab.core import wording
from tfspeedlab.core.units import format_time
from tfspeedlab.render import markdown, shared_workloads
from tfspeedlab.render.context import Context, Runner
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import NOT_IN_QUICK_RUN, directive
from tfspeedlab.xla import pairs as xla


def _pair(context: Context, example: str, pair: str, runner: str) -> xla.XlaPair | None:
    """The named pair; None where a quick run's smaller workload left it out (the page says so)."""
    results = context.lookup(example, runner)
    try:
        return xla.pair_named(results, pair or None)
    except ValueError as error:
        if results.quick:
            return None
        raise DirectiveError(str(error)) from None


@directive("xla_compile", "What XLA added to a pair's first call over the plain graph's (both trace; XLA also "
                          "compiles), each first call the median over processes: ``320 ms``. PAIR is the XLA "
                          "table's case (``\"elements 1000000\"``), needed where a file has several pairs.")
def xla_compile(context: Context, example: str, pair: str = "", *, runner: Runner = "cpu") -> str:
    found = _pair(context, example, pair, runner)
    return NOT_IN_QUICK_RUN if found is None else format_time(xla.compile_added_s(found))


def _calls(value: float) -> str:
    """``45`` · ``12,800``: a count of calls to three significant figures, as a reader says it."""
    return f"{int(float(f'{value:.3g}')):,}"


@directive("xla_payback", "After how many calls XLA's saving per call repays what it added to the first call, as a "
                          "predicate: ``repays itself after about 45 calls``; where XLA was not clearly faster per "
                          "call, that it may never, with the verdict.")
def xla_payback(context: Context, example: str, pair: str = "", *, runner: Runner = "cpu") -> str:
    found = _pair(context, example, pair, runner)
    if found is None:
        return NOT_IN_QUICK_RUN
    word = wording.page_verdict(found.speedup)
    if word is None:  # one process: no verdict, so nothing to say of a saving
        return "cannot be judged from one process"
    per_call = wording.page_speedup(found.speedup)
    if word is wording.Verdict.FASTER:
        calls = xla.payback_calls(found)
        if calls <= 1:
            return "repays itself on the first call: XLA's first call was no slower"
        return f"repays itself after about {_calls(math.ceil(calls))} calls"
    if word is wording.Verdict.SLOWER:
        return f"never repays itself: per call, XLA was {per_call}"
    return f"may never repay itself: per call, XLA was {per_call}"


@directive("xla_payback_across_cpus", "After how many calls XLA's compile repays itself on every CPU model where XLA was "
                                      "faster per call, from the files the per-CPU table shows (the committed one and "
                                      "the newest re-measure on each other model): ``after about 1,340 to 2,440 calls "
                                      "on the 3 CPU models where XLA was faster``.")
def xla_payback_across_cpus(context: Context, example: str, pair: str = "", *, runner: Runner = "cpu") -> str:
    files = shared_workloads.files_by_cpu(context.lookup(example, runner), context.sittings_of(example, runner))
    calls = []
    for found in files:
        try:
            one = xla.pair_named(found, pair or None)
        except ValueError as error:
            raise DirectiveError(str(error)) from None
        if wording.page_verdict(one.speedup) is wording.Verdict.FASTER:
            calls.append((max(math.ceil(xla.payback_calls(one)), 1), context.cpu_text(found.environment)))
    if not calls:
        return f"never, on the {len(files)} CPU models measured: XLA was faster per call on none"
    calls.sort()
    if len(calls) == 1:
        where = f"on {calls[0][1]}" + ("" if len(files) == 1 else ", the one CPU model where XLA was faster")
        return f"after about {_calls(calls[0][0])} calls {where}"
    where = f"on the {len(calls)} CPU models" + ("" if len(calls) == len(files) else " where XLA was faster")
    return f"after about {_calls(calls[0][0])} to {_calls(calls[-1][0])} calls {where}"


@directive("first_call_range", "The fastest and slowest first call of one case over its processes: ``408 ms to "
                               "686 ms over 6 processes``.")
def first_call_range(context: Context, example: str, case: str, *, runner: Runner = "cpu") -> str:
    runs = context.lookup(example, runner).case(case).runs
    calls = sorted(run.first_call_s for run in runs)
    if len(calls) < 2:
        return f"{format_time(calls[0])} in its one process"
    return f"{format_time(calls[0])} to {format_time(calls[-1])} over {len(calls)} processes"


@directive("xla_cpus", "The CPU models behind the XLA table, for its caption: ``AMD EPYC 25/1, except "
                       "`time_breakdown`, on AMD EPYC 26/2``.")
def xla_cpus(context: Context, *, runner: Runner = "cpu") -> str:
    by_cpu: dict[str, list[str]] = {}
    for example, found in sorted(context.results[runner].items()):
        if xla.xla_pairs(found):
            by_cpu.setdefault(context.cpu_text(found.environment), []).append(example)
    if not by_cpu:
        raise DirectiveError(f"no {runner} results file measures a graph/XLA pair")
    main, *others = sorted(by_cpu, key=lambda name: -len(by_cpu[name]))
    if not others:
        return f"{main}, every one"
    exceptions = "; ".join(f"{_listed(by_cpu[name])} on {name}" for name in others)
    return f"{main}, except {exceptions}"


def _listed(examples: list[str]) -> str:
    names = [markdown.code(example) for example in examples]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
