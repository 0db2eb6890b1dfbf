"""The speed simulator: its parameters file (the fitted cost model per runner) and its markup."""

from __future__ import annotations

import json
from collections.abc import Mapping

from tfspeedlab.core.stats import cost_model
from tfspeedlab.render import templating
from tfspeedlab.render.runners import RUNNER_TITLES

PARAMS_URI = "assets/simulator/params.json"


def params_json(models: Mapping[str, cost_model.CostModel]) -> str:
    return json.dumps({"runners": {runner: model.to_json() for runner, model in models.items()}}, indent=2)


def simulator_html(params_url: str) -> str:
    return templating.render("simulator.html.j2", params_url=params_url, runners=RUNNER_TITLES,
                             modes=cost_model.MODES)
