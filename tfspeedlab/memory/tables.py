"""Tables of the memory and start-up page: how resident memory grows over repeated calls (per Keras,
call and remedy), and what starting up costs (imports and what takes their time, the first
prediction of a fresh process, building, saving and loading a model)."""

from __future__ import annotations

from collections.abc import Iterator

from tfspeedlab.core import wording
from tfspeedlab.core.results.schema import CaseResult, NotInResults, ResultsFile
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.stats.memory_growth import Growth, growth, per_what
from tfspeedlab.core.units import format_time
from tfspeedlab.core.wording import format_growth, speedup_cell
from tfspeedlab.render.markdown import LEFT, RIGHT, Markdown, code, table, text

# The import every other is set against.
REFERENCE_IMPORT = "import tensorflow"
REFERENCE_FORMAT = ".keras"


def keras_name(keras: str, results: ResultsFile) -> str:
    """What a case's ``keras`` parameter ran, by the Keras's major version: ``Keras 3`` for ``tf.keras``
    on TensorFlow 2.16 and later, ``Keras 2 (tf_keras)`` for the legacy package. Names that differ in
    one character ("tf.keras", "tf_keras") read alike in a table and a chart's panel titles."""
    if keras == "tf_keras":
        return "Keras 2 (tf_keras)"
    if keras == "tf.keras":
        version = str(results.environment.get("keras") or "")
        major = version.split(".")[0]
        return f"Keras {major}" if major.isdigit() else "tf.keras"
    return keras


def followed(results: ResultsFile) -> Iterator[tuple[CaseResult, Growth]]:
    """Each case that followed its memory over a loop, with what it found (the others are left out)."""
    for case in results.cases:
        try:
            yield case, growth(case)
        except NotInResults:
            continue


def growth_table(results: ResultsFile) -> Markdown:
    """Per Keras, call (with the calls followed) and remedy: resident memory's growth per call over the
    followed loop and over its second half, the Python heap's growth and the time per call (seven
    columns: a page's width at 1280 px; the memory over the loop is the chart's)."""
    body = []
    for case, found in followed(results):
        p, per = case.params, per_what(case)
        body.append([text(keras_name(str(p["keras"]), results)), text(f"{p['call']} × {found.calls:,}"),
                     text(p["cleanup"]),
                     format_growth(found.per_call, per), format_growth(found.late_per_call, per),
                     f"{wording.signed_bytes(found.heap_per_call, plus=True)} per {per}", format_time(case.measurement.per_call_s)])
    if not body:
        return Markdown(text("No case followed its memory (it is followed on Linux only)."))
    return table(["Keras", "Call × calls followed", "After each call", "Resident memory, whole loop",
                  "… its second half", "Python heap", "Time per call"], body,
                 [LEFT, LEFT, LEFT, LEFT, LEFT, RIGHT, RIGHT])


# A followed loop run under several malloc settings (the allocators example) names its setting in
# this parameter, and the setting every other is set against.
MALLOC_PARAMETER = "malloc"
REFERENCE_MALLOC = "glibc"


def remedy_of(case: CaseResult) -> str:
    """What sets a followed loop apart from its twins of the same Keras and call: its malloc setting
    where the file compares those, else what runs after each call."""
    return str(case.params.get(MALLOC_PARAMETER, case.params["cleanup"]))


def remedy_kind(results: ResultsFile) -> str:
    """What ``remedy_of`` names in this file, for a legend's title."""
    if any(MALLOC_PARAMETER in case.params for case in results.cases):
        return "malloc setting"
    return "what runs after each call"


def allocator_table(results: ResultsFile) -> Markdown:
    """Per loop and malloc setting: resident memory's growth per call over the followed loop and its
    second half, glibc's arenas after it and the time per call; then the settings that could not run
    here, each with its reason (an install command). The question is memory: the times are there to
    show what a setting costs, each loop's processes too few for a verdict between settings."""
    body = []
    for case, found in followed(results):
        p, per = case.params, per_what(case)
        arenas = [metrics.glibc_arenas for metrics in case.metrics_by_process if metrics.glibc_arenas is not None]
        body.append([text(f"{p['call']} × {found.calls:,}"), text(p.get(MALLOC_PARAMETER, "")),
                     format_growth(found.per_call, per), format_growth(found.late_per_call, per),
                     f"{max(arenas):.0f}" if arenas else "not glibc's", format_time(case.measurement.per_call_s)])
    if not body:
        return Markdown(text("No case followed its memory (it is followed on Linux only)."))
    shown = table(["Loop × calls followed", "malloc", "Resident memory, whole loop", "… its second half",
                   "glibc's arenas after it", "Time per call"], body, [LEFT, LEFT, LEFT, LEFT, RIGHT, RIGHT])
    if not results.unavailable:
        return shown
    missing = "\n".join(f"* {text(label)}: {text(reason)}" for label, reason in results.unavailable.items())
    return Markdown(f"{shown}\n\nNot measured here:\n\n{missing}")


