"""Configuration of the sandbox and of its believability ablations (read without importing
the engine)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from mindstream.agents.generative.components import Cognition, MemoryAccess
from mindstream.agents.generative.config import AgentConfig
from mindstream.memory.records import ChangePolicy, MemoryKind, StreamConfig


class SimConfig(BaseModel):
    """How the sandbox runs; the scenario gives the world and the start."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = 0
    reflect: bool = True
    agent: AgentConfig = Field(default_factory=AgentConfig)
    stream: StreamConfig = Field(
        default_factory=lambda: town_stream(),
        description="the town's retrieval policy (hours, days)",
    )


def town_stream() -> StreamConfig:
    """The Park policy; an object's new state supersedes what an agent saw of it before
    (matched by subject, no judge: a town writes many observations a tick)."""
    return StreamConfig(changes=ChangePolicy(enabled=True, use_judge=False))


def _default_conditions() -> dict[str, Condition]:
    every = MemoryAccess()
    nothing = MemoryAccess(kinds=())
    return {
        "full": Condition(label="full architecture"),
        "no_reflection": Condition(
            label="no reflection",
            cognition=Cognition(memory=every.without(MemoryKind.REFLECTION), reflects=False),
        ),
        "no_reflection_planning": Condition(
            label="no reflection, no planning",
            cognition=Cognition(
                memory=every.without(MemoryKind.REFLECTION, MemoryKind.PLAN),
                reflects=False,
                plans=False,
            ),
        ),
        "persona_baseline": Condition(
            label="persona only (in place of the paper's crowdworkers)",
            cognition=Cognition(memory=nothing, reflects=False, plans=False),
            persona_only=True,
        ),
        "fully_ablated": Condition(
            label="no observation, reflection or planning",
            cognition=Cognition(memory=nothing, reflects=False, plans=False),
        ),
    }


class Condition(BaseModel):
    """An ablation condition: the components an interviewed agent keeps. `persona_only`
    answers from the persona's paragraph alone (the stand-in for the paper's crowdworkers)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str = ""
    cognition: Cognition = Field(default_factory=Cognition)
    persona_only: bool = False


class BelievabilityConfig(BaseModel):
    """The conditions compared (a condition is a named entry; add one in the config), and the
    statistics' settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    conditions: dict[str, Condition] = Field(default_factory=_default_conditions)
    only: list[str] | None = Field(None, description="evaluate these conditions only")
    per_category: int | None = Field(
        None,
        ge=1,
        le=5,
        description="interview each agent with this many of each category's five questions, "
        "drawn per agent with `seed` (unset: all 25); 1 suits a 25-agent town",
    )
    bootstrap: int = Field(200, ge=10, description="resamples for the confidence intervals")
    seed: int = 0

    def chosen(self) -> dict[str, Condition]:
        names = self.only or list(self.conditions)
        unknown = [n for n in names if n not in self.conditions]
        if unknown:
            raise ValueError(
                f"believability.only: no condition {unknown} in {list(self.conditions)}"
            )
        return {n: self.conditions[n] for n in names}
