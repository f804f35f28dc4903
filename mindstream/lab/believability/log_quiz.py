"""Believability measured against what happened: questions the run's own log decides.

An interview answer read by a judge says how an agent sounds, not whether it remembers its
day. Here each agent is asked what its log knows the answer to (where it was at an hour, whom
it talked to) and answers by choosing among candidates taken from the same log and world:
the true one and three it did not do. Right or wrong, per condition, so the conditions can be
compared with tests; chance is one in four.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from mindstream.agents.generative import GenerativeAgent, Minds
from mindstream.agents.generative.events import Event, Talked, Tick
from mindstream.agents.generative.prompts import SPEAKER_PREFILL
from mindstream.agents.generative.text import bullets
from mindstream.lab.believability.interviews import under
from mindstream.sim.config import Condition

CHOICES = 4
QUIZ = (
    "{summary}\n"
    "What {name} remembers that is relevant:\n{context}\n\n"
    "An interviewer asks {name}: {question}\n"
)
BASELINE = "Someone says:"


class LogQuestion(BaseModel):
    """A question the log decides, its candidate answers and which one is true."""

    model_config = ConfigDict(frozen=True)

    agent: str
    kind: str  # "where" or "who"
    text: str
    options: tuple[str, ...]
    answer: int


def log_questions(
    events: Sequence[Event], agents: Sequence[str], areas: Sequence[str], hours: int, seed: int
) -> list[LogQuestion]:
    """Per agent: where it was at `hours` on-the-hour ticks drawn from the run, and one person
    it talked to (when it talked to anyone); three false candidates each, drawn from the
    world's areas and the town's people it never talked with."""
    ticks = [e for e in events if isinstance(e, Tick) and e.time[14:16] == "00" and e.agents]
    talks = [e for e in events if isinstance(e, Talked) and e.lines]
    out: list[LogQuestion] = []
    for name in agents:
        draw = random.Random(f"{seed}:{name}")
        out += _where(name, ticks, areas, hours, draw) + _who(name, talks, agents, draw)
    return out


def _where(
    name: str, ticks: list[Tick], areas: Sequence[str], hours: int, draw: random.Random
) -> list[LogQuestion]:
    asked = []
    for tick in sorted(draw.sample(ticks, min(hours, len(ticks))), key=lambda t: t.time):
        area = tick.agents[name].place.split(":")[0]
        others = draw.sample([a for a in areas if a != area], CHOICES - 1)
        question = f"Where were you at {tick.time[11:16]} today?"
        asked.append(_shuffled(name, "where", question, area, others, "I was at {}.", draw))
    return asked


def _who(
    name: str, talks: list[Talked], agents: Sequence[str], draw: random.Random
) -> list[LogQuestion]:
    pairs = [(t.first, t.second) for t in talks]
    partners = [b if a == name else a for a, b in pairs if name in (a, b)]
    strangers = [a for a in agents if a != name and a not in partners]
    if not partners or len(strangers) < CHOICES - 1:
        return []
    others = draw.sample(strangers, CHOICES - 1)
    question = "Who did you talk to today?"
    return [_shuffled(name, "who", question, partners[0], others, "I talked to {}.", draw)]


def _shuffled(
    agent: str,
    kind: str,
    question: str,
    truth: str,
    others: list[str],
    phrasing: str,
    draw: random.Random,
) -> LogQuestion:
    options = [truth, *others]
    draw.shuffle(options)
    said = tuple(phrasing.format(o) for o in options)
    return LogQuestion(
        agent=agent, kind=kind, text=question, options=said, answer=options.index(truth)
    )


def quiz_under(
    condition: Condition,
    agents: dict[str, GenerativeAgent],
    questions: Sequence[LogQuestion],
    minds: Minds,
    moment: datetime,
) -> list[bool]:
    """Whether each question is answered right with only what the condition leaves the
    agent: the candidate the model scores highest after the agent's prompt (calibrated
    against a neutral one), against the log's answer."""
    under(condition, agents, minds, moment)
    requests = [(_prompt(agents[q.agent], q, moment), list(q.options)) for q in questions]
    chosen = minds.choose(requests, "log quiz", BASELINE)
    return [c.index == q.answer for c, q in zip(chosen, questions, strict=True)]


def _prompt(agent: GenerativeAgent, question: LogQuestion, moment: datetime) -> str:
    request = QUIZ.format(
        summary=agent.description(),
        name=agent.name,
        question=question.text,
        context=bullets(agent.context(question.text, moment, 8)),
    )
    return request + SPEAKER_PREFILL.format(name=agent.name)
