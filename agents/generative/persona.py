"""Who an agent is: the fixed part of its identity, and the configuration of its mind."""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agents.generative.components import Cognition
from agents.generative.plan import parse_timed

# The head of a timed routine item ("9:30 am" in "9:30 am: go to work").
_CLOCK = re.compile(r"\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?", re.IGNORECASE)


class Persona(BaseModel):
    """Name, age, traits and seed memories (the paper's one-paragraph agent description)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    age: int = Field(ge=0, le=130)
    traits: list[str] = Field(default_factory=list)
    occupation: str = ""
    home: str = Field(min_length=1, description="the room the agent lives in: 'area: room'")
    memories: list[str] = Field(default_factory=list, description="seed memories")
    routine: list[str] = Field(
        default_factory=list,
        description="a usual day in broad strokes: the times and activities a day plan is "
        "chosen from when the model's written plan is unusable",
    )

    @field_validator("routine")
    @classmethod
    def _timed_items_in_order(cls, routine: list[str]) -> list[str]:
        """A routine item that starts with a time must be a time of day, and times run in
        order (the fallback plan resumes from the item in progress): "25:99 xm" is refused
        here, not skipped in the middle of a run."""
        day, previous = datetime(2000, 1, 1), None
        for n, item in enumerate(routine):
            head, colon, _ = item.partition(": ")
            if not colon or not head[:1].isdigit():
                continue
            at, _ = parse_timed(item, day)
            if at is None or not _CLOCK.fullmatch(head.strip()):
                raise ValueError(f"item {n}: {head!r} is not a time of day (write '9:30 am: ...')")
            if previous is not None and at < previous:
                raise ValueError(f"item {n}: {head!r} comes before the item above it")
            previous = at
        return routine

    @property
    def first_name(self) -> str:
        return self.name.split()[0]


class AgentConfig(BaseModel):
    """Knobs of the agent's mind; the defaults suit the embedded 135M model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    context_k: int = Field(6, ge=1, description="memories retrieved for a prompt")
    summary_refresh_hours: float = Field(24.0, gt=0)
    plan_steps: tuple[int, int] = (5, 8)
    day_end_hour: int = Field(22, ge=1, le=24)
    action_minutes: tuple[int, int] = (5, 15)
    react_threshold: float = Field(
        0.5, ge=0.0, le=1.0, description="P(yes) above which an agent stops for a person"
    )
    # Chosen on the reaction adapter's held-out built observations (objects and states it never
    # trained on): balanced accuracy 0.963 at 0.25, against 0.893 for P >= 0.5 alone.
    react_margin: float = Field(
        0.25,
        ge=0.0,
        le=1.0,
        description="an object's new state is reacted to when the reaction judge's P is this "
        "much above its P for the same object idle",
    )
    reaction_minutes: int = Field(30, ge=5)
    chat_cooldown_minutes: int = Field(60, ge=0, description="before the same pair talks again")
    max_turns: int = Field(6, ge=2, description="dialogue lines in one conversation")
    cognition: Cognition = Field(
        default_factory=Cognition, description="the components that are on (for ablations)"
    )
    tokens: dict[str, int] = Field(
        default_factory=lambda: {
            "summary": 32,
            "plan": 96,
            "hourly": 64,
            "actions": 64,
            "reaction": 16,
            "dialogue": 40,
            "interview": 60,
        },
        description="new tokens per generation, per component",
    )
