"""A run's record, typed: the events of `events.jsonl` and the summary of `summary.json`, read
by the report, the metrics and the web pages through one schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from mindstream.agents.generative.events import (
    EVENT,
    DayPlan,
    Decomposed,
    Event,
    InnerVoice,
    Move,
    ObjectChange,
    ReactDecision,
    Reaction,
    Reflected,
    Talked,
    Tick,
    Whereabouts,
)
from mindstream.sim.errors import CheckpointError

__all__ = [
    "DayPlan",
    "Decomposed",
    "Event",
    "InnerVoice",
    "Interview",
    "Move",
    "ObjectChange",
    "ReactDecision",
    "Reaction",
    "Reflected",
    "RunSummary",
    "Talked",
    "Tick",
    "Whereabouts",
    "read_events",
    "read_summary",
]


class Interview(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: str
    question: str
    answer: str


class RunSummary(BaseModel):
    """What `summary.json` holds after a run (fields a run of an older version lacks stay
    at their defaults)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    scenario: str = ""
    model: str = ""
    batched: bool = True
    sim_start: str = ""
    sim_end: str = ""
    ticks: int = 0
    tick_minutes: int = 10
    agents: list[str] = []
    wall_seconds: float = 0.0
    framework_share: float = 0.0  # of the wall time, with no model call under way
    sim_minutes_per_wall_second: float = 0.0
    model_requests: int = 0
    requests: dict[str, int] = {}
    ledger: dict[str, Any] = {}
    memories: int = 0
    metrics: dict[str, Any] = {}
    interviews: list[Interview] = []
    report: str | None = None


def read_events(path: Path) -> list[Event]:
    """Every event of a log; a bad line raises CheckpointError naming the file and line."""
    if not path.is_file():
        return []
    events = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append(EVENT.validate_json(line))
        except ValidationError as error:
            first = error.errors()[0]
            tagged = first["type"].startswith("union_tag")  # no or an unknown `type`
            where = "type" if tagged else ".".join(str(p) for p in first["loc"][1:]) or "line"
            raise CheckpointError(f"{path}:{number}: {where}: {first['msg']}") from None
    return events


def read_summary(path: Path) -> RunSummary:
    try:
        return RunSummary.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise CheckpointError(f"{path}: {where}: {first['msg']}") from None
