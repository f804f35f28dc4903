"""A day plan by choosing, for an agent whose written plan was unusable.

A 135M model rarely writes a day it could follow (it copies the prompt's example), but it
can choose. The day's parts are the routine's and one at each time a remembered invitation
names with a place (the party at Hobbs Cafe at 5 pm). Without a routine the day has meals
(breakfast, lunch, dinner: at home or at a place that serves food) and parts every three
hours between them, each a choice among what the town affords (`Town.afforded`: home, the
occupation, each place that is nobody's home); scored alike, a day of two-hour parts was one
activity from 7 am to 10 pm for 23 of 25 agents. A part with a reason to leave the routine
is a choice between the routine's activity and that reason (the inner voice for the part
under way, the visit at the invitation's time), scored after a prompt with the agent's
memories and calibrated against a neutral prompt, as places are; a part with nothing else to
do keeps the routine's activity without a question.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from mindstream.agents.generative.agent import GenerativeAgent
from mindstream.agents.generative.minds import Minds
from mindstream.agents.generative.news import events_to_come
from mindstream.agents.generative.places import Places
from mindstream.agents.generative.plan import parse_timed
from mindstream.agents.generative.prompts import PLAN_CHOICE, PLAN_CHOICE_BASELINE
from mindstream.agents.generative.text import (
    activity,
    bullets,
    clock_mention,
    clock_time,
    has_words,
)

SLOT_HOURS = 3  # the parts of a day without a timed routine, between its meals
MEALS = {"breakfast": 7, "lunch": 12, "dinner": 18}  # each an hour long
EATING_ROOMS = frozenset({"cafe", "bar", "restaurant", "kitchen", "dining room", "canteen"})


@dataclass(frozen=True)
class Town:
    """What a day can be made of: every area (an invitation may name any), the places
    anyone may go (nobody's home) and those that serve food (a cafe, a pub)."""

    areas: tuple[str, ...]
    public: tuple[str, ...]
    eateries: tuple[str, ...] = ()

    @classmethod
    def of(cls, world: Places, homes: Iterable[str]) -> Town:
        private = {world.area_of(home) for home in homes}
        public = tuple(a for a in world.areas() if a not in private)
        eateries = tuple(a for a in public if EATING_ROOMS & {r.lower() for r in world.rooms(a)})
        return cls(tuple(world.areas()), public, eateries)

    @classmethod
    def open(cls, areas: Sequence[str]) -> Town:
        """A town where every area is public and none serves food."""
        return cls(tuple(areas), tuple(areas))

    def afforded(self, agent: GenerativeAgent) -> list[str]:
        """Staying home (first: what a part under way continues when nothing else fits),
        the agent's occupation, and going to each public place."""
        home = _home_area(agent)
        work = [f"work as {agent.persona.occupation}"] if agent.persona.occupation else []
        return [f"stay at {home}", *work, *(f"go to {a}" for a in self.public if a != home)]

    def meal(self, agent: GenerativeAgent, name: str) -> list[str]:
        """Home by its name, as the other places are: with "at home", all 25 agents of a
        day breakfasted at the cafe or the pub; on four residents' bare prompts the home's
        name won 10 of 12 meals, "at home" 3 of 12."""
        return [f"have {name} at {a}" for a in (_home_area(agent), *self.eateries)]


def _home_area(agent: GenerativeAgent) -> str:
    return agent.persona.home.partition(":")[0].strip()


@dataclass(frozen=True)
class Slot:
    """A part of the day: when it starts and the activities to choose among."""

    start: datetime
    options: tuple[str, ...]


@dataclass(frozen=True)
class ChosenDay:
    """Timed items for `day_steps`, and how many parts were a real choice (two options)."""

    items: list[str]
    choices: int


def choose_days(
    agents: Sequence[GenerativeAgent], town: Town, minds: Minds, moment: datetime
) -> list[ChosenDay]:
    """For each agent, timed items ("9:00 am: open the cafe") from `moment` to bedtime, each
    chosen by the model; one scoring batch for all agents."""
    if not agents:
        return []
    slots = [day_slots(agent, town, moment) for agent in agents]
    requests = [
        (_prompt(agent, context, slot.start, moment), list(slot.options))
        for agent, own in zip(agents, slots, strict=True)
        for context in [agent.context(f"What will {agent.name} do today?", moment)]
        for slot in own
        if len(slot.options) > 1
    ]
    chosen = iter(c.option for c in minds.choose(requests, "plan choice", PLAN_CHOICE_BASELINE))
    picks = [[next(chosen) if len(s.options) > 1 else s.options[0] for s in own] for own in slots]
    return [
        ChosenDay(_timed(own, picked), sum(len(s.options) > 1 for s in own))
        for own, picked in zip(slots, picks, strict=True)
    ]


def day_slots(agent: GenerativeAgent, town: Town, moment: datetime) -> list[Slot]:
    """The routine's parts from the one under way (meals and parts between them without a
    timed routine), the first of which may be what the inner voice asked, and a part at each
    time a memory names with a place (the party at Hobbs Cafe at 5 pm), which may be a visit
    there."""
    midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    end = midnight + timedelta(hours=agent.config.planning.day_end_hour)
    voice = [what for v in agent.intentions if has_words(what := activity(v))]
    routine = _routine_times(agent, moment) or _unscripted(agent, town, moment, end)
    slots = [
        Slot(max(start, moment), _distinct([*(voice if n == 0 else []), *options]))
        for n, (start, options) in enumerate(routine)
    ]
    by_start = {slot.start: slot for slot in slots}
    for at, visit in _timed_visits(agent, town.areas, moment, end):
        # a part already starting then offers the visit too; else a new part between
        under_way = [options[0] for start, options in routine if start <= at][-1:]
        there = by_start[at].options if at in by_start else tuple(under_way)
        by_start[at] = Slot(at, _distinct([visit, *there]))
    return sorted(by_start.values(), key=lambda slot: slot.start)


def _unscripted(
    agent: GenerativeAgent, town: Town, moment: datetime, end: datetime
) -> list[tuple[datetime, list[str]]]:
    """A day without a script: each meal to come (at home or where food is served, when the
    town has such a place) and, between, parts every three hours of what the town affords."""
    midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    meals: dict[datetime, str] = {}
    if town.eateries:
        meals = {midnight + timedelta(hours=h): name for name, h in MEALS.items()}
    meal_hours = [(at, at + timedelta(hours=1)) for at in meals]
    starts = set(_every(moment, end, timedelta(hours=SLOT_HOURS)))
    starts |= {t for at, after in meal_hours for t in (at, after) if moment <= at}
    starts = {s for s in starts if s in meals or not any(a < s < b for a, b in meal_hours)}
    return [
        (start, town.meal(agent, meals[start]) if start in meals else town.afforded(agent))
        for start in sorted(s for s in starts if s < end)
    ]


def _routine_times(agent: GenerativeAgent, moment: datetime) -> list[tuple[datetime, list[str]]]:
    """The routine's timed items from the one under way at `moment`, sleep left out (the
    day plan ends in sleep anyway)."""
    items = [parse_timed(item, moment) for item in agent.persona.routine]
    timed = [(when, activity(what)) for when, what in items if when is not None]
    started = [n for n, (when, _) in enumerate(timed) if when <= moment]
    rest = timed[started[-1] if started else 0 :]
    return [(when, [what]) for when, what in rest if what != "sleep" and has_words(what)]


def _timed_visits(
    agent: GenerativeAgent, areas: Sequence[str], moment: datetime, end: datetime
) -> list[tuple[datetime, str]]:
    """(time, "go to <area>") for each memory about today's plans that is an invitation, and
    for each piece of news told to the agent that names a place and a time today (retrieval
    for "plans" missed Klaus's "Isabella told me: party at Hobbs Cafe at 5 pm", so his later
    re-plans never offered the visit); the agent's own past plans are not invitations."""
    own_plan = f"{agent.name}'s plan for"
    told = [r.text for r in events_to_come(agent, moment) if r.metadata.get("told_by")]
    visits: dict[datetime, str] = {}
    for text in [*agent.context(f"{agent.name}'s plans for today", moment), *told]:
        found = invitation(text, areas, moment, end)
        if found is not None and not text.startswith(own_plan):
            visits.setdefault(*found)
    return sorted(visits.items())


def invitation(
    text: str, areas: Sequence[str], moment: datetime, end: datetime
) -> tuple[datetime, str] | None:
    """(when, "go to <area>") when `text` names one of the areas and a clock time between
    `moment` and `end` ("the party at Hobbs Cafe from 5pm to 7pm")."""
    at = clock_mention(text, moment)
    named = [a for a in sorted(areas, key=len, reverse=True) if a.lower() in text.lower()]
    if at is None or not named or not moment < at < end:
        return None
    return at, f"go to {named[0]}"


def _prompt(agent: GenerativeAgent, context: list[str], start: datetime, moment: datetime) -> str:
    """One context for all of an agent's parts (retrieved for the day, not for each part):
    the prompts then differ only in the time at their end, and the scorer reads the shared
    part once for all of them."""
    return PLAN_CHOICE.format(
        summary=agent.description(),
        name=agent.name,
        context=bullets(context),
        intentions="".join(f"{agent.name}'s inner voice: {v}\n" for v in agent.intentions),
        date=moment.strftime("%A %B %d"),
        time=clock_time(start),
    )


def _timed(slots: Sequence[Slot], chosen: Sequence[str]) -> list[str]:
    """Items for `day_steps`; a part that chose what the one before chose continues it."""
    items: list[str] = []
    previous = None
    for slot, what in zip(slots, chosen, strict=True):
        if what != previous:
            items.append(f"{clock_time(slot.start)}: {what}")
        previous = what
    return items


def _every(start: datetime, end: datetime, step: timedelta) -> list[datetime]:
    starts = [start]
    while starts[-1] + step < end:
        starts.append(starts[-1] + step)
    return starts


def _distinct(options: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(o for o in options if o))
