"""Summaries, day plans, recursive decomposition and places, for many agents at once."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from agents.generative.agent import GenerativeAgent
from agents.generative.minds import Minds
from agents.generative.plan import (
    ACTION,
    DAY,
    HOUR,
    Plan,
    PlanStep,
    parse_duration,
    parse_items,
    parse_timed,
)
from agents.generative.prompts import (
    ACTIONS,
    AREA,
    DAY_PLAN,
    HOURLY,
    ROOM,
    SUMMARY,
    SUMMARY_ASPECTS,
)
from memory import NewMemory

WAKE_HOUR = 6
Event = dict[str, Any]


class Places(Protocol):
    """What planning needs from a world: its areas and each area's rooms."""

    def areas(self) -> list[str]: ...

    def rooms(self, area: str) -> list[str]: ...

    def area_of(self, path: str) -> str: ...


def clock_time(moment: datetime) -> str:
    return moment.strftime("%I:%M %p").lstrip("0").lower()


def bullets(texts: Sequence[str]) -> str:
    return "\n".join(f"- {t}" for t in texts) or "- (nothing yet)"


def refresh_summaries(agents: Sequence[GenerativeAgent], minds: Minds, moment: datetime) -> None:
    """The paper's summary description: three retrieval-grounded sentences, cached."""
    due = [a for a in agents if _summary_due(a, moment)]
    prompts = []
    for agent in due:
        for aspect in SUMMARY_ASPECTS.values():
            about = aspect.format(name=agent.name)
            statements = bullets(agent.context(about, moment))
            prompts.append(SUMMARY.format(name=agent.name, statements=statements, aspect=about))
    if not due:
        return
    replies = minds.generate(prompts, "summary", due[0].config.tokens["summary"])
    width = len(SUMMARY_ASPECTS)
    for n, agent in enumerate(due):
        sentences = [_sentence(agent, r) for r in replies[n * width : (n + 1) * width]]
        agent.summary = "\n".join(s for s in sentences if s)
        agent.summary_at = moment


def _summary_due(agent: GenerativeAgent, moment: datetime) -> bool:
    if agent.summary_at is None:
        return True
    return moment - agent.summary_at >= timedelta(hours=agent.config.summary_refresh_hours)


def _sentence(agent: GenerativeAgent, reply: str) -> str:
    text = reply.strip().splitlines()[0].strip() if reply.strip() else ""
    text = text.split(". ")[0].strip(" .\"'")
    if len(text) < 3:
        return ""
    return text if agent.persona.first_name in text else f"{agent.name} {text}"


def plan_days(
    agents: Sequence[GenerativeAgent], minds: Minds, moment: datetime, tick: int
) -> tuple[list[NewMemory], list[Event]]:
    """A day plan of 5-8 broad steps for every agent without one for today."""
    today = moment.date().isoformat()
    due = [a for a in agents if a.plan_date != today and moment.hour >= WAKE_HOUR]
    if not due:
        return [], []
    now = clock_time(moment)
    prompts = [
        DAY_PLAN.format(
            summary=a.description(),
            name=a.name,
            yesterday=a.yesterday,
            date=moment.strftime("%A %B %d"),
            time=now,
            count=a.config.plan_steps[1],
        )
        for a in due
    ]
    replies = minds.generate(prompts, "plan", due[0].config.tokens["plan"])
    memories, events = [], []
    for agent, reply in zip(due, replies, strict=True):
        text = reply if reply.lstrip()[:2].rstrip(")").isdigit() else f"1) {now}: {reply}"
        steps = day_steps(agent, parse_items(text, agent.config.plan_steps[1]), moment)
        source = "model"
        if len(steps) < agent.config.plan_steps[0] and agent.persona.routine:
            steps, source = day_steps(agent, agent.persona.routine, moment), "routine"
        if agent.plan.day():
            agent.yesterday = "planned to " + "; ".join(s.activity for s in agent.plan.day()[:4])
        agent.plan, agent.plan_date = Plan(steps=steps), today
        listing = "; ".join(s.describe() for s in steps)
        memories.append(
            agent.memory(
                f"{agent.name}'s plan for {moment:%A %B %d}: {listing}", moment, "plan", tick=tick
            )
        )
        events.append({"type": "plan", "agent": agent.name, "source": source, "steps": listing})
    return memories, events


