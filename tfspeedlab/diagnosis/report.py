"""A diagnosis (of a function, or of a Keras model) as a reader sees it: one ``Report`` (the command
that reproduces it, its tables and notes, its verdict, the guide's pages that explain it), rendered
as aligned columns for the terminal, as Markdown or as a standalone HTML page to keep or share. The
site's sample reports show the same sections and verdict, so the page shows exactly what the
terminal printed."""

from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass

from tfspeedlab.core.profiling.trace import HOST_LAYERS, HOST_LAYER_LABELS
from tfspeedlab.core.stats.memory_growth import FollowedMemory
from tfspeedlab.core.stats.summary import text_columns
from tfspeedlab.core.units import format_time
from tfspeedlab.core.wording import BASELINE_CELL, format_growth, format_levelling, format_speedup, signed_bytes
from tfspeedlab.diagnosis.function_core import MODES, Diagnosis, Placement
from tfspeedlab.diagnosis.model_core import (BASELINES, CALLS, FIT_BATCHES, FROM_FILE, PAGES as MODEL_PAGES, PREDICT,
                                             START_PAGE, TRAINING, ModelDiagnosis)

VERDICT_LEAD = "Verdict:"
# Prose lines of the report wrap here: about what the guide's content column shows of a code
# block at 1280 px, and the width of the report's widest table.
WIDTH = 80
# Where a report kept outside the site links to (mkdocs.yml's site_url).
GUIDE_URL = "https://tfspeedlab.github.io/tfspeedlab/"


@dataclass(frozen=True)
class Report:
    """A finished diagnosis, whatever it is rendered to."""

    target: str  # what was diagnosed, as the command names it
    # The command that reproduces it, then its tables and notes: each a block of lines as the
    # terminal shows them (a blank line between two).
    sections: tuple[str, ...]
    # What to do: one line (a page sets it as prose), or one line per call compared.
    verdict: str
    links: tuple[tuple[str, str], ...] = ()  # the guide's pages that explain it, as (page, title)

    @property
    def body(self) -> str:
        """Everything but the verdict: what a page or a file sets in a code block, its columns aligned."""
        return "\n\n".join(self.sections)

    def text(self) -> str:
        """As the terminal prints it: the verdict as the last paragraph (below its lead when it has
        several lines)."""
        lead = VERDICT_LEAD + ("\n" if "\n" in self.verdict else " ")
        return f"{self.body}\n\n{lead}{self.verdict}"

    def markdown(self) -> str:
        """The sections as a code block, the verdict as prose, the guide's pages as links."""
        fence = code_fence(self.body)
        listed = "".join(f"\n- [{title}]({page_url(page)})" for page, title in self.links)
        return (f"# Diagnosis of `{self.target.replace('`', '')}`\n\n{fence}text\n{self.body}\n{fence}\n\n"
                f"**Verdict.** {self.verdict}\n" + (f"\nRead more:\n{listed}\n" if listed else ""))

    def html(self) -> str:
        """The same as a standalone page (no scripts, no outside files) to keep or attach to an issue."""
        listed = "".join(f'<li><a href="{html.escape(page_url(page))}">{html.escape(title)}</a></li>'
                         for page, title in self.links)
        title = html.escape(f"Diagnosis of {self.target}")
        return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:60rem;"
                "margin:2rem auto;padding:0 1rem;line-height:1.5}pre{overflow-x:auto;background:#f5f5f5;"
                "padding:1rem;font-size:.85rem}</style></head><body>"
                f"<h1>{title}</h1><pre>{html.escape(self.body)}</pre>"
                f"<p><strong>Verdict.</strong> {html.escape(self.verdict)}</p>"
                + (f"<p>Read more:</p><ul>{listed}</ul>" if listed else "") + "</body></html>\n")


def code_fence(text: str) -> str:
    """A Markdown fence longer than any run of backticks in ``text`` (which names the reader's files)."""
    return "`" * max(3, max((len(run) + 1 for run in re.findall(r"`+", text)), default=0))


def page_url(page: str) -> str:
    return f"{GUIDE_URL}{page.removesuffix('.md')}/"


def function_report(diagnosis: Diagnosis) -> Report:
    """The command, its tables and findings; the verdict last."""
    # The command as a shell line, continued before its --inputs.
    command = f"tfspeedlab diagnose {diagnosis.target}".replace(" --inputs ", " \\\n    --inputs ")
    sections = [command, _modes_table(diagnosis), _wrapped(_findings(diagnosis))]
    if diagnosis.host_split:
        sections.append(_host_split_table(diagnosis))
    if diagnosis.placement is not None:
        sections.append(_placement_table(diagnosis))
    if diagnosis.memory is not None:
        sections.append(_wrapped([memory_line(diagnosis.memory, "calls of the function as given")]))
    if diagnosis.skipped:
        sections.append(_wrapped(f"Not measured: {part} ({why})" for part, why in diagnosis.skipped.items()))
    return Report(diagnosis.target, tuple(sections), diagnosis.verdict, tuple(diagnosis.links))


