"""Generative agents (Park et al. 2023): persona, summary, perceive, plan, react, converse,
interview. The batched steps live in `planning`, `day_choice`, `places` and `social`, wrapped
as components (`steps`) that the agent's loop (`loop`) runs every tick; `Minds` batches model
calls."""

from typing import TYPE_CHECKING

from lm.lazy import attach_declared

if TYPE_CHECKING:
    from agents.generative.agent import AgentState, GenerativeAgent
    from agents.generative.components import Cognition, MemoryAccess
    from agents.generative.config import AgentConfig
    from agents.generative.loop import AgentLoop, Component, Outcome, Scene, Stage, Surroundings
    from agents.generative.minds import Minds
    from agents.generative.persona import Persona
    from agents.generative.places import choose_places
    from agents.generative.plan import Plan, PlanStep
    from agents.generative.planning import decompose, plan_days, refresh_summaries
    from agents.generative.social import (
        Conversation,
        Sight,
        converse,
        decide_reactions,
        interview,
        react_to_objects,
    )
    from agents.generative.steps import (
        DayPlanning,
        Decomposition,
        Dialogue,
        Movement,
        ObjectReaction,
        Perception,
        Placement,
        Reacting,
        Reflection,
        Summaries,
        town_day,
    )

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
