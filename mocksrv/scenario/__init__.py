"""QA scenarios as YAML files: the format (schema.json), loading and checking, running, reporting.

scenario = load_scenario("scenarios/declined_card.yaml")   # InvalidScenario lists every problem
with target(url, admin_key) as where:
    result = run_scenario(scenario, where)
"""

from __future__ import annotations

from mocksrv.scenario.format import InvalidScenario, Problem, Scenario, Step, schema
from mocksrv.scenario.loading import load_scenario
from mocksrv.scenario.results import Outcome, ScenarioResult
from mocksrv.scenario.runner import run_scenario, run_scenarios
from mocksrv.scenario.targets import Target, target

__all__ = [
    "InvalidScenario",
    "Outcome",
    "Problem",
    "Scenario",
    "ScenarioResult",
    "Step",
    "Target",
    "load_scenario",
    "run_scenario",
    "run_scenarios",
    "schema",
    "target",
]