# The longest error a table cell holds before the table would outgrow WIDTH.
ERROR_IN_CELL = 24


def _wrapped(lines) -> str:
    return "\n".join(textwrap.fill(line, WIDTH, subsequent_indent="  ", break_on_hyphens=False) for line in lines)


def _modes_table(diagnosis: Diagnosis) -> str:
    rows = [("Mode", "Per call (p10)", "Speed-up vs eager [95%]", "First call", "Pays off")]
    # An error too long for a cell (XLA's name whole ops) goes below the table, wrapped.
    below = []
    for mode in MODES:
        if mode in diagnosis.unavailable:
            error = diagnosis.unavailable[mode]
            if len(error) <= ERROR_IN_CELL:
                rows.append((mode, f"could not run: {error}", "", "", ""))
            else:
                rows.append((mode, "could not run (below)", "", "", ""))
                below.append(f"{mode} could not run: {error}")
            continue
        speedup = diagnosis.speedups.get(mode)
        calls = diagnosis.break_even_calls.get(mode)
        first_call_s = diagnosis.modes[mode].measurement.first_call_s
        rows.append((mode, format_time(diagnosis.per_call_s[mode]),
                     format_speedup(speedup) if speedup else "—", format_time(first_call_s),
                     # "never": not clearly faster per call, so its costlier first call is not paid back.
                     "—" if mode == "eager" else "never" if calls is None else f"{calls:,.0f} calls"))
    return text_columns(rows) + "\n" + _wrapped(["(p10: the 10th percentile of all timed blocks, the "
                                                 "guide's estimator; the speed-ups divide it)", *below])


def _findings(diagnosis: Diagnosis) -> list[str]:
    ops = "unknown (it could not be traced)" if diagnosis.op_count is None else f"{diagnosis.op_count:,}"
    if diagnosis.compute_op_count is not None:
        ops += (f", {diagnosis.compute_op_count:,} of them computing (placeholders, constants and "
                "identities aside)")
    lines = [f"Ops in the traced graph: {ops}"]
    if diagnosis.processes > 1:
        lines.append(f"Timed in {diagnosis.processes} fresh processes, pooled: the intervals cover how far "
                     "a process moves")
    probe = diagnosis.retracing
    if probe is not None:
        traces = [f"{probe.first_traces} on the first call"]
        if probe.batch_size_traces is not None:
            traces.append(f"{probe.batch_size_traces} more for another batch size")
        elif probe.batch_size_unprobed:
            traces.append(f"another batch size not probed ({probe.batch_size_unprobed})")
        if probe.python_number_traces is not None:
            traces.append(f"{probe.python_number_traces} more for two other Python numbers")
        lines.append(f"Traces: {', '.join(traces)}")
    if diagnosis.budget_s is not None and diagnosis.elapsed_s is not None and diagnosis.tracing_s is not None:
        lines.append(f"Time spent: {diagnosis.elapsed_s:.1f} s of the {plain_seconds(diagnosis.budget_s)} s budget "
                     f"({diagnosis.tracing_s:.1f} s of it tracing and compiling)")
    return lines


def _host_split_table(diagnosis: Diagnosis) -> str:
    rows = [("Profiled", "Per call", "Calls", *(HOST_LAYER_LABELS[layer] for layer in HOST_LAYERS))]
    for mode, split in diagnosis.host_split.items():
        shares = split.fractions()
        rows.append((mode, format_time(split.total_s), str(split.calls),
                     *(f"{shares[layer]:.0%}" for layer in HOST_LAYERS)))
    return text_columns(rows) + "\n" + _wrapped(["(host time per call, split by TensorFlow's profiler; its own "
                                                 "overhead is in these times, so read the shares)"])


def _placement_table(diagnosis: Diagnosis) -> str:
    placement = diagnosis.placement
    rows = [("Guide's cost model", "Predicted", "Measured (p10)", "Measured ÷ predicted")]
    for mode, predicted in placement.predicted_s.items():
        ratio = placement.measured_over_predicted(diagnosis, mode)
        if ratio is None:
            continue
        rows.append((mode, format_time(predicted), format_time(ratio * predicted), f"{ratio:.3g}×"))
    notes = [f"(for {placement.ops:,} op{'s' if placement.ops != 1 else ''} on {placement.elements:,} elements; "
             f"{_whose_costs(placement)})", placement.reading(diagnosis)]
    if placement.extrapolated:
        notes.append("beyond the op counts or tensor sizes the model was fitted on: an extrapolation")
    note = "; ".join(note for note in notes[1:] if note)
    return "\n".join([text_columns(rows), _wrapped([notes[0]] + ([f"{note[:1].upper()}{note[1:]}."] if note else []))])


