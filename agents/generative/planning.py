"""Summaries, day plans, recursive decomposition and places, for many agents at once."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from mindstream.agents.generative.agent import GenerativeAgent
from mindstream.agents.generative.day_choice import Town, choose_days
from mindstream.agents.generative.events import DayPlan, Decomposed, Event
from mindstream.agents.generative.minds import Minds
from mindstream.agents.generative.plan import (
    ACTION,
    DAY,
    HOUR,
    Plan,
    PlanStep,
    parse_duration,
    parse_items,
    parse_timed,
)
from mindstream.agents.generative.prompts import (
    ACTIONS,
    DAY_PLAN,
    DAY_PLAN_PREFILL,
    HOURLY,
    LIST_PREFILL,
    PLAN_EXAMPLE,
    SUMMARY,
    SUMMARY_ASPECTS,
    SUMMARY_PREFILL,
)
from mindstream.agents.generative.text import (
    activity,
    bullets,
    clock_time,
    copies,
    has_words,
    sentences,
)
from mindstream.memory import NewMemory

WAKE_HOUR = 6


def refresh_summaries(agents: Sequence[GenerativeAgent], minds: Minds, moment: datetime) -> None:
    """The paper's summary description: three retrieval-grounded sentences, cached."""
    due = [a for a in agents if _summary_due(a, moment)]
    if not due:
        return
    prompts: list[str | tuple[str, str]] = []
    for agent in due:
        for aspect in SUMMARY_ASPECTS.values():
            about = aspect.format(name=agent.name)
            statements = bullets(agent.context(about, moment))
            prompts.append(
                (
                    SUMMARY.format(name=agent.name, statements=statements, aspect=about),
                    SUMMARY_PREFILL.format(name=agent.name),
                )
            )
    replies = minds.generate(prompts, "summary", due[0].config.planning.tokens["summary"])
    width = len(SUMMARY_ASPECTS)
    for n, agent in enumerate(due):
        lines = [_sentence(agent, r) for r in replies[n * width : (n + 1) * width]]
        agent.summary = "\n".join(line for line in lines if line)
        agent.summary_at = moment


def _summary_due(agent: GenerativeAgent, moment: datetime) -> bool:
    if agent.summary_at is None:
        return True
    return moment - agent.summary_at >= timedelta(hours=agent.config.planning.summary_refresh_hours)


def _sentence(agent: GenerativeAgent, reply: str) -> str:
    text = sentences(reply, limit=1, max_words=30)
    return f"{agent.name} {text}" if has_words(text) else ""


def plan_days(
    agents: Sequence[GenerativeAgent],
    town: Town,
    minds: Minds,
    moment: datetime,
    tick: int,
) -> tuple[list[NewMemory], list[Event]]:
    """A day plan of 5-8 broad steps for every agent without one for today: written by the
    model, or, where the written one has too few usable steps, chosen part by part."""
    today = moment.date().isoformat()
    due = [a for a in agents if a.plan_date != today and moment.hour >= WAKE_HOUR]
    if not due:
        return [], []
    replies = minds.generate(
        [_day_prompt(a, moment) for a in due], "plan", due[0].config.planning.tokens["plan"]
    )
    written = [
        day_steps(a, _usable(r, a, moment), moment) for a, r in zip(due, replies, strict=True)
    ]
    unusable = [
        a
        for a, steps in zip(due, written, strict=True)
        if len(steps) - 1 < a.config.planning.steps[0]
    ]
    chosen = iter(choose_days(unusable, town, minds, moment))
    memories: list[NewMemory] = []
    events: list[Event] = []
    for agent, reply, steps in zip(due, replies, written, strict=True):
        source, choices = "model", None
        if agent in unusable:
            day = next(chosen)
            steps, source, choices = day_steps(agent, day.items, moment), CHOSEN, day.choices
        listing = _adopt(agent, steps, moment)
        memories.append(
            agent.memory(
                f"{agent.name}'s plan for {moment:%A %B %d}: {listing}", moment, "plan", tick=tick
            )
        )
        events.append(
            DayPlan(
                agent=agent.name,
                source=source,
                steps=listing,
                model_wrote=reply[:300],
                choices=choices,
            )
        )
    return memories, events


CHOSEN = "chosen (the model's written plan had too few usable steps)"
# The example's words: a step made of them alone ("breakfast at home", "lunch") is a copy.
_EXAMPLE = {
    w for step in PLAN_EXAMPLE for w in re.findall(r"[a-z]+", parse_timed(step, datetime.now())[1])
}


def _day_prompt(agent: GenerativeAgent, moment: datetime) -> tuple[str, str]:
    now = clock_time(moment)
    return (
        DAY_PLAN.format(
            summary=agent.description(),
            name=agent.name,
            yesterday=agent.yesterday,
            intentions="".join(f"{agent.name}'s inner voice: {v}\n" for v in agent.intentions),
            date=moment.strftime("%A %B %d"),
            time=now,
            count=agent.config.planning.steps[1],
        ),
        DAY_PLAN_PREFILL.format(name=agent.name, time=now),
    )


