"""The sandbox: a world of places and objects, a clock, scenarios, the engine, metrics."""

from typing import TYPE_CHECKING

from lm.lazy import attach

if TYPE_CHECKING:
    from sim.checkpoint import RunFolder
    from sim.clock import SimClock
    from sim.config import SimConfig
    from sim.engine import Engine
    from sim.errors import CheckpointError, ScenarioError, SimError, UnknownPlaceError
    from sim.scenario import Scenario, load_scenario, parse_scenario
    from sim.world import World

__getattr__, __dir__ = attach(
    __name__,
    {
        "sim.checkpoint": ("RunFolder",),
        "sim.clock": ("SimClock",),
        "sim.config": ("SimConfig",),
        "sim.engine": ("Engine",),
        "sim.errors": (
            "CheckpointError",
            "ScenarioError",
            "SimError",
            "UnknownPlaceError",
        ),
        "sim.scenario": (
            "Scenario",
            "load_scenario",
            "parse_scenario",
        ),
        "sim.world": ("World",),
    },
)

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
