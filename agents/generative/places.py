"""Where an agent is for its current step: the place its plan names, the place of the larger
step under way, or the model's choice among the world's own (calibrated log-likelihood)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from mindstream.agents.generative.agent import GenerativeAgent
from mindstream.agents.generative.events import Event, Move
from mindstream.agents.generative.minds import Minds
from mindstream.agents.generative.plan import PlanStep
from mindstream.agents.generative.prompts import AREA, PLACE_BASELINE, ROOM
from mindstream.memory import MemoryKind


class Places(Protocol):
    """What planning needs from a world: its areas and each area's rooms."""

    def areas(self) -> list[str]: ...

    def rooms(self, area: str) -> list[str]: ...

    def area_of(self, path: str) -> str: ...


def choose_places(
    agents: Sequence[GenerativeAgent], world: Places, minds: Minds, moment: datetime
) -> list[Event]:
    """Where each agent goes for its current step: the area and room the plan names ("at the
    Oak Hill College library", "in the kitchen", "go home"); else where the step it is part of
    already is (an action stays where its hour is); else chosen by the model among the world's
    own, a choice the larger steps then keep. An area with one room needs no question."""
    due = [(a, s) for a in agents if (s := a.doing(moment)) is not None and s.place is None]
    if not due:
        return []
    areas = world.areas()
    named = [_named_or_kept(a, moment, areas, world) for a, _ in due]
    unnamed = [(a, s) for (a, s), (area, _) in zip(due, named, strict=True) if area is None]
    area_prompts = [
        AREA.format(name=a.name, home=a.persona.home, areas=", ".join(areas), activity=s.activity)
        for a, s in unnamed
    ]
    chosen = iter(
        c.option for c in minds.choose([(p, areas) for p in area_prompts], "place", PLACE_BASELINE)
    )
    picked = [(area, room) if area is not None else (next(chosen), None) for area, room in named]
    rooms = _rooms(due, picked, world, minds)
    events: list[Event] = []
    for (agent, step), (area, _), room, (given, _) in zip(due, picked, rooms, named, strict=True):
        place = f"{area}: {room}"
        agent.plan.set_place(step, place)
        if given is None:  # the model's choice for what the agent does now: its larger steps too
            agent.plan.place_unplaced(moment, place)
        if place != agent.location:
            events.append(Move(agent=agent.name, from_=agent.location, to=place))
        agent.location = place
    return events


def _named_or_kept(
    agent: GenerativeAgent, moment: datetime, areas: list[str], world: Places
) -> tuple[str | None, str | None]:
    """Where the person the plan seeks was last seen ("ask Maria Lopez to come to the
    party at Hobbs Cafe" is not done at the cafe); else the place the plan names; else the
    place of the larger step under way (its area and room), where the plan names no other
    area."""
    sought = _sought(agent, moment)
    if sought is not None:
        seen_area, _, seen_room = sought.partition(": ")
        return seen_area, seen_room or None
    area, room = _named_place(_plan_text(agent, moment), agent, areas, world)
    kept = [s.place for s in agent.plan.steps if s.covers(moment) and s.place]
    if kept and room is None and (area is None or kept[-1].startswith(f"{area}: ")):
        kept_area, _, kept_room = kept[-1].partition(": ")
        return kept_area, kept_room
    return area, room


def _rooms(
    due: list[tuple[GenerativeAgent, PlanStep]],
    picked: list[tuple[str, str | None]],
    world: Places,
    minds: Minds,
) -> list[str]:
    """The named room, the only room, or the model's choice among the area's rooms."""
    known = [
        room or (world.rooms(area)[0] if len(world.rooms(area)) == 1 else None)
        for area, room in picked
    ]
    asked = [
        (
            ROOM.format(
                name=a.name, area=area, rooms=", ".join(world.rooms(area)), activity=s.activity
            ),
            world.rooms(area),
        )
        for (a, s), (area, _), room in zip(due, picked, known, strict=True)
        if room is None
    ]
    chosen = iter(c.option for c in minds.choose(asked, "place", PLACE_BASELINE))
    return [room if room is not None else next(chosen) for room in known]


def _sought(agent: GenerativeAgent, moment: datetime) -> str | None:
    """Where ("area: room") the agent last saw the person a step under way is about (ask,
    talk to, tell, invite, visit, meet, find someone), by that person's full or first name."""
    doing = [s.activity for s in agent.plan.steps if s.covers(moment)]
    names = [m.group(1) for what in reversed(doing) if (m := _SEEK.match(what.strip()))]
    if not names:
        return None
    seen = agent.stream.recent(_LOOK_BACK, owner=agent.name, kinds=[MemoryKind.OBSERVATION])
    for record in reversed(seen):
        who, at = record.text.split(" is ", 1)[0], record.metadata.get("seen_at")
        if at and who != agent.name and (who == names[0] or who.split()[0] == names[0]):
            return str(at)
    return None


# "ask Maria Lopez to ...", "talking to John about the vote": a step done where someone is.
_SEEK = re.compile(
    r"^(?i:ask|tell|invite|visit|meet|see|find|call on|look for|talk to|talk with|speak to|"
    r"speak with)\s+([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b"
)
_LOOK_BACK = 300  # observations searched for where someone was last seen


def _plan_text(agent: GenerativeAgent, moment: datetime) -> str:
    """Every level of the plan now under way ("work on the paper at the library" and its
    current action), lower-cased: where the plan names a place."""
    return " ".join(s.activity for s in agent.plan.steps if s.covers(moment)).lower()


def _named_place(
    text: str, agent: GenerativeAgent, areas: list[str], world: Places
) -> tuple[str | None, str | None]:
    """The area and room the plan names, either of them None when it names none: an area by
    name ("lunch at Hobbs Cafe") or as home ("go home", "sleep"), or a room found in one area
    only ("study in the library"); then a room of that area by name ("in the kitchen"), or
    the agent's own room to sleep at home."""
    area = next((a for a in sorted(areas, key=len, reverse=True) if a.lower() in text), None)
    home_area = world.area_of(agent.persona.home)
    own_room = _OWN_ROOM.search(text) is not None
    if area is None and (own_room or any(w in text.split() for w in _AT_HOME)):
        area = home_area
    if area is None:
        unique = _rooms_named(text, [(a, r) for a in areas for r in world.rooms(a)])
        area = unique[0][0] if len({a for a, _ in unique}) == 1 else None
    if area is None:
        return None, None
    rooms = _rooms_named(text, [(area, r) for r in world.rooms(area)])
    if rooms:
        return area, rooms[0][1]
    resting = own_room or any(word in text.split() for word in ("sleep", "bed"))
    home_room = agent.persona.home.partition(": ")[2]
    at_home = resting and area == home_area and home_room in world.rooms(area)
    return area, home_room if at_home else None


# Words that put a step at home when it names no other area: breakfast too (a 25-agent day
# had eight agents breakfasting in the market when the model chose).
_AT_HOME = ("home", "sleep", "bed", "breakfast")
# The agent's own room, or being at home without saying so ("read in his room", "wake up").
_OWN_ROOM = re.compile(r"\b(?:(?:his|her|their|my|own) room|wake up|get(?:s)? ready)\b")


def _rooms_named(text: str, places: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (area, room) pairs whose room the text names as a phrase, longest names first."""
    ordered = sorted(places, key=lambda place: len(place[1]), reverse=True)
    return [(a, r) for a, r in ordered if re.search(rf"\b{re.escape(r.lower())}\b", text)]
