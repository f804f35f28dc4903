"""The personal assistant: one long-lived memory stream, each user the owner of theirs."""

from agents.assistant.assistant import Assistant, Correction, Reply, UsedMemory
from agents.assistant.config import AssistantConfig, long_horizon
from agents.assistant.prompting import answer_prompt

__all__ = [
    "Assistant",
    "AssistantConfig",
    "Correction",
    "Reply",
    "UsedMemory",
    "answer_prompt",
    "long_horizon",
]