def _whose_costs(placement: Placement) -> str:
    """Which machine each of the prediction's costs is from: the model is fitted on the guide's
    runner, and, where they were timed here, its costs of an eager op and of a tf.function call are
    this machine's, set beside the guide's."""
    fitted = f"fitted on the guide's {placement.runner.upper()} runner, {placement.fitted_on}"
    found = placement.calibration
    if found is None:
        return f"every cost {fitted}: on another machine the ratios may move"
    here, guide = found.here, found.guide
    costs = "; ".join(f"{what} {format_time(mine)} here, {format_time(theirs)} on the guide's"
                      for what, mine, theirs in (("an eager op", here.eager_op_s, guide.eager_op_s),
                                                 ("a tf.function call", here.graph_call_s, guide.graph_call_s)))
    return (f"the model {fitted}, with two costs timed on this machine, {found.cpu}: {costs}; "
            "the rest (a graph op's, the kernels' per element, XLA's) are the guide's")


# -- a Keras model's report --

def model_report(diagnosis: ModelDiagnosis) -> Report:
    shapes = " and ".join("(" + ", ".join(str(size) for size in shape) + ")" for shape in diagnosis.input_shapes)
    sections = [
        f"tfspeedlab diagnose {diagnosis.model_path} --batch {diagnosis.batch}",
        f"Predict ladder, per call on inputs {shapes} ({MODEL_PAGES[PREDICT][0]} explains it)\n"
        + _calls_table(diagnosis, PREDICT, "Per call (median)"),
        f"Training calls, per step (fit: {FIT_BATCHES} batches a call, its time ÷ {FIT_BATCHES}; "
        f"{MODEL_PAGES[TRAINING][0]} explains them)\n" + _calls_table(diagnosis, TRAINING, "Per step (median)"),
        _training_setup(diagnosis),
        *([_start_and_memory(diagnosis)] if diagnosis.load_s is not None or diagnosis.memory else []),
    ]
    return Report(diagnosis.model_path, tuple(sections), diagnosis.verdict, tuple(diagnosis.links))


def _start_and_memory(diagnosis: ModelDiagnosis) -> str:
    """Loading the file and the first prediction (what a fresh process pays after its imports), and
    resident memory over repeated predict calls."""
    lines = []
    if diagnosis.load_s is not None:
        first = diagnosis.first_prediction_s
        lines.append(f"Loading the file: {format_time(diagnosis.load_s)}"
                     + (f"; loading and the first predict call: {format_time(first)}" if first is not None else "")
                     + f". A fresh process pays TensorFlow's import before them ({START_PAGE[0]} measures it).")
    if diagnosis.memory is not None:
        lines.append(memory_line(diagnosis.memory, "predict calls"))
    return _wrapped(lines)


def plain_seconds(value: float) -> str:
    """A budget in seconds at most to the tenth: pooled sittings add budgets up to 68.4024 s."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def memory_line(memory: FollowedMemory, calls: str) -> str:
    """Resident memory's growth over a diagnosis's repeated calls, with its interval, whether it levels
    off, and the Python heap's part."""
    levelling = format_levelling(memory.per_call, memory.late_per_call)
    return (f"Resident memory over {memory.calls} {calls}: {format_growth(memory.per_call)}"
            + (f"; {levelling}" if levelling else "")
            + f" (the Python heap's part: {signed_bytes(memory.heap_per_call)} per call; "
              f"{START_PAGE[0]} says what stops a growth).")


def _calls_table(diagnosis: ModelDiagnosis, group: str, per: str) -> str:
    rows = [("Call", per, f"Speed-up over {BASELINES[group]} [95%]", "First call")]
    for name in CALLS[group]:
        if name not in diagnosis.calls:
            error = diagnosis.unavailable.get(name)
            rows.append((name, f"could not run: {error}" if error else "not measured (interrupted)", "", ""))
            continue
        speedup = diagnosis.speedups.get(name)
        timing = diagnosis.calls[name].measurement
        rows.append((name, format_time(timing.median_s),
                     BASELINE_CELL if name == BASELINES[group] else format_speedup(speedup) if speedup else "—",
                     format_time(timing.first_call_s)))
    return text_columns(rows)


def _training_setup(diagnosis: ModelDiagnosis) -> str:
    if diagnosis.compiled_by == FROM_FILE:
        return (f"Loss and optimizer: {diagnosis.loss} and {diagnosis.optimizer}, as compiled in the model file "
                "(each training call on a freshly loaded model)")
    return (f"Loss and optimizer: {diagnosis.loss} and {diagnosis.optimizer}, chosen by tfspeedlab: the model "
            "file was saved without a loss (each training call on a freshly loaded model)")