def _listed(names: list[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``, each as code; ``last`` joins the final two (``nor``)."""
    shown = [code(name) for name in names]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" {last} " + shown[-1]


def remedies_sentence(results: ResultsFile, call: str, brief: bool = False) -> Markdown:
    """Whether any malloc setting other than glibc's default stopped ``call``'s loop from growing, in
    a sentence: stopped where the loop's second half no longer grows (steady, or shrinking). ``brief``:
    the verdict alone, its subject "it" (``Neither `jemalloc` nor `tcmalloc` stopped it.``)."""
    found = [(remedy_of(case), memory) for case, memory in followed(results)
             if case.params.get("call") == call and case.params.get(MALLOC_PARAMETER) not in (None, REFERENCE_MALLOC)]
    if not found and results.quick:  # a quick run follows the predict loop alone
        return Markdown(f"This quick run did not follow the {code(call)} loop under another malloc setting.")
    if not found:
        raise NotInResults(f"no malloc setting but {REFERENCE_MALLOC}'s followed the {call!r} loop")
    verdicts = {name: wording.growth_verdict(memory.late_per_call) for name, memory in found}
    stopped = [name for name, verdict in verdicts.items() if verdict in (wording.Growth.STEADY, wording.Growth.SHRINKS)]
    grew = [name for name, verdict in verdicts.items() if verdict is wording.Growth.GROWS]
    unclear = [name for name, verdict in verdicts.items() if verdict is wording.Growth.INCONCLUSIVE]
    subject = "it" if brief else f"the {code(call)} loop's growth over {found[0][1].calls:,} calls"
    lead = (f"{_listed(stopped)} stopped {subject}" if stopped
            else f"No malloc setting {'clearly ' if unclear else ''}stopped {subject}")
    if brief and not stopped and not unclear:
        return Markdown(f"{_listed(grew)} did not stop it." if len(grew) == 1
                        else f"Neither {_listed(grew, last='nor')} stopped it.")
    if brief:
        return Markdown(lead + ".")
    if not stopped and not unclear:
        return Markdown(f"{lead}: under {_listed(grew)} alike, its second half still grew.")
    sentences = [lead + (": its second half no longer grew." if stopped else ".")]
    if grew:
        sentences.append(f"Under {_listed(grew)}, it still grew.")
    if unclear:
        sentences.append(f"Under {_listed(unclear)}, whether it grew is {wording.Growth.INCONCLUSIVE.value}.")
    return Markdown(" ".join(sentences))

# ------------------------------------------------------------ start-up


def _of_kind(results: ResultsFile, kind: str) -> list[CaseResult]:
    return [case for case in results.cases if case.params.get("kind") == kind]


def imports_table(results: ResultsFile) -> Markdown:
    """Each import as a fresh process, start to exit: its time, and against ``import tensorflow``."""
    found = _of_kind(results, "import")
    try:
        reference = results.case(REFERENCE_IMPORT)
    except NotInResults:
        reference = None
    body = [[code(case.label) if case.label != "python alone" else text("python -c pass"),
             format_time(case.measurement.per_call_s), format_time(case.measurement.median_s),
             speedup_cell(intervals.ratio(reference, case)) if reference is not None and case is not reference
             else "reference" if case is reference else "not measured"]
            for case in found]
    return table(["Fresh process runs", "Time (fastest 10%)", "Median", f"Compared with {REFERENCE_IMPORT}"], body,
                 [LEFT, RIGHT, RIGHT, LEFT])


def contributors_table(results: ResultsFile, label: str) -> Markdown:
    """What ``python -X importtime`` gave each top-level package of one import (its modules' own
    times added up) and the modules that took longest themselves."""
    metrics = results.case(label).metrics
    total = metrics.importtime_total_s
    if not total:
        raise NotInResults(f"case {label!r} has no -X importtime record")
    rows = [[text(kind), code(name), format_time(seconds), f"{seconds / total:.0%}"]
            for key, seconds in sorted(metrics.items(), key=lambda item: -item[1])
            for kind, _, name in [key.partition(" ")] if kind in ("package", "module")]
    rows.sort(key=lambda row: row[0] != "package")  # packages first, each group largest first
    return table(["Counted by", "Name", "Own time", "Share of the import"], rows, [LEFT, LEFT, RIGHT, RIGHT])


def first_prediction_table(results: ResultsFile) -> Markdown:
    """Per model and format: a fresh process's import, load and first prediction, start to exit; one cold
    start's split into its parts, as the child timed them; and the whole against ``.keras``."""
    body = []
    for case in _of_kind(results, "first prediction"):
        p, m = case.params, case.metrics
        try:
            reference = results.case(f"first prediction · {p['model']} · {REFERENCE_FORMAT}")
        except NotInResults:
            reference = None
        against = ("reference" if case is reference else "not measured" if reference is None
                   else speedup_cell(intervals.ratio(reference, case)))
        body.append([Markdown(f"{text(p['model'])}, {code(p['format'])}"), format_time(case.measurement.per_call_s),
                     against, *(format_time(m[part]) if part in m else "not recorded"
                                for part in ("import_s", "load_s", "first_call_s"))])
    # The columns that answer first, after a one-column row label: the whole cold start and whether the
    # format changed it, so that a phone shows them before it must scroll; its parts then.
    return table(["Model, saved as", "Start to first prediction (fastest 10%)", f"Compared with {REFERENCE_FORMAT}",
                  "Import", "Load", "First call"], body, [LEFT, RIGHT, LEFT, RIGHT, RIGHT, RIGHT])


def save_load_table(results: ResultsFile) -> Markdown:
    """Per model and format: building it in code, saving and loading it, call after call in one process,
    with the process's first call apart (the first load pays for what later loads reuse)."""
    body = []
    for kind in ("build", "save", "load"):
        for case in _of_kind(results, kind):
            p = case.params
            body.append([text(p["model"]), text(kind), code(p["format"]) if kind != "build" else text("in code"),
                         format_time(case.measurement.per_call_s), format_time(case.measurement.first_call_s)])
    return table(["Model", "Action", "Format", "Time (fastest 10%)", "First in a process"], body,
                 [LEFT, LEFT, LEFT, RIGHT, RIGHT])
