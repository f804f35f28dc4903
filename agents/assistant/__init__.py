"""The personal assistant: one long-lived memory stream, each user the owner of theirs."""

from typing import TYPE_CHECKING

from mindstream.lm.lazy import attach_declared

if TYPE_CHECKING:
    from mindstream.agents.assistant.assistant import Assistant
    from mindstream.agents.assistant.config import AssistantConfig, long_horizon
    from mindstream.agents.assistant.prompting import answer_prompt
    from mindstream.agents.assistant.replies import (
        Correction,
        ReflectionBusy,
        Reply,
        UsedMemory,
    )

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
