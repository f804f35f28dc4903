"""Configuration of the sandbox (read without importing the engine)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agents.generative.persona import AgentConfig
from memory.records import StreamConfig


class SimConfig(BaseModel):
    """How the sandbox runs; the scenario gives the world and the start."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = 0
    reflect: bool = True
    agent: AgentConfig = Field(default_factory=AgentConfig)
    stream: StreamConfig = Field(
        default_factory=StreamConfig, description="the town's retrieval policy (hours, days)"
    )
