"""Who an agent is: the fixed part of its identity (its mind's configuration: `config`)."""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from mindstream.agents.generative.plan import parse_timed

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

    def describes(self, phrase: str) -> bool:
        """Whether `phrase` says what this person is (its occupation, a trait, what a seed
        memory says it is) rather than what it does: the small model lists "watercolour
        painter" as Jennifer's activity for the hour."""
        low = phrase.lower().strip()
        if not low:
            return False
        named = re.compile(rf"\b{re.escape(low)}\b")  # "painter" names no "paint"
        if any(named.search(d.lower()) for d in (self.occupation, *self.traits) if d):
            return True
        said_to_be = re.compile(rf"\bis (?:an? |the )?{re.escape(low)}\b")
        return any(said_to_be.search(m.lower()) for m in self.memories)
