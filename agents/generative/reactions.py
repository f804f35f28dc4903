"""What agents perceive and whether they stop for it; what they do about a thing in a bad state.

The paper's agents react by re-planning; here a reaction can also change the world (section
3.2's "agents ... can change the state of objects"): the deed that puts the thing right (put
out the fire) is chosen by the model against what it wrote, and a chosen deed sets the object
back to idle, so the stove stops burning for everyone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from mindstream.agents.generative.agent import GenerativeAgent
from mindstream.agents.generative.events import Event, Reaction
from mindstream.agents.generative.minds import Minds
from mindstream.agents.generative.news import IDLE
from mindstream.agents.generative.plan import ACTION, PlanStep
from mindstream.agents.generative.prompts import (
    DEED_BASELINE,
    REACT,
    REACTION,
    REACTION_PREFILL,
)
from mindstream.agents.generative.text import activity, bullets, clock_time, has_words
from mindstream.lm import DecisionParseError
from mindstream.memory import NewMemory


class Sight(BaseModel):
    """Something an agent perceives: another agent, or an object in a state."""

    model_config = ConfigDict(frozen=True)

    text: str
    subject: str  # an agent's name or an object's path
    is_agent: bool
    place: str  # the room it is in


@dataclass(frozen=True)
class ReactOdds:
    """How likely an agent is to stop for what it saw, and whether it does."""

    agent: GenerativeAgent
    sight: Sight
    p: float  # P(react): the model's own yes/no, or the reaction judge's
    baseline: float | None = None  # the judge's P for the same object idle

    def reacts(self) -> bool:
        """A person: P at the threshold. An object: P above the same object idle by the margin
        (the judge's P moves with who is looking and what they are doing; the difference
        does not)."""
        config = self.agent.config
        if self.baseline is None:
            return self.p >= config.reacting.threshold
        return self.p - self.baseline >= config.reacting.margin


def decide_reactions(
    candidates: Sequence[tuple[GenerativeAgent, Sight]], minds: Minds, moment: datetime
) -> list[ReactOdds]:
    """P(react) for each (agent, what it just saw): a person with context retrieved about them;
    an object's new state through the reaction judge when there is one (a small model's own
    yes/no does not tell a fire from a tidy shelf), against the same object idle."""
    judged = minds.reactions is not None
    asked = [n for n, (_, s) in enumerate(candidates) if not (judged and not s.is_agent)]
    odds: dict[int, ReactOdds] = {}
    if asked:
        prompts = [_react_prompt(*candidates[n], moment) for n in asked]
        for n, p in zip(asked, minds.p_yes(prompts, "react"), strict=True):
            odds[n] = ReactOdds(*candidates[n], p)
    objects = [n for n in range(len(candidates)) if n not in odds]
    if objects:
        looks = [(candidates[n][0].name, candidates[n][0].status(moment)) for n in objects]
        sights = [candidates[n][1] for n in objects]
        seen = [(*look, s.text) for look, s in zip(looks, sights, strict=True)]
        idle = [(*look, f"{s.subject} is {IDLE}") for look, s in zip(looks, sights, strict=True)]
        scores = minds.reacts(seen + idle)
        for k, n in enumerate(objects):
            odds[n] = ReactOdds(*candidates[n], scores[k], baseline=scores[len(objects) + k])
    return [odds[n] for n in range(len(candidates))]


def _react_prompt(agent: GenerativeAgent, sight: Sight, moment: datetime) -> str:
    query = (
        f"What is {agent.name}'s relationship with {sight.subject}?"
        if sight.is_agent
        else sight.text
    )
    context = agent.context(f"{query} {sight.text}", moment)
    return REACT.format(
        summary=agent.description(),
        time=clock_time(moment),
        name=agent.name,
        activity=agent.status(moment),
        context=bullets(context),
        observation=sight.text,
    )


def react_to_objects(
    reactions: Sequence[tuple[GenerativeAgent, Sight]], minds: Minds, moment: datetime, tick: int
) -> tuple[list[NewMemory], list[Event], dict[str, str]]:
    """Re-plan from now: what the agent does about what it saw, chosen by the model between
    what it wrote and the deed that puts the thing right (put out the fire); a chosen deed
    sets the object's state back to idle (the changes returned, path to state, for the world)
    and the agent remembers the object as it left it."""
    if not reactions:
        return [], [], {}
    prompts = [_reaction_prompt(a, s, moment) for a, s in reactions]
    replies = minds.generate(prompts, "reaction", reactions[0][0].config.reacting.tokens)
    written = [
        what if has_words(what := activity(r)) else f"deal with {s.text}"
        for r, (_, s) in zip(replies, reactions, strict=True)
    ]
    requests = [
        ("\n".join(prompt), [deed(sight), what])
        for prompt, what, (_, sight) in zip(prompts, written, reactions, strict=True)
    ]
    try:
        picked = [c.index for c in minds.choose(requests, "reaction deed", DEED_BASELINE)]
    except DecisionParseError:  # a chat-only model that names no option: what it wrote
        picked = [1] * len(requests)
    memories: list[NewMemory] = []
    events: list[Event] = []
    changes: dict[str, str] = {}
    for (agent, sight), index, (_, options) in zip(reactions, picked, requests, strict=True):
        what = options[index]
        step = PlanStep(
            start=moment,
            minutes=agent.config.reacting.minutes,
            activity=what,
            level=ACTION,
            place=sight.place,
        )
        agent.plan.revise(moment, step)
        agent.location = sight.place
        text = f"{agent.name} saw that {sight.text} and decided to {what}"
        memories.append(agent.memory(text, moment, "plan", tick=tick))
        fixed = index == 0 and sight.subject not in changes
        if fixed:
            changes[sight.subject] = IDLE
            left = f"{sight.subject} is {IDLE}"
            memories.append(agent.memory(left, moment, subject=sight.subject, tick=tick))
        events.append(
            Reaction(
                agent=agent.name,
                to=sight.text,
                plan=step.describe(),
                changed=f"{sight.subject} is {IDLE}" if fixed else None,
            )
        )
    return memories, events, changes


def _reaction_prompt(agent: GenerativeAgent, sight: Sight, moment: datetime) -> tuple[str, str]:
    request = REACTION.format(
        summary=agent.description(),
        time=clock_time(moment),
        name=agent.name,
        activity=agent.status(moment),
        observation=sight.text,
    )
    return request, REACTION_PREFILL.format(name=agent.name)


_FIRE = ("burn", "fire", "flame", "smok")
_WATER = ("flood", "leak", "overflow", "gush", "spray", "burst", "drip", "pour")


def deed(sight: Sight) -> str:
    """What puts an object in a bad state right: put out a fire, stop the water, or fix it."""
    thing = sight.subject.rpartition(":")[2].strip()
    state = sight.text.lower()
    if any(word in state for word in _FIRE):
        return f"put out the fire on the {thing}"
    if any(word in state for word in _WATER):
        return f"stop the water from the {thing}"
    return f"fix the {thing}"
