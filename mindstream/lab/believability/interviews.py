"""Believability interviews (Generative Agents, section 6): 25 questions in five categories,
filled per agent from its persona and the scenario, answered under an ablation condition.

The questions follow the paper's categories and examples (self-knowledge, memory, plans,
reactions, reflections), in mindstream's own wording.
"""

from __future__ import annotations

import random
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from mindstream.agents.generative import GenerativeAgent, Minds, interview, refresh_summaries
from mindstream.sim.config import Condition
from mindstream.sim.scenario import Scenario

CATEGORIES: dict[str, list[str]] = {
    "self-knowledge": [
        "Give an introduction of yourself.",
        "How would you describe your personality?",
        "What do you do for a living?",
        "What do you enjoy doing in your free time?",
        "Where do you live?",
    ],
    "memory": [
        "Who is {other}?",
        "Who is {other2}?",
        "Do you know anything about a {topic}?",
        "What have you heard about the {topic2}?",
        "What did you do this afternoon?",
    ],
    "plans": [
        "What will you be doing at 10 am tomorrow?",
        "What will you be doing at 6 pm today?",
        "What is the next thing you plan to do?",
        "What are your plans for this evening?",
        "What is your most important goal this week?",
    ],
    "reactions": [
        "Your breakfast is burning! What would you do?",
        "The bathroom is occupied. What would you do?",
        "You need to cook dinner but your fridge is empty. What would you do?",
        "You see {other} walking down the street. What would you do or say?",
        "You see a fire on the street. What would you do?",
    ],
    "reflections": [
        "If you could spend time with one person you met recently, who would it be and why?",
        "What is the most important thing that happened to you lately?",
        "Who in town do you trust the most, and why?",
        "What is worrying you at the moment?",
        "What would make you happiest this month?",
    ],
}


class Question(BaseModel):
    model_config = ConfigDict(frozen=True)

    agent: str
    category: str
    number: int  # within the agent's 25
    text: str


def questions_for(
    scenario: Scenario, per_category: int | None = None, seed: int = 0
) -> list[Question]:
    """Every agent's 25 questions, filled with people it knows and the scenario's topics; with
    `per_category`, that many of each category's five, drawn per agent (seeded), so a town of
    25 is interviewed at the cost of 5 agents' full set."""
    topics = [words[0] for words in scenario.topics.values()] or ["party", "election"]
    out = []
    for spec in scenario.agents:
        known = _known(spec.name, spec.memories, [a.name for a in scenario.agents])
        fill = {
            "other": known[0],
            "other2": known[1 % len(known)],
            "topic": topics[0],
            "topic2": topics[1 % len(topics)],
        }
        templates = [(c, t) for c, listed in CATEGORIES.items() for t in listed]
        asked = [
            Question(agent=spec.name, category=c, number=n, text=t.format(**fill))
            for n, (c, t) in enumerate(templates)
        ]
        out += asked if per_category is None else _sample(asked, per_category, seed, spec.name)
    return out


def _sample(asked: list[Question], per_category: int, seed: int, agent: str) -> list[Question]:
    draw = random.Random(f"{seed}:{agent}")
    picked = [
        q
        for category in CATEGORIES
        for q in draw.sample(
            [q for q in asked if q.category == category],
            min(per_category, len(CATEGORIES[category])),
        )
    ]
    return sorted(picked, key=lambda q: q.number)


def _known(name: str, memories: list[str], everyone: list[str]) -> list[str]:
    """The other agents its persona mentions first, then the rest of the town."""
    text = " ".join(memories)
    others = [a for a in everyone if a != name]
    mentioned = [a for a in others if a in text or a.split()[0] in text]
    return mentioned + [a for a in others if a not in mentioned] or [name]


def answer_under(
    condition: Condition,
    agents: dict[str, GenerativeAgent],
    questions: list[Question],
    minds: Minds,
    moment: datetime,
) -> list[str]:
    """The agents answer with only what the condition leaves them: the memory kinds it
    allows (the summary description is rebuilt from those), or the persona alone."""
    under(condition, agents, minds, moment)
    return interview([(agents[q.agent], q.text) for q in questions], minds, moment)


def under(
    condition: Condition, agents: dict[str, GenerativeAgent], minds: Minds, moment: datetime
) -> None:
    """Leave the agents only what `condition` allows, their summaries rebuilt from it."""
    for agent in agents.values():
        agent.touches = False
        agent.config = agent.config.model_copy(update={"cognition": condition.cognition})
        agent.summary, agent.summary_at = None, None
        if condition.persona_only:
            agent.summary = "Background: " + " ".join(agent.persona.memories)
    informed = [a for a in agents.values() if condition.cognition.memory.kinds != ()]
    if informed:
        refresh_summaries(informed, minds, moment)
