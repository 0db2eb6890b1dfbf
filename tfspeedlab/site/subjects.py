"""What a measured pair ran, in a reader's words: "a 2048 × 2048 matmul", not "matmul — size 2048".

A sentence that quotes a figure from another page (XLA's best and worst over every workload) names
the workload as its page does. Each example's phrase is a template over its cases' parameters; an
example with none, or a case missing a parameter, falls back to the results' title and case label.
"""

from __future__ import annotations

from string import Formatter

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.xla.pairs import XlaPair

# Example → its workload in words, formatted with the graph case's parameters.
SUBJECTS: dict[str, str] = {
    "call_cost": "a one-op call",
    "elementwise_size": "a chain of {n_ops} elementwise ops on {elements:,} elements",
    "frameworks": "the frameworks page's {workload}",
    "holdout": "a held-out chain of {n_ops} ops on {elements:,} elements",
    "matmul": "one {size} × {size} matmul",
    "op_chain": "a chain of {n_ops} small ops",
    "small_ops": "the 150-small-op loop",
    "step_profile": "the profiled training step",
    "time_breakdown": "the 150-small-op loop, profiled",
    "tf1_vs_tf2": "the TF1 vs TF2 page's {model} model, {step}",
    "train_step": "the Dense 20 → 64 → 1 training step",
}
# For examples with several ways of running one step: which the pair compared.
STEPS: dict[tuple[str, str], str] = {
    ("tf.function step", "tf.function step + XLA"): "trained by a hand-written tf.function step",
    ("Keras 3 train_on_batch", "Keras 3 jit_compile"): "trained by Keras 3's train_on_batch",
}


def xla_subject(results: ResultsFile, pair: XlaPair) -> str:
    """The workload a graph/XLA pair ran, as a reader would name it."""
    template = SUBJECTS.get(results.example)
    values = {**dict(pair.workload), "step": STEPS.get(pair.modes, "")}
    if template is not None and _fills(template, values):
        return template.format_map(values).rstrip(", ")
    # A parameter this file's cases lack (or hold as text where a number is formatted): say it plainly.
    return f"{results.title} — {pair.label}"


def _fills(template: str, values: dict[str, object]) -> bool:
    """Whether every field of the template is given, with a number wherever it formats one."""
    for _, name, spec, _ in Formatter().parse(template):
        if name is None:
            continue
        if name not in values:
            return False
        if spec and not isinstance(values[name], (int, float)):
            return False
    return True
