"""Page directives rendered from hand-made results: their figures, their tables, and their errors."""

import re
from dataclasses import replace

import markdown as python_markdown
import pytest

from conftest import synthetic_results
from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import CaseResult
from tfspeedlab.core.spec.layout import Sweep
from tfspeedlab.core.stats import intervals
from tfspeedlab.core.units import UNIT_SPACE, format_ratio, format_time
from tfspeedlab.render.context import ClaimsLedger
from tfspeedlab.site import directives
from tfspeedlab.site.directives import DirectiveError


def context(tmp_path, *files, gpu=()):
    return directives.Context(results={"cpu": {f.example: f for f in files}, "gpu": {f.example: f for f in gpu}},
                              results_root=tmp_path, repo_url=None, page_uri="x.md")


def tabs(rendered: str) -> dict[str, str]:
    """Each content tab's body, by its title; without a GPU measurement there are no tabs, only the
    CPU figures and one line after them saying the GPU is not yet measured: split there."""
    parts = re.split(r'^=== "([^"]+)"$', rendered, flags=re.MULTILINE)
    if len(parts) == 1:
        cpu, line, gpu = rendered.partition("*Not yet measured on GPU")
        return {"CPU": cpu, "GPU": line + gpu}
    return {title: body for title, body in zip(parts[1::2], parts[2::2])}


def sweep_results():
    """Two modes along an op count: eager grows with it, graph stays flat."""
    cases = tuple(
        CaseResult(f"{mode} {n}", {"mode": mode, "n_ops": n},
                   Measurement(tuple(t * f for f in (1.0, 1.02, 0.98)), 10, 1e-2, "test"))
        for mode, times in (("eager", {1: 2e-5, 100: 1e-3}), ("graph", {1: 5e-5, 100: 6e-5}))
        for n, t in times.items()
    )
    return replace(synthetic_results(example="chain"), cases=cases, baseline=None,
                   layout=Sweep("n_ops", baseline="eager"))


def test_time_is_the_case_time_per_call_formatted(tmp_path):
    results = synthetic_results()
    found = directives.render("time", ["demo", "eager"], context(tmp_path, results))
    assert found == format_time(results.case("eager").measurement.per_call_s)
    assert found != directives.render("time", ["demo", "graph"], context(tmp_path, results))


def test_an_unknown_option_names_the_valid_ones(tmp_path):
    ctx = context(tmp_path, synthetic_results())
    with pytest.raises(DirectiveError, match=r"unknown option\(s\) runer; valid options: none"):
        directives.render("results", ["demo", "runer=gpu"], ctx)
    with pytest.raises(DirectiveError, match=r"unknown option\(s\) runer; valid options: runner"):
        directives.render("time", ["demo", "eager", "runer=gpu"], ctx)


@pytest.mark.parametrize("args", [["demo"], ["demo", "eager", "graph"], []])
def test_a_wrong_argument_count_names_the_usage(tmp_path, args):
    with pytest.raises(DirectiveError, match=re.escape("takes {{ time EXAMPLE CASE [runner=cpu|gpu] }}; got")):
        directives.render("time", args, context(tmp_path, synthetic_results()))


def test_results_takes_exactly_one_example(tmp_path):
    with pytest.raises(DirectiveError, match=re.escape("takes {{ results EXAMPLE }}; got 2 argument(s)")):
        directives.render("results", ["demo", "other"], context(tmp_path, synthetic_results()))


def test_an_unknown_directive_names_the_known_ones(tmp_path):
    with pytest.raises(DirectiveError, match=r"unknown directive 'medain'; known: .*\btime\b"):
        directives.render("medain", ["demo", "eager"], context(tmp_path, synthetic_results()))


def test_a_runner_without_results_says_which_file_is_missing(tmp_path):
    with pytest.raises(DirectiveError, match=r"no results file .*gpu.demo\.json; run `tfspeedlab run demo --runner gpu`"):
        directives.render("time", ["demo", "eager", "runner=gpu"], context(tmp_path, synthetic_results()))
    with pytest.raises(DirectiveError, match=r"runner: must be one of cpu, gpu, got 'tpu'; usage: \{\{ time"):
        directives.render("time", ["demo", "eager", "runner=tpu"], context(tmp_path, synthetic_results()))


