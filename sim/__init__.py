"""The sandbox: a world of places and objects, a clock, scenarios, the engine, metrics."""

from typing import TYPE_CHECKING

from lm.lazy import attach_declared

if TYPE_CHECKING:
    from sim.checkpoint import RunFolder
    from sim.clock import SimClock
    from sim.config import SimConfig
    from sim.engine import Engine
    from sim.errors import CheckpointError, ScenarioError, SimError, UnknownPlaceError
    from sim.scenario import Scenario, load_scenario, parse_scenario
    from sim.world import World

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
