"""What a town's run records: one typed event per thing that happened, read the same way by
the report, the metrics and the web pages (`events.jsonl` holds one per line)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EventKind = Literal[
    "tick",  # where every agent is and what it is doing, once per tick
    "plan",  # a day plan
    "hourly",  # a plan step decomposed into hours
    "actions",  # an hour decomposed into 5-15 minute actions
    "move",
    "react?",  # the probability an agent reacts to what it sees
    "react",  # it did, and re-planned
    "conversation",
    "event",  # an object's state changed (injected or scheduled)
    "inner_voice",  # a whisper
    "reflection",
]


class Whereabouts(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    place: str
    doing: str


class Event(BaseModel):
    """One thing that happened at a tick; the fields its kind uses are set, others are None."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    type: EventKind
    tick: int = 0
    time: str = Field("", description="ISO start of the tick")
    agent: str | None = None
    # plan, hourly, actions
    source: str | None = Field(None, description="where a day plan came from")
    steps: str | list[str] | None = None
    model_wrote: str | None = None
    parent: str | None = Field(None, description="the step that was decomposed")
    parsed: int | None = Field(None, description="usable items in the model's reply")
    # move, react?, react
    from_: str | None = Field(None, alias="from")
    to: str | None = None
    p_yes: float | None = None
    plan: str | None = None
    # conversation
    first: str | None = None
    second: str | None = None
    place: str | None = None
    lines: list[tuple[str, str]] | None = None
    ended_by: str | None = None
    # event, inner_voice, reflection, tick
    state: str | None = None
    text: str | None = None
    insights: list[str] | None = None
    agents: dict[str, Whereabouts] | None = None

    def as_json(self) -> str:
        """The line `events.jsonl` stores (unset fields left out, `from` spelled as such)."""
        return self.model_dump_json(by_alias=True, exclude_none=True)

    def involves(self, name: str) -> bool:
        return name in (self.agent, self.first, self.second)