def test_an_unknown_case_is_an_error_naming_the_cases(tmp_path):
    full_run = replace(synthetic_results(), quick=False)
    with pytest.raises(DirectiveError, match=r"no case 'xla'.*\['eager', 'graph'\]"):
        directives.render("time", ["demo", "xla"], context(tmp_path, full_run))
    # A quick run may leave a case out: its page still builds, and says so.
    assert directives.render("time", ["demo", "xla"], context(tmp_path, synthetic_results())) == \
        "*not measured in this quick run*"


def test_without_a_gpu_run_the_cpu_figures_stand_alone_with_one_line_saying_not_measured(tmp_path):
    rendered = directives.render("results", ["demo"], context(tmp_path, synthetic_results()))
    # No empty GPU tab: the CPU figures, then a single line.
    assert '=== "' not in rendered
    by_tab = tabs(rendered)
    assert by_tab["GPU"].count("Not yet measured on GPU") == 1 and f"10.5{UNIT_SPACE}ms" not in by_tab["GPU"]
    assert len(by_tab["GPU"].strip().splitlines()) == 1
    # Its link says how to add GPU results: "Measure on your machine", relative to the page.
    assert "[Measure on your machine](reproduce.md) says how to add GPU results" in by_tab["GPU"]
    assert "runners.md" not in by_tab["GPU"]
    assert "Not yet measured" not in by_tab["CPU"] and f"10.5{UNIT_SPACE}ms" in by_tab["CPU"]
    assert "assets/results/cpu/demo-light.svg#only-light" in by_tab["CPU"]


def test_with_a_gpu_run_both_runners_get_indented_tabs(tmp_path):
    gpu = synthetic_results(runner="gpu", samples=(2e-4, 2e-4, 2e-4))
    rendered = directives.render("results", ["demo"], context(tmp_path, synthetic_results(), gpu=[gpu]))
    by_tab = tabs(rendered)
    assert list(by_tab) == ["CPU", "GPU"]
    # Tab bodies are indented, as Material's content tabs need.
    assert all(line.startswith("    ") for line in by_tab["CPU"].splitlines() if line.strip())


def test_both_tabs_show_figures_when_both_runners_measured(tmp_path):
    gpu = synthetic_results(runner="gpu", samples=(2e-4, 2e-4, 2e-4))
    by_tab = tabs(directives.render("results", ["demo"], context(tmp_path, synthetic_results(), gpu=[gpu])))
    assert "Not yet measured" not in by_tab["GPU"]
    assert f"| graph | 200{UNIT_SPACE}µs |" in by_tab["GPU"] and f"10.5{UNIT_SPACE}ms" not in by_tab["GPU"]
    assert "results/gpu/demo.json" in by_tab["GPU"] and "results/cpu/demo.json" in by_tab["CPU"]


def test_quick_note_only_for_a_quick_run(tmp_path):
    quick = synthetic_results()
    assert quick.quick
    assert "Quick run" in tabs(directives.render("results", ["demo"], context(tmp_path, quick)))["CPU"]
    full = replace(quick, quick=False)
    assert "Quick run" not in directives.render("results", ["demo"], context(tmp_path, full))


def table_header(rendered: str) -> list[str]:
    """The header cells of the first pipe table in the Markdown."""
    line = next(line.strip() for line in rendered.splitlines() if line.strip().startswith("|"))
    return [cell.strip() for cell in line.strip("|").split(" | ")]


def test_default_layout_renders_the_per_case_table(tmp_path):
    rendered = tabs(directives.render("results", ["demo"], context(tmp_path, synthetic_results())))["CPU"]
    assert table_header(rendered) == ["Case", "Per call", "Speed-up (95% interval)", "First call", "Median · spread",
                                      "Calls × blocks"]


def test_sweep_layout_renders_the_sweep_table(tmp_path):
    rendered = tabs(directives.render("results", ["chain"], context(tmp_path, sweep_results())))["CPU"]
    assert table_header(rendered) == ["n ops", "eager", "graph", "graph vs eager"]
    rows = [line.strip() for line in rendered.splitlines() if re.match(r"\s*\| \d", line)]
    assert [row.split(" | ")[0] for row in rows] == ["| 1", "| 100"]
    # Each time is the case's 10th percentile: 0.984 × the middle sample of (1.0, 1.02, 0.98) × t.
    # One process per case here: the sweep's speed-ups get no verdict.
    assert rows[1].startswith(f"| 100 | 984{UNIT_SPACE}µs | 59.0{UNIT_SPACE}µs | no verdict¹")
    assert rendered.count("Timed in one process: times only") == 1


