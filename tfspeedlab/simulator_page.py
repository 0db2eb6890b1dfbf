"""The speed simulator's parameters file and its page sections, built from results."""

from __future__ import annotations

import json
import statistics

from tfspeedlab import model as cost_model
from tfspeedlab.results import ResultsFile
from tfspeedlab.units import format_time

PARAMS_URI = "assets/simulator/params.json"
RUNNER_LABELS = {"cpu": "CPU", "gpu": "GPU"}


def fitted_models(results: dict[str, dict[str, ResultsFile]]) -> dict[str, cost_model.CostModel]:
    """A fitted model per runner that has both sweeps; runners without them have none."""
    models = {}
    for runner, by_example in results.items():
        if all(name in by_example for name in cost_model.FIT_EXAMPLES):
            models[runner] = cost_model.fit(by_example, runner)
    return models


def params_json(models: dict[str, cost_model.CostModel]) -> str:
    return json.dumps({"runners": {runner: model.to_json() for runner, model in models.items()}}, indent=2)


def simulator_html(params_url: str) -> str:
    runner_options = "".join(f'<option value="{runner}">{label}</option>' for runner, label in RUNNER_LABELS.items())
    rows = "".join(
        f'<tr><th scope="row">{mode}</th><td><output name="per_call_{mode}" for="tfsl-ops tfsl-side">–</output></td>'
        f'<td><output name="total_{mode}" for="tfsl-ops tfsl-side tfsl-calls">–</output></td></tr>'
        for mode in cost_model.MODES
    )
    return f"""<div class="tfsl-simulator" data-params="{params_url}">
<form aria-label="Speed simulator inputs">
<label for="tfsl-runner">Runner preset</label>
<select id="tfsl-runner" name="runner">{runner_options}</select>
<span></span>
<label for="tfsl-ops">Ops per call</label>
<input type="range" name="ops_range" min="1" max="1000" value="150" aria-label="Ops per call, slider">
<input type="number" id="tfsl-ops" name="ops" min="1" max="100000" value="150">
<label for="tfsl-side">Tensor side (n × n)</label>
<input type="range" name="side_range" min="1" max="2000" value="10" aria-label="Tensor side, slider">
<input type="number" id="tfsl-side" name="side" min="1" max="20000" value="10">
<label for="tfsl-calls">Number of calls</label>
<input type="number" id="tfsl-calls" name="calls" min="1" max="100000000" value="1000">
<span></span>
</form>
<p class="tfsl-status">Loading the fitted parameters… (the simulator needs JavaScript)</p>
<p>Tensor: <output name="elements" for="tfsl-side">–</output></p>
<table>
<thead><tr><th>Mode</th><th>Time per call</th><th>Total, first call's tracing included</th></tr></thead>
<tbody>{rows}</tbody>
</table>
<ul>
<li><code>tf.function</code> speed-up per call: <output name="speedup_graph">–</output>; XLA: <output name="speedup_xla">–</output></li>
<li>Break-even: <code>tf.function</code> wins above <output name="break_even">–</output></li>
<li>Tracing pays for itself after <output name="payback">–</output></li>
</ul>
<svg role="img" aria-label="Total time against number of calls for eager, graph and XLA"></svg>
</div>
"""


def parameters_table(model: cost_model.CostModel) -> str:
    lines = ["| Parameter | eager | graph | XLA |", "| --- | --: | --: | --: |"]
    names = (("call_s", "Fixed cost per call (*call*)"), ("op_s", "Cost per op (*op*)"),
             ("element_s", "Kernel cost per element per op (*element*)"),
             ("trace_s", "First-call extra, fixed (*trace*)"), ("trace_op_s", "First-call extra per op (*trace_op*)"))
    for field, label in names:
        cells = [format_time(getattr(model.modes[mode], field)) for mode in cost_model.MODES]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("| Worst miss on its fitted points | " +
                 " | ".join(f"{model.fit_error[mode]:.0%}" for mode in cost_model.MODES) + " |")
    return "\n".join(lines)


def validation_section(model: cost_model.CostModel, results: dict[str, ResultsFile]) -> str:
    predictions, outside = cost_model.validate(model, results)
    parts = []
    for held_out, title in ((False, "Fitted"), (True, "Held-out")):
        rows = [p for p in predictions if p.held_out == held_out]
        if not rows:
            parts.append(f"**{title}:** no such workloads measured on this runner.")
            continue
        errors = [abs(p.relative_error) for p in rows]
        parts.append(f"**{title}** ({len(rows)} cases): median miss {statistics.median(errors):.0%}, "
                     f"worst {max(errors):.0%}.")
        table = ["| Workload | Case | Ops | Elements | Measured | Predicted | Error |",
                 "| --- | --- | --: | --: | --: | --: | --: |"]
        for p in rows:
            table.append(f"| `{p.example}` | {p.case} | {p.ops} | {p.elements:,} | {format_time(p.measured_s)} | "
                         f"{format_time(p.predicted_s)} | {p.relative_error:+.0%} |")
        parts.append("\n".join(table))
    if outside:
        parts.append("Outside the model (not chains of elementwise ops): " +
                     ", ".join(f"`{name}`" for name in outside) + ".")
    return "\n\n".join(parts)


def summary(model: cost_model.CostModel, results: dict[str, ResultsFile]) -> dict[str, float]:
    """Median and worst absolute relative error, fitted and held-out: for notes and tests."""
    predictions, _ = cost_model.validate(model, results)
    out = {}
    for held_out, name in ((False, "fitted"), (True, "held_out")):
        errors = [abs(p.relative_error) for p in predictions if p.held_out == held_out]
        if errors:
            out[f"{name}_median"] = statistics.median(errors)
            out[f"{name}_worst"] = max(errors)
    return out
