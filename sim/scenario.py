"""Scenarios as YAML: the world, the agents and their seed memories, timed events.

Every error names the file and the field ("smallville.yaml: agents.2.location: ..."), in one
line; a scenario that loads is consistent (every place exists, every event is in time).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mindstream.agents.generative import Persona
from mindstream.sim.errors import ScenarioError, UnknownPlaceError
from mindstream.sim.world import World

BUILTIN = Path(__file__).parent / "scenarios"


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class AgentSpec(Persona):
    """A persona placed in the world; `location` defaults to home."""

    location: str | None = None


class EventSpec(BaseModel):
    """At a time, an object changes state, or an agent hears an inner voice."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: datetime
    place: str | None = Field(None, description="an object: 'area: room: object'")
    state: str | None = None
    agent: str | None = None
    inner_voice: str | None = None

    at_aware = field_validator("at")(_aware)

    @model_validator(mode="after")
    def _one_kind(self) -> EventSpec:
        if (self.place is None) == (self.agent is None):
            raise ValueError("give either place + state, or agent + inner_voice")
        if self.place is not None and not self.state:
            raise ValueError("an event at a place needs a state")
        if self.agent is not None and not self.inner_voice:
            raise ValueError("an event for an agent needs an inner_voice")
        return self


class Gathering(BaseModel):
    """A planned get-together whose attendance measures coordination (paper section 7)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    topic: str
    area: str
    start: datetime
    end: datetime

    times_aware = field_validator("start", "end")(_aware)


class Scenario(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    start: datetime
    tick_minutes: int = Field(10, ge=1, le=240)
    world: dict[str, dict[str, dict[str, str]]]
    agents: list[AgentSpec] = Field(min_length=1)
    events: list[EventSpec] = Field(default_factory=list)
    topics: dict[str, list[str]] = Field(
        default_factory=dict, description="topic -> keywords, for information diffusion"
    )
    gatherings: list[Gathering] = Field(default_factory=list)
    reflection_threshold: float | None = Field(
        None,
        gt=0,
        description="summed importance of new memories that makes an agent reflect, for this "
        "town (a busier world writes more observations an hour); unset: the configuration's "
        "(the paper's 150)",
    )
    interview: list[str] = Field(
        default_factory=lambda: ["What are you doing today?", "Who do you know in town?"],
        description="questions every agent is asked at the end of a run (for the report)",
    )

    start_aware = field_validator("start")(_aware)

    def unscripted(self) -> Scenario:
        """The same town without routines: each agent's day is chosen from what the world
        affords, scored against its persona and memories."""
        agents = [a.model_copy(update={"routine": []}) for a in self.agents]
        return self.model_copy(update={"agents": agents, "name": f"{self.name}-unscripted"})

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        world = World(self.world)
        names = [a.name for a in self.agents]
        for n, agent in enumerate(self.agents):
            if agent.name in names[:n]:
                first = names.index(agent.name)
                raise _FieldError(
                    f"agents.{n}.name", f"duplicate agent {agent.name!r} (also agents.{first})"
                )
            for field in ("home", "location"):
                _place(world, getattr(agent, field), f"agents.{n}.{field}", room=True)
        for n, event in enumerate(self.events):
            if event.at < self.start:
                raise _FieldError(f"events.{n}.at", f"{event.at} is before the start {self.start}")
            if event.place is not None:
                _place(world, event.place, f"events.{n}.place", room=False)
            if event.agent is not None and event.agent not in names:
                raise _FieldError(f"events.{n}.agent", f"no agent named {event.agent!r}")
        for n, gathering in enumerate(self.gatherings):
            _place(world, gathering.area, f"gatherings.{n}.area", room=False)
            if gathering.topic not in self.topics:
                raise _FieldError(f"gatherings.{n}.topic", f"not one of topics {list(self.topics)}")
        return self


class _FieldError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")


def _place(world: World, path: str | None, field: str, *, room: bool) -> None:
    if path is None:
        return
    try:
        checked = world.check(path)
        if room and len(checked.split(": ")) != 2:
            raise UnknownPlaceError(f"{path!r} is not a room: write 'area: room'")
    except UnknownPlaceError as error:
        raise _FieldError(field, str(error)) from None


class _DatesAsText(yaml.SafeLoader):
    """YAML that leaves dates as text: pydantic parses them, so an impossible date
    (2023-02-30) is reported with its file and field instead of failing inside the parser."""


_DatesAsText.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_scenario(name_or_path: str | Path) -> Scenario:
    """A built-in scenario by name (`smallville`) or a YAML file; ScenarioError if invalid."""
    path = Path(name_or_path)
    if not path.suffix and (BUILTIN / f"{name_or_path}.yaml").is_file():
        path = BUILTIN / f"{name_or_path}.yaml"
    if not path.is_file():
        builtin = ", ".join(p.stem for p in sorted(BUILTIN.glob("*.yaml")))
        raise ScenarioError(f"{path}: no such scenario file (built-in: {builtin})")
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_DatesAsText)
    except yaml.YAMLError as error:
        raise ScenarioError(f"{path.name}: not valid YAML ({str(error).splitlines()[0]})") from None
    return parse_scenario(raw, path.name)


def parse_scenario(raw: Any, source: str = "scenario") -> Scenario:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{source}: the top level must be a mapping")
    try:
        return Scenario.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        shown = f" (got {first['input']!r})" if first["type"] != "value_error" else ""
        raise ScenarioError(f"{source}: {where + ': ' if where else ''}{message}{shown}") from None