def day_steps(agent: GenerativeAgent, items: Sequence[str], moment: datetime) -> list[PlanStep]:
    """Timed broad steps from `moment` to bedtime; items without a usable time share the gaps."""
    end = moment.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(
        hours=agent.config.day_end_hour
    )
    if end <= moment:
        end = moment + timedelta(hours=1)
    parsed = [parse_timed(item, moment) for item in items]
    share = (end - moment) / max(len(parsed), 1)
    starts: list[tuple[datetime, str]] = []
    for n, (when, activity) in enumerate(parsed):
        previous = starts[-1][0] if starts else None
        guess = moment if previous is None else previous + share
        start = when if when and (previous is None or previous < when) and when < end else guess
        if n == 0:
            start = moment
        if (previous is None or start > previous) and start < end and activity:
            starts.append((start, activity))
    steps = [
        PlanStep(start=s, minutes=_minutes(s, nxt), activity=a, level=DAY)
        for (s, a), nxt in zip(starts, [t for t, _ in starts[1:]] + [end], strict=True)
    ]
    sleep_until = end.replace(hour=WAKE_HOUR) + timedelta(days=1)
    return [
        *steps,
        PlanStep(start=end, minutes=_minutes(end, sleep_until), activity="sleep", level=DAY),
    ]


def decompose(agents: Sequence[GenerativeAgent], minds: Minds, moment: datetime) -> list[Event]:
    """Broad step -> hour-long steps -> 5-15 minute actions, only where the agent is now."""
    events = _split(agents, minds, moment, HOUR)
    return events + _split(agents, minds, moment, ACTION)


def _split(
    agents: Sequence[GenerativeAgent], minds: Minds, moment: datetime, level: int
) -> list[Event]:
    due = [
        (a, step)
        for a in agents
        if (step := a.doing(moment)) is not None
        and step.level < level
        and step.activity != "sleep"
        and (level == ACTION or step.minutes > 60)
    ]
    if not due:
        return []
    template, component = (HOURLY, "hourly") if level == HOUR else (ACTIONS, "actions")
    prompts = [
        template.format(
            summary=a.description(),
            name=a.name,
            activity=s.activity,
            start=clock_time(s.start),
            end=clock_time(s.end),
            count=math.ceil(s.minutes / 60),
        )
        for a, s in due
    ]
    replies = minds.generate(prompts, component, due[0][0].config.tokens[component])
    events = []
    for (agent, step), reply in zip(due, replies, strict=True):
        items = parse_items("1)" + reply, 12)
        children = _hours(step, items) if level == HOUR else _actions(agent, step, items)
        agent.plan.decompose(step, children)
        events.append(
            {
                "type": component,
                "agent": agent.name,
                "parent": step.describe(),
                "steps": [c.describe() for c in children],
                "parsed": len(items),
            }
        )
    return events


def _hours(step: PlanStep, items: list[str]) -> list[PlanStep]:
    hours = math.ceil(step.minutes / 60)
    return [
        PlanStep(
            start=step.start + timedelta(hours=h),
            minutes=60,
            activity=items[h] if h < len(items) else step.activity,
            level=HOUR,
        )
        for h in range(hours)
    ]


def _actions(agent: GenerativeAgent, step: PlanStep, items: list[str]) -> list[PlanStep]:
    low, high = agent.config.action_minutes
    children: list[PlanStep] = []
    start = step.start
    for item in items or [step.activity]:
        minutes, activity = parse_duration(item)
        minutes = min(max(minutes or (low + high) // 2, low), high)
        if start >= step.end or not activity:
            break
        children.append(PlanStep(start=start, minutes=minutes, activity=activity, level=ACTION))
        start += timedelta(minutes=minutes)
    if start < step.end and children:  # the last action lasts until its parent ends
        last = children[-1]
        children[-1] = last.model_copy(update={"minutes": _minutes(last.start, step.end)})
    return children


def choose_places(
    agents: Sequence[GenerativeAgent], world: Places, minds: Minds, moment: datetime
) -> list[Event]:
    """Where each agent goes for its current step: area, then room, chosen by the model."""
    due = [(a, s) for a in agents if (s := a.doing(moment)) is not None and s.place is None]
    if not due:
        return []
    areas = world.areas()
    area_prompts = [
        AREA.format(name=a.name, home=a.persona.home, areas=", ".join(areas), activity=s.activity)
        for a, s in due
    ]
    picked = [c.option for c in minds.choose([(p, areas) for p in area_prompts], "place")]
    room_requests = [
        (
            ROOM.format(
                name=a.name, area=area, rooms=", ".join(world.rooms(area)), activity=s.activity
            ),
            world.rooms(area),
        )
        for (a, s), area in zip(due, picked, strict=True)
    ]
    rooms = [c.option for c in minds.choose(room_requests, "place")]
    events = []
    for (agent, step), area, room in zip(due, picked, rooms, strict=True):
        place = f"{area}: {room}"
        agent.plan.set_place(step, place)
        if place != agent.location:
            events.append(
                {"type": "move", "agent": agent.name, "from": agent.location, "to": place}
            )
        agent.location = place
    return events


def _minutes(start: datetime, end: datetime) -> int:
    return max(int((end - start).total_seconds() // 60), 1)
