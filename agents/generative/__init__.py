"""Generative agents (Park et al. 2023): persona, summary, perceive, plan, react, converse,
interview. The batched steps live in `planning`, `day_choice`, `places` and `social`, wrapped
as components (`steps`) that the agent's loop (`loop`) runs every tick; `Minds` batches model
calls."""

from typing import TYPE_CHECKING

from mindstream.lm.lazy import attach_declared

if TYPE_CHECKING:
    from mindstream.agents.generative.agent import AgentState, GenerativeAgent
    from mindstream.agents.generative.components import Cognition, MemoryAccess
    from mindstream.agents.generative.config import AgentConfig
    from mindstream.agents.generative.loop import (
        AgentLoop,
        Component,
        Outcome,
        Scene,
        Stage,
        Surroundings,
    )
    from mindstream.agents.generative.minds import Minds
    from mindstream.agents.generative.persona import Persona
    from mindstream.agents.generative.places import choose_places
    from mindstream.agents.generative.plan import Plan, PlanStep
    from mindstream.agents.generative.planning import decompose, plan_days, refresh_summaries
    from mindstream.agents.generative.reactions import Sight, decide_reactions, react_to_objects
    from mindstream.agents.generative.social import Conversation, converse, interview
    from mindstream.agents.generative.steps import (
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