def test_labels_and_titles_are_escaped_in_the_rendered_markdown(tmp_path):
    base = synthetic_results()
    cases = (replace(base.cases[0], label="a|b"), replace(base.cases[1], label="<b>bold</b>"))
    hostile = replace(base, cases=cases, baseline="a|b", title="Demo] (javascript:x) <img src=x>")
    rendered = directives.render("results", ["demo"], context(tmp_path, hostile))
    assert "a\\|b" in rendered and "<b>" not in rendered and "&lt;b&gt;bold&lt;/b&gt;" in rendered
    assert "<img" not in rendered
    html = python_markdown.markdown(tabs(rendered)["CPU"].replace("\n    ", "\n"), extensions=["tables"])
    assert "<b>" not in html
    # The only images are the two charts, the title being their alt text.
    assert re.findall(r'<img alt="([^"]*)"', html) == ["Demo] (javascript:x) &lt;img src=x&gt;, time per call on cpu"] * 2
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.DOTALL)
    assert len(rows) == 3 and all(row.count("<td") in (0, 6) for row in rows)
    assert "<td>a|b</td>" in html and "<td>&lt;b&gt;bold&lt;/b&gt;</td>" in html


def three_runs(scale):
    noise = (1.0, 1.02, 0.99, 1.03, 1.01, 0.98, 1.04, 1.0, 1.02, 0.99)
    return tuple(Measurement(tuple(scale * (n + 0.005 * p) for n in noise), 10, 1e-2, "test") for p in range(3))


def runs_results(example="runs", **scales):
    cases = tuple(CaseResult(label, {"mode": label}, three_runs(scale)) for label, scale in scales.items())
    return replace(synthetic_results(example=example), cases=cases, baseline=next(iter(scales)), quick=False)


def test_verdict_and_interval_follow_the_bootstrap_interval(tmp_path):
    ctx = context(tmp_path, runs_results(eager=10e-3, graph=1e-3, twin=10.05e-3))
    assert directives.render("factor", ["runs", "eager", "graph"], ctx).startswith("10.0×\xa0faster [")
    assert directives.render("factor", ["runs", "graph", "eager"], ctx).startswith("10.0×\xa0slower [")
    # Half a percent apart: the same, within what the interval resolved.
    assert directives.render("factor", ["runs", "eager", "twin"], ctx).startswith("the same within ")
    found = intervals.speedup(ctx.lookup("runs", "cpu"), "eager", "graph")
    assert found.low < 10.0 < found.high and format_ratio(found.value) == "10.0×"


def test_agreement_compares_the_same_workload_across_files(tmp_path):
    ctx = context(tmp_path, runs_results("one", eager=10e-3, graph=1e-3), runs_results("two", eager=10e-3, graph=1.3e-3))
    same = directives.render("agreement", ["one", "eager", "two", "eager"], ctx)
    assert same.startswith("the same within ")
    assert directives.render("agreement", ["one", "graph", "two", "graph"], ctx).startswith("1.30×\xa0faster [")
    assert directives.render("agreement", ["two", "graph", "one", "graph"], ctx).startswith("1.30×\xa0slower [")


def test_estimator_experiment_lists_every_candidate_and_marks_the_chosen_one(tmp_path):
    rendered = tabs(directives.render("estimators", ["runs"],
                                      context(tmp_path, runs_results(eager=10e-3, graph=1e-3, twin=10.05e-3))))["CPU"]
    assert "**10th percentile of all blocks**" in rendered and "fastest block" in rendered
    assert "graph vs eager: speed-up · worst split" in rendered and "twin vs eager" in rendered
    assert "3 processes per case; a split compares 1 processes with the other 2" in rendered
    single = tabs(directives.render("estimators", ["demo"], context(tmp_path, synthetic_results())))
    assert "needs two or more" in single["CPU"]


def test_estimator_summary_says_which_candidate_the_data_favours_and_never_stops_the_build(tmp_path, monkeypatch):
    """The estimator is a method chosen once: a re-measure that favours another still builds, and says so."""
    from tfspeedlab.core.stats import intervals

    ctx = context(tmp_path, runs_results(eager=10e-3, graph=1e-3))
    said = []
    for name in intervals.ESTIMATORS:
        monkeypatch.setattr(intervals, "CHOSEN", name)
        rendered = tabs(directives.render("estimator_summary", ["runs"], ctx))["CPU"]
        assert f"**{name}**" in rendered
        said.append("favour the guide's estimator" in rendered)
    # The chosen estimator is favoured under some choices, not under others: both read, neither stops.
    assert any(said) and not all(said)

