"""What happened over a run, counted from its log: where plans came from, who saw and who
reacted to each event, whispers, conversations and their length, reflections. The report
prints it; a long run's behaviour is judged by these counts, not by reading every tick."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from sim.events import Event


class EventReactions(BaseModel):
    """One object's change of state and what the agents who saw it did."""

    model_config = ConfigDict(frozen=True)

    time: str
    place: str
    state: str
    saw: dict[str, float]  # agent -> P(react) the model gave when it saw the change
    reacted: list[str]


class Whisper(BaseModel):
    model_config = ConfigDict(frozen=True)

    time: str
    agent: str
    text: str


class Happenings(BaseModel):
    model_config = ConfigDict(frozen=True)

    plans: dict[str, int]  # day plans by source: the model's, or the routine's
    events: list[EventReactions]
    whispers: list[Whisper]
    conversations: int
    lines: int  # said in all conversations
    ended_by: dict[str, int]
    reactions: int  # to objects and people, events included
    reflections: int  # times an agent reflected
    insights: int


def happenings(events: Sequence[Event]) -> Happenings:
    talks = [e for e in events if e.type == "conversation"]
    reflections = [e for e in events if e.type == "reflection"]
    return Happenings(
        plans=dict(
            Counter((e.source or "model").split(" ")[0] for e in events if e.type == "plan")
        ),
        events=[_reactions(e, events) for e in events if e.type == "event"],
        whispers=[
            Whisper(time=e.time, agent=e.agent or "", text=e.text or "")
            for e in events
            if e.type == "inner_voice"
        ],
        conversations=len(talks),
        lines=sum(len(t.lines or []) for t in talks),
        ended_by=dict(Counter(t.ended_by or "?" for t in talks)),
        reactions=sum(e.type == "react" for e in events),
        reflections=len(reflections),
        insights=sum(len(e.insights or []) for e in reflections),
    )


def _reactions(change: Event, events: Sequence[Event]) -> EventReactions:
    """Agents react to the sight "<place> is <state>" from the tick it happened on."""
    sight = f"{change.place} is {change.state}"
    later = [e for e in events if e.tick >= change.tick and e.to == sight]
    return EventReactions(
        time=change.time,
        place=change.place or "",
        state=change.state or "",
        saw={e.agent or "": e.p_yes or 0.0 for e in later if e.type == "react?"},
        reacted=sorted({e.agent or "" for e in later if e.type == "react"}),
    )
