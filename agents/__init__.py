"""Agents layer: generative agents (Park et al. 2023), the teachable reasoner (TeachMe) and the
personal assistant."""

from typing import TYPE_CHECKING

from lm.lazy import attach

if TYPE_CHECKING:
    from agents.assistant import Assistant, AssistantConfig
    from agents.generative import AgentConfig, GenerativeAgent, Minds, Persona
    from agents.teachme import TeachableReasoner, TeachMeConfig, TeachMeSession

__getattr__, __dir__ = attach(
    __name__,
    {
        "agents.assistant": (
            "Assistant",
            "AssistantConfig",
        ),
        "agents.generative": (
            "AgentConfig",
            "GenerativeAgent",
            "Minds",
            "Persona",
        ),
        "agents.teachme": (
            "TeachableReasoner",
            "TeachMeConfig",
            "TeachMeSession",
        ),
    },
)

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
