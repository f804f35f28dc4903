"""Agents layer: generative agents (Park et al. 2023) and the teachable reasoner (TeachMe)."""

from agents.generative import AgentConfig, GenerativeAgent, Minds, Persona
from agents.teachme import TeachableReasoner, TeachMeConfig, TeachMeSession

__all__ = [
    "AgentConfig",
    "GenerativeAgent",
    "Minds",
    "Persona",
    "TeachMeConfig",
    "TeachMeSession",
    "TeachableReasoner",
]
