"""Links and the environment: sources at the measured versions, the example scripts, the machines and
software behind every figure, and the speed simulator."""

from __future__ import annotations

from collections import Counter

from tfspeedlab.core.results.repo import examples_dir
from tfspeedlab.core.results.schema import RUNNERS
from tfspeedlab.render import markdown, templating
from tfspeedlab.render.context import GPU_HOW_TO, Context, Runner
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import directive
from tfspeedlab.render.runners import machine_summary, not_measured
from tfspeedlab.site import listing as listings, quantities, tables
from tfspeedlab.site.simulator import PARAMS_URI, simulator_html


def _measured_version(context: Context, package: str) -> str:
    """The newest version of ``package`` any results file was measured with (the links show that code)."""
    versions = sorted({r.environment[package] for by_example in context.results.values()
                       for r in by_example.values() if r.environment.get(package)},
                      key=lambda version: tuple(int(part) if part.isdigit() else 0 for part in version.split(".")))
    if not versions:
        raise DirectiveError(f"no results to take the {package} version from")
    return versions[-1]


@directive("tf_source", "A link to PATH in TensorFlow's sources at the version the results were measured with.")
def tf_source(context: Context, path: str) -> str:
    return f"https://github.com/tensorflow/tensorflow/blob/v{_measured_version(context, 'tensorflow')}/{path}"


@directive("keras_source", "A link to PATH in Keras 3's sources at the measured version.")
def keras_source(context: Context, path: str) -> str:
    return f"https://github.com/keras-team/keras/blob/v{_measured_version(context, 'keras')}/{path}"


@directive("tf_keras_source", "A link to PATH in the legacy Keras 2 (tf-keras) at the measured version.")
def tf_keras_source(context: Context, path: str) -> str:
    return f"https://github.com/keras-team/tf-keras/blob/v{_measured_version(context, 'tf_keras')}/{path}"


@directive("listing", "The script ``examples/NAME.py`` in a collapsed box, read as a script: no notebook cell "
                      "markers or ``%pip`` lines.")
def listing(context: Context, example: str) -> str:
    script = examples_dir() / f"{example}.py"
    if not script.is_file():
        raise DirectiveError(f"no example script {script}")
    return listings.listing_markdown(script, f"examples/{example}.py")


@directive("environment", "The environment of each runner's results: machine, versions, commit, freshness.")
def environment(context: Context) -> str:
    def body(runner: str) -> str:
        found = context.results[runner]
        if not found:
            return not_measured(runner, "any example")
        return tables.environment_table(list(found.values()), context.cpu_name.with_sets) + "\n"

    return context.tabs(body)


@directive("environment_cpu", "The CPU an example was measured on, by the name every table gives it, with the "
                              "instruction sets its kernels depend on: ``AMD EPYC 25/1 with AVX2``.")
def environment_cpu(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    return markdown.text(context.cpu_name.with_sets(context.lookup(example, runner).environment))


@directive("environment_when", "The CPU an example was measured on and when (UTC): ``AMD EPYC 25/1 with AVX2, "
                               "2026-12-03 17:34``, for an absolute time stated away from its table.")
def environment_when(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    found = context.lookup(example, runner)
    when = found.environment["utc_time"][:16].replace("T", " ")
    return markdown.text(f"{context.cpu_name.with_sets(found.environment)}, {when}")


@directive("measured_on", "One box for the top of a page: the machines, TensorFlow and Keras versions and dates "
                          "behind every figure, or behind the named examples' "
                          "(``{{ measured_on only=memory,startup }}``).")
def measured_on(context: Context, *, only: str = "") -> str:
    examples = [name for name in only.split(",") if name]
    for example in examples:
        context.check_example(example)
    lines = []
    for runner in RUNNERS:
        found = [results for name, results in context.results[runner].items() if not examples or name in examples]
        # Each machine with how many of the examples ran on it: a page whose figures come from two
        # CPU models says which holds most, and that their times are not to be set side by side.
        by_machine = Counter(machine_summary(results.environment, context.cpu_name.with_sets) for results in found)
        dates = sorted(results.environment["utc_time"][:10] for results in found)
        lines.append({
            "title": f"{runner.upper()} runner",
            "machines": [(machine, quantities.count(count, "example")) for machine, count in sorted(by_machine.items())],
            "count": quantities.count(len(found), "example"),
            "versions": sorted({results.environment["tensorflow"] for results in found}),
            "keras": sorted({results.environment.get("keras") or "not installed" for results in found}),
            "tf_keras": sorted({results.environment["tf_keras"] for results in found
                                if results.environment.get("tf_keras")}),
            "dates": (dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}") if dates else "",
            "missing": "not yet measured." if runner == "cpu" else
                       ("not yet measured on GPU; every figure in this guide comes from the CPU runner. "
                        f"[Measure on your machine]({context.relative(GPU_HOW_TO)}) says how to add GPU results."),
        })
    return templating.render("measured_on.md.j2", lines=lines, runners=context.relative("runners.md"),
                             shared=context.relative("runners.md") + "#the-same-workload-on-several-pages")


@directive("simulator", "The speed simulator (HTML and its fitted parameters file).")
def simulator(context: Context) -> str:
    return simulator_html(context.relative_url(PARAMS_URI))