def test_process_runs_lists_each_process_median_and_their_spread(tmp_path):
    slow_process = (Measurement((1e-3,) * 5, 10, 1e-2, "test"), Measurement((1e-3,) * 5, 10, 1e-2, "test"),
                    Measurement((2e-3,) * 5, 10, 1e-2, "test"))
    results = replace(synthetic_results(example="runs"), baseline=None, quick=False, cases=(
        CaseResult("bimodal", {"mode": "a"}, slow_process),
        CaseResult("single", {"mode": "b"}, (Measurement((3e-6,) * 5, 10, 1e-2, "test"),)),
    ))
    rendered = tabs(directives.render("process_runs", ["runs"], context(tmp_path, results)))
    assert "Not yet measured on GPU" in rendered["GPU"]
    rendered = rendered["CPU"]
    # The slow process shows beside the others, and the spread says how far apart: (2 − 1) ÷ median 1 ms.
    assert "| bimodal | 1.00 ms · 1.00 ms · 2.00 ms | 100% |".replace(" ms", f"{UNIT_SPACE}ms") in rendered
    assert f"| single | 3.00{UNIT_SPACE}µs | one process |" in rendered


@pytest.mark.parametrize("values, noun, phrase", [
    ([], "size", "at no measured size"),
    ([8], "size", "at size 8"),
    ([8, 16], "size", "at sizes 8 and 16"),
    ([8, 16, 32.0], "size", "at sizes 8, 16 and 32"),
])
def test_lists_read_as_sentences(values, noun, phrase):
    from tfspeedlab.site import quantities

    assert quantities.at_values(values, noun) == phrase


@pytest.mark.parametrize("value, noun, phrase", [
    (0, "time", "0 times"), (1, "time", "once"), (2, "time", "twice"), (10, "time", "10 times"),
    (1, "trace", "1 trace"), (3.0, "trace", "3 traces"),
])
def test_counts_read_as_words(value, noun, phrase):
    from tfspeedlab.site import quantities

    assert quantities.count(value, noun) == phrase


def test_measured_on_names_the_machines_and_says_when_no_gpu_was_measured(tmp_path):
    cpu = synthetic_results()
    cpu = replace(cpu, environment={**cpu.environment, "cpu_model": "<b>Hostile</b> CPU"})
    rendered = directives.render("measured_on", [], context(tmp_path, cpu))
    assert "measured 1 example on 2026-01-01 UTC, with TensorFlow 2.99.0 and Keras not installed." in rendered
    assert "It ran on &lt;b&gt;Hostile&lt;/b&gt; CPU, 2 logical cores." in rendered
    assert "not yet measured on GPU" in rendered
    # How to add GPU results: the page that measures on a GPU, not Runners (which linked back to itself).
    assert "[Measure on your machine](reproduce.md) says how to add GPU results." in rendered
    gpu = synthetic_results(runner="gpu")
    gpu = replace(gpu, environment={**gpu.environment, "gpus": [{"name": "Tesla T4"}]})
    rendered = directives.render("measured_on", [], context(tmp_path, cpu, gpu=(gpu,)))
    assert "Tesla T4 (Test CPU, 2 logical cores)" in rendered and "not yet measured on GPU" not in rendered


# ------------------------------------------------------------ {{ listing NAME }}

NOTEBOOK_STYLE_EXAMPLE = '''# %% [markdown]
# # A demo: one op, timed
#
# Run it with `python examples/demo.py`.

# %%
# %pip install -q "tfspeedlab @ git+https://example.invalid/tfspeedlab"

# %%
import time  # a code comment stays as written

# %% [markdown]
# ## Section text, kept as a comment
#
# A ``literal`` with two backticks.

# %%
def work():
    # %d in a code comment is not a magic line
    return time.sleep(0)


# %%
if __name__ == "__main__":
    work()
'''


def code_blocks(html: str) -> list[str]:
    """The text of each highlighted code block in the HTML, unescaped and without its markup."""
    import html as html_module

    return [html_module.unescape(re.sub(r"<[^>]+>", "", block))
            for block in re.findall(r"<code>(.*?)</code>", html, re.DOTALL)]


