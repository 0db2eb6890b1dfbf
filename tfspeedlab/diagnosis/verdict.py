"""What a function's diagnosis says, in words: the verdict, the fixes for the retracing traps the
probe found, what the cost model's ratio means, and the guide's pages that explain it.

Every word is carried by an interval (``wording``). ``function_core`` words a ``Diagnosis``'s
verdict, links and fixes through this module, so this one names its types for annotations only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfspeedlab.core.stats.materiality import MATERIAL_SPEEDUP, material
from tfspeedlab.core.units import format_ratio, format_time
from tfspeedlab.core.wording import NO_GROWTH_BYTES_PER_CALL, Verdict, format_growth, format_speedup

if TYPE_CHECKING:
    from tfspeedlab.diagnosis.function_core import Diagnosis, Placement, RetraceProbe

# The fixes for the two retracing traps the probe looks for.
NUMBER_FIX = "Pass the numbers as tensors (tf.constant) instead of Python floats or ints."
BATCH_FIX = ("A new batch size traces it again: if it will see batches of several sizes, give the tf.function "
             "an input_signature with None for the batch dimension, or reduce_retracing=True.")
# The guide's pages each finding links to (relative to the site's root).
PAGES = {"overhead": ("small-ops.md", "Many small ops"), "kernel": ("matmul.md", "One big op"),
         "xla": ("xla.md", "XLA: when jit_compile=True pays"), "tracing": ("tracing.md", "The cost of tracing"),
         "layers": ("where-time-goes.md", "Where the time goes"),
         "worth": ("worth-it.md", "When is tf.function worth it?"),
         "memory": ("memory-startup.md", "Does TensorFlow leak memory? How long does it take to start?")}


def fixes(probe: RetraceProbe) -> list[str]:
    """The fix for each trap a ``RetraceProbe`` found, as the verdict words it."""
    return ([NUMBER_FIX] if probe.python_number_traces else []) + ([BATCH_FIX] if probe.batch_size_traces else [])


def placement_reading(placement: Placement, ratio: float | None) -> str:
    """What the eager ratio (measured ÷ the cost model's prediction, None where eager did not run)
    says of a ``Placement``: the model counts issuing ops and elementwise arithmetic, so a function
    far above it spends its time in heavier kernels."""
    if ratio is None:
        return ""
    band = placement.band["eager"]
    chain, verb = (f"{placement.ops:,} elementwise ops of this size", "cost") if placement.ops != 1 else (
        "1 elementwise op of this size", "costs")
    # With this machine's cost of an eager op timed, the ratio speaks of the function; without it,
    # of the function and of how this machine differs from the guide's, which the words must not
    # lay at the reader's code.
    where = "on this machine" if placement.calibration is not None else "on the guide's machine"
    if ratio > 1 + max(band, 1.0):
        return (f"eagerly it takes {ratio:.3g}× what {chain} {verb} {where}: its kernels do "
                "more work than elementwise arithmetic (a matmul, a convolution), and that work is "
                "the same in every mode")
    if ratio < 1 / (1 + max(band, 1.0)):
        if placement.calibration is None:
            return (f"eagerly it takes {ratio:.3g}× what {chain} {verb} {where}: its ops are cheaper to issue "
                    "(shape or control ops), or this machine issues ops in less time than the guide's")
        return (f"eagerly it takes {ratio:.3g}× what {chain} {verb} {where}: many of its "
                "ops are cheaper to issue than a multiply, an add or a ReLU (shape or control ops)")
    return (f"eagerly it costs what {chain} {verb} {where} "
            f"({ratio:.3g}× the model's prediction): its time is the cost of issuing ops")


def graph_helps(diagnosis: Diagnosis) -> bool:
    graph = diagnosis.speedups.get("tf.function")
    return graph is not None and material(graph) is Verdict.FASTER


def verdict(diagnosis: Diagnosis) -> str:
    """What to do, in plain words, from the intervals: never a word the interval does not carry."""
    if "eager" not in diagnosis.modes:
        return "Nothing was timed (interrupted before the first timed block)."
    graph = diagnosis.speedups.get("tf.function")
    probe = diagnosis.retracing
    lines = []
    # A function that retraces on every new number pays a first call each time: that comes first.
    retraces = probe is not None and bool(probe.python_number_traces)
    if retraces:
        lines.append(_retracing_first(diagnosis))
    word = material(graph) if graph is not None else None
    if graph is None:
        lines.append(f"tf.function could not run: {diagnosis.unavailable['tf.function']}.")
    elif word is Verdict.FASTER:
        calls = diagnosis.break_even_calls["tf.function"]
        lines.append(f"{'With that fixed, wrap' if retraces else 'Wrap'} it in tf.function: per call it ran "
                     f"{format_speedup(graph)}. Its first call is paid back after {calls:,.0f} "
                     f"call{'s' if calls != 1 else ''}.")
    elif word is Verdict.SLOWER:
        lines.append(f"Leave it eager: per call, tf.function ran {format_speedup(graph)}. A graph call costs "
                     "more than this function's ops take eagerly.")
    else:
        lines.append(f"tf.function changes little per call: it ran {format_speedup(graph)}, under the "
                     f"{MATERIAL_SPEEDUP:.2f}× this report acts on. The time is in the kernels, not in issuing "
                     "ops from Python.")
    # XLA against the better of the two it would replace: the tf.function where that helps, else eager.
    versus, against = ((diagnosis.xla_over_graph, "the plain tf.function") if graph_helps(diagnosis)
                       else (diagnosis.speedups.get("XLA"), "eager"))
    if versus is not None:
        if material(versus) is Verdict.FASTER:
            calls = diagnosis.xla_break_even_over_graph if against != "eager" else diagnosis.break_even_calls["XLA"]
            lines.append(f"Turn on XLA (jit_compile=True): against {against}, it ran {format_speedup(versus)}."
                         + (f" Its compiling is paid back against {against} after {calls:,.0f} calls." if calls
                            else ""))
        elif material(versus) is Verdict.SLOWER:
            lines.append(f"Leave XLA off: against {against}, jit_compile=True ran {format_speedup(versus)}.")
        else:
            lines.append(f"XLA changes little against {against}: jit_compile=True ran {format_speedup(versus)}, "
                         f"under the {MATERIAL_SPEEDUP:.2f}× this report acts on.")
    elif "XLA" in diagnosis.unavailable:
        lines.append(f"XLA could not compile it: {diagnosis.unavailable['XLA']}.")
    if probe is not None and probe.batch_size_traces:
        lines.append(BATCH_FIX)
    memory = diagnosis.memory
    # Growth named only where the whole interval lies past the least growth the memory page calls one.
    if memory is not None and memory.per_call.low > NO_GROWTH_BYTES_PER_CALL:
        lines.append(f"Resident memory {format_growth(memory.per_call)} over repeated calls: keep what it "
                     f"makes from piling up ({PAGES['memory'][0]} measures what stops a growth).")
    if diagnosis.interrupted:
        lines.append("Interrupted: these are the blocks timed so far.")
    return " ".join(lines)


def _retracing_first(diagnosis: Diagnosis) -> str:
    probe = diagnosis.retracing
    sentence = (f"Fix the retracing first: every new Python number it is given traces it again "
                f"({probe.python_number_traces} traces for two new values)")
    if probe.retrace_s is not None:
        sentence += (f", and each such call took {format_time(probe.retrace_s)}, "
                     f"{format_ratio(probe.retrace_s / diagnosis.per_call_s['eager'])} an eager call")
    return f"{sentence}. {NUMBER_FIX}"


def topics(diagnosis: Diagnosis) -> list[str]:
    graph = diagnosis.speedups.get("tf.function")
    found = []
    if graph is not None:
        found.append("overhead" if material(graph) is Verdict.FASTER else "kernel")
        found.append("worth")
    if "XLA" in diagnosis.speedups:
        found.append("xla")
    if diagnosis.retracing is not None and diagnosis.retracing.fixes:
        found.append("tracing")
    if diagnosis.host_split:
        found.append("layers")
    if diagnosis.memory is not None:
        found.append("memory")
    return found


def links(diagnosis: Diagnosis) -> list[tuple[str, str]]:
    """The guide's pages that explain a diagnosis, as (page, title)."""
    return [PAGES[topic] for topic in topics(diagnosis)]