def _usable(reply: str, agent: GenerativeAgent, moment: datetime) -> list[str]:
    """The reply's steps if enough of them are the agent's own, else none. Steps made of the
    example's words alone ("breakfast at home", "lunch") are copies when there are two or
    more of them (one may be the agent's own lunch); a step that repeats an earlier one is not
    new either (the small model loops "dinner at the restaurant")."""
    items = parse_items(f"1) {clock_time(moment)}: {reply}", agent.config.planning.steps[1])
    said = [
        what
        for item in items
        if (what := activity(parse_timed(item, moment)[1]).lower())
        and not agent.persona.describes(what)
    ]
    copied = [set(re.findall(r"[a-z]+", what)) <= _EXAMPLE | _FILLER for what in said]
    copying = sum(copied) >= 2
    own = {what for what, copy in zip(said, copied, strict=True) if not (copy and copying)}
    return items if len(own) >= agent.config.planning.steps[0] else []


_FILLER = {"a", "an", "the", "at", "in", "on", "to", "and", "my", "his", "her", "their"}


def _adopt(agent: GenerativeAgent, steps: list[PlanStep], moment: datetime) -> str:
    """Make `steps` today's plan (yesterday's is kept in a line); returns its listing."""
    earlier = agent.plan.day()
    if earlier and earlier[0].start.date() < moment.date():  # not a re-plan of today
        agent.yesterday = "planned to " + "; ".join(s.activity for s in earlier[:4])
    agent.plan, agent.plan_date = Plan(steps=steps), moment.date().isoformat()
    agent.intentions = []  # this plan has seen them; the memories stay
    return "; ".join(s.describe() for s in steps)


def day_steps(agent: GenerativeAgent, items: Sequence[str], moment: datetime) -> list[PlanStep]:
    """Timed broad steps from `moment` to bedtime; items without a usable time share the gaps."""
    end = moment.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(
        hours=agent.config.planning.day_end_hour
    )
    if end <= moment:
        end = moment + timedelta(hours=1)
    parsed = [parse_timed(item, moment) for item in items]
    share = (end - moment) / max(len(parsed), 1)
    starts: list[tuple[datetime, str]] = []
    for when, raw in parsed:
        what = activity(raw)
        if not has_words(what) or agent.persona.describes(what):
            continue
        previous = starts[-1][0] if starts else None
        guess = moment if previous is None else previous + share
        start = when if when and (previous is None or previous < when) and when < end else guess
        if not starts:
            start = moment
        if (previous is None or start > previous) and start < end:
            starts.append((start, what))
    ends = [t for t, _ in starts[1:]] + [end]
    steps = [
        PlanStep(start=s, minutes=_minutes(s, nxt), activity=a, level=DAY)
        for (s, a), nxt in zip(starts, ends[: len(starts)], strict=True)
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
    prompts: list[str | tuple[str, str]] = [
        (
            template.format(
                summary=a.description(),
                name=a.name,
                activity=s.activity,
                start=clock_time(s.start),
                end=clock_time(s.end),
                count=math.ceil(s.minutes / 60),
            ),
            LIST_PREFILL,
        )
        for a, s in due
    ]
    replies = minds.generate(prompts, component, due[0][0].config.planning.tokens[component])
    events: list[Event] = []
    for (agent, step), reply in zip(due, replies, strict=True):
        items = [
            item
            for raw in parse_items("1)" + reply, 12)
            if _does(agent, item := parse_timed(raw, moment)[1])
        ]
        children = _hours(step, items) if level == HOUR else _actions(agent, step, items, moment)
        agent.plan.decompose(step, children)
        events.append(
            Decomposed(
                type="hourly" if level == HOUR else "actions",
                agent=agent.name,
                parent=step.describe(),
                steps=[c.describe() for c in children],
                parsed=len(items),
            )
        )
    return events


def _does(agent: GenerativeAgent, item: str) -> bool:
    """A listed item is a usable activity for `agent`: not its name, a cut-off name ("raj"
    for Rajiv), what it is, or three words in a row of the description the prompt showed
    (in a 16-hour day of 25 agents: "innate traits", "curious and ambitious")."""
    what = activity(parse_duration(item)[1])
    first = agent.persona.first_name.lower()
    return (
        has_words(what)
        and first not in item.lower()
        and not first.startswith(what.lower())
        and not agent.persona.describes(what)
        and not copies(what, agent.description())
    )


def _hours(step: PlanStep, items: list[str]) -> list[PlanStep]:
    hours = math.ceil(step.minutes / 60)
    return [
        PlanStep(
            start=step.start + timedelta(hours=h),
            minutes=60,
            activity=(activity(items[h]) if h < len(items) else "") or step.activity,
            level=HOUR,
        )
        for h in range(hours)
    ]


def _actions(
    agent: GenerativeAgent, step: PlanStep, items: list[str], moment: datetime
) -> list[PlanStep]:
    """The listed 5-15 minute actions from now, then the step's own activity to its end: a
    short list is not asked again every tick (it was, for most agents of a 25-agent town)."""
    low, high = agent.config.planning.action_minutes
    children: list[PlanStep] = []
    start = max(step.start, moment)
    for item in items:
        minutes, raw = parse_duration(item)
        minutes = min(max(minutes or (low + high) // 2, low), high)
        what = activity(raw)
        if start >= step.end or not what:
            break
        children.append(PlanStep(start=start, minutes=minutes, activity=what, level=ACTION))
        start += timedelta(minutes=minutes)
    if start < step.end:
        rest = _minutes(start, step.end)
        children.append(PlanStep(start=start, minutes=rest, activity=step.activity, level=ACTION))
    return children


def _minutes(start: datetime, end: datetime) -> int:
    return max(int((end - start).total_seconds() // 60), 1)
