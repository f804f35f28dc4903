"""Agents layer: generative agents (Park et al. 2023), the teachable reasoner (TeachMe) and the
personal assistant."""

from agents.assistant import Assistant, AssistantConfig
from agents.generative import AgentConfig, GenerativeAgent, Minds, Persona
from agents.teachme import TeachableReasoner, TeachMeConfig, TeachMeSession

__all__ = [
    "AgentConfig",
    "Assistant",
    "AssistantConfig",
    "GenerativeAgent",
    "Minds",
    "Persona",
    "TeachMeConfig",
    "TeachMeSession",
    "TeachableReasoner",
]
