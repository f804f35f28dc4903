"""What a town's run records: one typed event per thing that happened, read the same way by
the report, the metrics and the web pages (`events.jsonl` holds one per line).

`Event` is a union discriminated by `type`: each kind has exactly the fields it uses, so a
reader that has picked a kind (`isinstance(e, Tick)`) gets them typed, and a log line with a
field its kind does not have is refused.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class Whereabouts(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    place: str
    doing: str


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    tick: int = 0
    time: str = Field("", description="ISO start of the tick")

    def as_json(self) -> str:
        """The line `events.jsonl` stores (unset fields left out, `from` spelled as such)."""
        return self.model_dump_json(by_alias=True, exclude_none=True)

    def involves(self, name: str) -> bool:
        return name in (getattr(self, "agent", None), *self._others())

    def _others(self) -> tuple[str, ...]:
        return ()


class Tick(_Event):
    """Where every agent is and what it is doing, once per tick."""

    type: Literal["tick"] = "tick"
    agents: dict[str, Whereabouts] = {}
    # the run's wall time and model requests so far (every segment), when the tick ended:
    # what the first hours of a run cost can be read back (None in logs from before)
    wall_seconds: float | None = None
    requests: int | None = None


class DayPlan(_Event):
    type: Literal["plan"] = "plan"
    agent: str
    source: str = "model"  # written by the model, or "chosen ..." part by part
    steps: str = ""
    model_wrote: str | None = None
    choices: int | None = None  # a chosen plan's parts that were a choice between two options


class Decomposed(_Event):
    """A plan step broken into hours, or an hour into 5-15 minute actions."""

    type: Literal["hourly", "actions"]
    agent: str
    parent: str  # the step that was decomposed
    steps: list[str] = []
    parsed: int | None = Field(None, description="usable items in the model's reply")


class Move(_Event):
    type: Literal["move"] = "move"
    agent: str
    from_: str | None = Field(None, alias="from")
    to: str


class ReactDecision(_Event):
    """The probability an agent reacts to what it sees."""

    type: Literal["react?"] = "react?"
    agent: str
    to: str
    p_yes: float
    baseline: float | None = None  # the reaction judge's P for the same object idle


class Reaction(_Event):
    """It did, and re-planned."""

    type: Literal["react"] = "react"
    agent: str
    to: str
    plan: str
    changed: str | None = None  # the object's state the deed left ("...: stove is idle")


class Talked(_Event):
    """A conversation and its lines."""

    type: Literal["conversation"] = "conversation"
    first: str
    second: str
    place: str
    lines: list[tuple[str, str]] = []
    told: list[tuple[str, str]] = []  # (teller, news) a line carried
    ended_by: str = "limit"

    def _others(self) -> tuple[str, ...]:
        return (self.first, self.second)


class ObjectChange(_Event):
    """An object's state changed (injected or scheduled)."""

    type: Literal["event"] = "event"
    place: str
    state: str


class InnerVoice(_Event):
    """A whisper."""

    type: Literal["inner_voice"] = "inner_voice"
    agent: str
    text: str


class Reflected(_Event):
    type: Literal["reflection"] = "reflection"
    agent: str
    insights: list[str] = []


Event = Annotated[
    Tick
    | DayPlan
    | Decomposed
    | Move
    | ReactDecision
    | Reaction
    | Talked
    | ObjectChange
    | InnerVoice
    | Reflected,
    Field(discriminator="type"),
]
EVENT = TypeAdapter(Event)
