"""What happened over a run, counted from its log: where plans came from, who saw and who
reacted to each event, whispers, conversations and their length, reflections. The report
prints it; a long run's behaviour is judged by these counts, not by reading every tick."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from mindstream.sim.events import (
    DayPlan,
    Event,
    InnerVoice,
    ObjectChange,
    ReactDecision,
    Reaction,
    Reflected,
    Talked,
    Tick,
)

# How a report names where day plans came from (`DayPlan.source`, first word).
PLAN_SOURCES = {
    "model": "written by the model",
    "chosen": "made from the routine and the model's choices",
    "routine": "from the routine",  # runs from before plans were chosen
}


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

    plans: dict[str, int]  # day plans by source: written by the model, or chosen
    plan_choices: int = 0  # parts of chosen plans that were a choice (the rest: the routine's)
    events: list[EventReactions]
    whispers: list[Whisper]
    conversations: int
    lines: int  # said in all conversations
    ended_by: dict[str, int]
    told: int = 0  # news a line carried (a seed fact, a changed object, news heard)
    reactions: int  # to objects and people, events included
    fixed: list[str] = []  # objects a deed set back to idle ("...: stove is idle")
    reflections: int  # times an agent reflected
    insights: int
    reflected: dict[str, dict[str, int]] = {}  # day (YYYY-MM-DD) -> agent -> times it reflected
    place_named: int = 0  # agent-ticks whose activity names one of the areas
    place_matched: int = 0  # ... of which the agent was in that area


def happenings(events: Sequence[Event], areas: Sequence[str] = ()) -> Happenings:
    """The counts of a run's log; with the world's `areas`, how often an agent was where its
    activity said ("serve customers at the pharmacy")."""
    talks = [e for e in events if isinstance(e, Talked)]
    reflections = [e for e in events if isinstance(e, Reflected)]
    plans = Counter(e.source.split(" ")[0] for e in events if isinstance(e, DayPlan))
    return Happenings(
        plans=dict(plans),
        plan_choices=sum(e.choices or 0 for e in events if isinstance(e, DayPlan)),
        events=[_reactions(e, events) for e in events if isinstance(e, ObjectChange)],
        whispers=[
            Whisper(time=e.time, agent=e.agent, text=e.text)
            for e in events
            if isinstance(e, InnerVoice)
        ],
        conversations=len(talks),
        lines=sum(len(t.lines) for t in talks),
        ended_by=dict(Counter(t.ended_by for t in talks)),
        told=sum(len(t.told) for t in talks),
        reactions=sum(isinstance(e, Reaction) for e in events),
        fixed=[e.changed for e in events if isinstance(e, Reaction) and e.changed],
        reflections=len(reflections),
        insights=sum(len(e.insights) for e in reflections),
        reflected=_by_day(reflections),
        **_places_kept(events, areas),
    )


def _by_day(reflections: Sequence[Reflected]) -> dict[str, dict[str, int]]:
    days: dict[str, Counter[str]] = {}
    for event in reflections:
        days.setdefault(event.time[:10], Counter())[event.agent] += 1
    return {day: dict(agents) for day, agents in days.items()}


def _places_kept(events: Sequence[Event], areas: Sequence[str]) -> dict[str, int]:
    named = matched = 0
    longest_first = sorted(areas, key=len, reverse=True)
    for tick in (e for e in events if isinstance(e, Tick)):
        for where in tick.agents.values():
            said = next((a for a in longest_first if a.lower() in where.doing.lower()), None)
            if said is not None:
                named += 1
                matched += where.place.startswith(f"{said}:")
    return {"place_named": named, "place_matched": matched}


def _reactions(change: ObjectChange, events: Sequence[Event]) -> EventReactions:
    """Agents react to the sight "<place> is <state>" from the tick it happened on."""
    sight = f"{change.place} is {change.state}"
    later = [e for e in events if e.tick >= change.tick]
    return EventReactions(
        time=change.time,
        place=change.place,
        state=change.state,
        saw={e.agent: e.p_yes for e in later if isinstance(e, ReactDecision) and e.to == sight},
        reacted=sorted({e.agent for e in later if isinstance(e, Reaction) and e.to == sight}),
    )
