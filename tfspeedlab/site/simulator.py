"""The speed simulator: its parameters file (the fitted cost model per runner) and its markup."""

from __future__ import annotations

import json

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.stats import cost_model
from tfspeedlab.render import templating
from tfspeedlab.render.runners import RUNNER_TITLES

PARAMS_URI = "assets/simulator/params.json"


def fitted_models(results: dict[str, dict[str, ResultsFile]]) -> dict[str, cost_model.CostModel]:
    """A fitted model per runner that has both sweeps; runners without them have none."""
    return {runner: cost_model.fit(by_example, runner)
            for runner, by_example in results.items() if cost_model.can_fit(by_example)}


def params_json(models: dict[str, cost_model.CostModel]) -> str:
    return json.dumps({"runners": {runner: model.to_json() for runner, model in models.items()}}, indent=2)


def simulator_html(params_url: str) -> str:
    return templating.render("simulator.html.j2", params_url=params_url, runners=RUNNER_TITLES,
                             modes=cost_model.MODES)
