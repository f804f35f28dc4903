"""Agents layer: generative agents (Park et al. 2023), the teachable reasoner (TeachMe) and the
personal assistant."""

from typing import TYPE_CHECKING

from mindstream.lm.lazy import attach_declared

if TYPE_CHECKING:
    from mindstream.agents.assistant import Assistant, AssistantConfig
    from mindstream.agents.generative import AgentConfig, GenerativeAgent, Minds, Persona
    from mindstream.agents.teachme import TeachableReasoner, TeachMeConfig, TeachMeSession

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