def test_listing_is_a_collapsed_box_holding_the_script_without_notebook_markers(tmp_path, monkeypatch):
    import ast

    (tmp_path / "demo.py").write_text(NOTEBOOK_STYLE_EXAMPLE)
    monkeypatch.setenv("TFSPEEDLAB_EXAMPLES", str(tmp_path))
    ctx = replace(context(tmp_path), known_examples=frozenset({"demo"}))
    rendered = directives.render("listing", ["demo"], ctx)

    assert rendered.startswith('??? example "The full example script (uses the tfspeedlab harness)"\n')
    assert '```python title="examples/demo.py"' in rendered
    assert "# %%" not in rendered and "%pip" not in rendered and "[markdown]" not in rendered
    # Markdown cells read as plain comments; code and its comments are untouched.
    assert "    # A demo: one op, timed\n" in rendered and "# # A demo" not in rendered
    assert "    # Section text, kept as a comment\n" in rendered
    assert "# a code comment stays as written" in rendered and "# %d in a code comment" in rendered
    # No gap wider than PEP 8's two blank lines where the markers were.
    assert "\n    \n    \n    \n" not in rendered

    html = python_markdown.markdown(rendered, extensions=["admonition", "pymdownx.details", "pymdownx.superfences"])
    assert html.startswith('<details class="example">') and "uses the tfspeedlab harness" in html
    [shown] = code_blocks(html)
    # Only comment lines changed: the code shown is the code that runs.
    assert ast.dump(ast.parse(shown)) == ast.dump(ast.parse(NOTEBOOK_STYLE_EXAMPLE))
    assert shown.startswith("# A demo: one op, timed\n#\n# Run it with `python examples/demo.py`.\n\nimport time")


def test_listing_of_every_example_keeps_its_code_and_drops_every_marker():
    import ast

    from tfspeedlab.core.results.repo import examples_dir
    from tfspeedlab.site.listing import readable_source

    scripts = sorted(examples_dir().glob("*.py"))
    assert scripts
    for script in scripts:
        source = script.read_text(encoding="utf-8")
        shown = readable_source(source)
        assert ast.dump(ast.parse(shown)) == ast.dump(ast.parse(source)), script.name
        assert not re.search(r"^# %%|%pip|^# #", shown, re.MULTILINE), script.name


def test_listing_of_a_missing_example_names_the_known_ones(tmp_path):
    ctx = replace(context(tmp_path), known_examples=frozenset({"matmul"}))
    with pytest.raises(DirectiveError, match=r"no example 'matmull'; examples: matmul"):
        directives.render("listing", ["matmull"], ctx)


def test_every_page_shows_an_example_script_through_the_listing_directive():
    """A raw snippet include would show the notebook markers, expanded, on a page."""
    from conftest import REPO

    for page in sorted((REPO / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'--8<--\s*"examples/', text), f"{page.name}: use {{{{ listing NAME }}}}"


def test_one_figure_per_claim_a_case_time_stated_two_ways_stops_the_build(tmp_path):
    """The same (example, case) rendered with two different values (here a page that read other
    times) is two figures for one claim."""
    results = synthetic_results(samples=(1e-3, 1.5e-3, 1.2e-3, 2.0e-3))
    ledger = ClaimsLedger()
    first = directives.Context(results={"cpu": {"demo": results}, "gpu": {}}, results_root=tmp_path, page_uri="a.md",
                               ledger=ledger)
    second = directives.Context(results={"cpu": {"demo": results}, "gpu": {}}, results_root=tmp_path,
                                page_uri="b.md", ledger=ledger)
    shown = directives.render("time", ["demo", "eager"], first)
    assert directives.render("time", ["demo", "eager"], second) == shown  # the same claim, the same figure
    other = directives.Context(results={"cpu": {"demo": synthetic_results(samples=(3e-3, 3.5e-3, 4e-3))},
                                        "gpu": {}}, results_root=tmp_path, page_uri="b.md", ledger=ledger)
    with pytest.raises(DirectiveError, match=r"time per call · cpu · demo · eager reads .* here but .* on a\.md"):
        directives.render("time", ["demo", "eager"], other)

def test_a_results_table_shows_the_times_its_speedups_divide(tmp_path):
    """Two shown times divide to the shown speed-up, within rounding."""
    results = replace(runs_results(eager=10e-3, graph=1.3e-3), example="demo")
    cpu = tabs(directives.render("results", ["demo"], context(tmp_path, results)))["CPU"]
    row = {line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:]]
           for line in cpu.splitlines() if line.strip().startswith("| eager") or line.strip().startswith("| graph")}
    eager, graph = (float(row[name][0].split("\u00a0")[0]) for name in ("eager", "graph"))
    factor = float(row["graph"][1].split("×")[0])
    assert abs(eager / graph - factor) / factor < 0.03
