"""The sandbox: a world of places and objects, a clock, scenarios, the engine, metrics."""

from typing import TYPE_CHECKING

from mindstream.lm.lazy import attach_declared

if TYPE_CHECKING:
    from mindstream.sim.checkpoint import RunFolder
    from mindstream.sim.clock import SimClock
    from mindstream.sim.config import SimConfig
    from mindstream.sim.engine import Engine
    from mindstream.sim.errors import CheckpointError, ScenarioError, SimError, UnknownPlaceError
    from mindstream.sim.scenario import Scenario, load_scenario, parse_scenario
    from mindstream.sim.world import World

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
