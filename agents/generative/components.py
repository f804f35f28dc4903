"""The cognitive steps an agent runs, as components a condition switches off.

An ablation (Generative Agents, section 6) is a configuration, not a code path: which kinds of
memory the agent may retrieve, whether it plans, whether it reflects. The engine asks each
agent which of its steps are on; retrieval filters by the kinds the agent may use.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from mindstream.memory.records import MemoryKind


class MemoryAccess(BaseModel):
    """The kinds of memory an agent may retrieve: None is every kind, () is none at all."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kinds: tuple[MemoryKind, ...] | None = None

    def without(self, *dropped: MemoryKind) -> MemoryAccess:
        kept = tuple(k for k in (self.kinds or tuple(MemoryKind)) if k not in dropped)
        return MemoryAccess(kinds=kept)


class Cognition(BaseModel):
    """Which of the agent's components are on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory: MemoryAccess = Field(default_factory=MemoryAccess)
    plans: bool = Field(True, description="writes and decomposes a day plan")
    reflects: bool = Field(True, description="reflects when its importance trigger fires")
