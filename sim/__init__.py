"""The sandbox: a world of places and objects, a clock, scenarios, the engine, metrics."""

from sim.checkpoint import RunFolder
from sim.clock import SimClock
from sim.engine import Engine, SimConfig
from sim.errors import CheckpointError, ScenarioError, SimError, UnknownPlaceError
from sim.scenario import Scenario, load_scenario, parse_scenario
from sim.world import World

__all__ = [
    "CheckpointError",
    "Engine",
    "RunFolder",
    "Scenario",
    "ScenarioError",
    "SimClock",
    "SimConfig",
    "SimError",
    "UnknownPlaceError",
    "World",
    "load_scenario",
    "parse_scenario",
]
