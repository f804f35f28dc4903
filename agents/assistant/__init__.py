"""The personal assistant: one long-lived memory stream, each user the owner of theirs."""

from typing import TYPE_CHECKING

from lm.lazy import attach

if TYPE_CHECKING:
    from agents.assistant.assistant import (
        Assistant,
        Correction,
        ReflectionBusy,
        Reply,
        UsedMemory,
    )
    from agents.assistant.config import AssistantConfig, long_horizon
    from agents.assistant.prompting import answer_prompt

__getattr__, __dir__ = attach(
    __name__,
    {
        "agents.assistant.assistant": (
            "Assistant",
            "Correction",
            "ReflectionBusy",
            "Reply",
            "UsedMemory",
        ),
        "agents.assistant.config": (
            "AssistantConfig",
            "long_horizon",
        ),
        "agents.assistant.prompting": ("answer_prompt",),
    },
)

__all__ = [
    "Assistant",
    "AssistantConfig",
    "Correction",
    "ReflectionBusy",
    "Reply",
    "UsedMemory",
    "answer_prompt",
    "long_horizon",
]
