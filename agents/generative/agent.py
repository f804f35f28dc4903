"""A generative agent (Park et al. 2023): persona + memory stream + plan.

The agent holds no storage beyond the stream and a small, saveable state (where it is, its
plan, its cached summary). Its thinking is done in `cognition`, which takes many agents at
once so a sandbox can batch their model calls; for one agent, pass a list of one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from mindstream.agents.generative.config import AgentConfig
from mindstream.agents.generative.persona import Persona
from mindstream.agents.generative.plan import Plan, PlanStep
from mindstream.agents.generative.text import progressive
from mindstream.memory import MemoryKind, MemoryRecord, MemoryStream, NewMemory, new_memory

# A whisper is the user speaking to the agent directly: it ranks near the top of what the agent
# recalls (importance is 1-10) whatever a small model would rate it.
INNER_VOICE_IMPORTANCE = 9.0


class GenerativeAgent:
    """One inhabitant of the sandbox; see `cognition` for perceive, plan, react, converse."""

    def __init__(
        self,
        persona: Persona,
        stream: MemoryStream,
        config: AgentConfig | None = None,
        location: str | None = None,
    ) -> None:
        self.persona = persona
        self.stream = stream
        self.config = config or AgentConfig()
        self.location = location or persona.home
        self.plan = Plan()
        self.plan_date: str | None = None
        self.summary: str | None = None
        self.summary_at: datetime | None = None
        self.seen: list[str] = []
        self.chatted: dict[str, datetime] = {}
        self.busy_until: datetime | None = None
        self.yesterday = "had an ordinary day."
        self.intentions: list[str] = []  # inner-voice instructions the next day plan must see
        self.told: dict[str, list[str]] = {}  # per listener, the news told them (`news`)
        self.weighed: list[str] = []  # invitations ("<when> go to <place>") planned around
        # Recalling sets last access, as in the paper; an evaluation that restores the agent
        # under several conditions turns it off, so one condition cannot change the next.
        self.touches = True

    @property
    def name(self) -> str:
        return self.persona.name

    # ---- memory ------------------------------------------------------------------------
    def memory(
        self,
        text: str,
        moment: datetime,
        kind: MemoryKind | str = "observation",
        importance: float | None = None,
        subject: str | None = None,
        **meta: Any,
    ) -> NewMemory:
        """A memory of this agent, stamped with sim time (not yet stored: the caller batches);
        without an importance the stream has the model rate it."""
        return new_memory(
            text=text,
            owner=self.name,
            kind=kind,
            importance=importance,
            created_at=moment,
            subject=subject,
            metadata=meta,
        )

    def hear(self, voice: str, moment: datetime, tick: int) -> NewMemory:
        """An inner-voice instruction (the paper's whisper): remembered as highly important,
        and the day is planned again with it in view."""
        self.intentions.append(voice)
        self.plan_date = None
        return self.memory(
            voice, moment, importance=INNER_VOICE_IMPORTANCE, inner_voice=True, tick=tick
        )

    def seed_memories(self, moment: datetime, tick: int = 0) -> list[NewMemory]:
        return [self.memory(text, moment, seed=True, tick=tick) for text in self.persona.memories]

    def context(self, query: str, moment: datetime, k: int | None = None) -> list[str]:
        """Texts of the memories retrieved for `query`."""
        return [record.text for record in self.recall(query, moment, k)]

    def recall(self, query: str, moment: datetime, k: int | None = None) -> list[MemoryRecord]:
        """The memories retrieved for `query` (recency x importance x relevance), best first,
        of the kinds the agent may use."""
        kinds = self.config.cognition.memory.kinds
        if not self.stream.count(self.name) or kinds == ():
            return []
        hits = self.stream.retrieve(
            query,
            k or self.config.context_k,
            owner=self.name,
            now=moment,
            kinds=kinds,
            touch=self.touches,
        )
        return [hit.record for hit in hits]

    def observe(
        self,
        texts: list[str],
        moment: datetime,
        tick: int,
        subjects: dict[str, str] | None = None,
    ) -> list[NewMemory]:
        """What is newly in sight becomes observations; what was already seen is not repeated.
        A text's `subjects` entry (an object's path) is the memory's subject, so the stream's
        change detection lets the object's new state supersede the old one; `seen_at` is where
        the agent was (where to look for someone later)."""
        fresh = [text for text in texts if text not in self.seen]
        self.seen = list(texts)
        about: dict[str, Any] = {t: {"subject": s} for t, s in (subjects or {}).items()}
        return [
            self.memory(
                text, moment, "observation", tick=tick, seen_at=self.location, **about.get(text, {})
            )
            for text in fresh
        ]

    # ---- what it is doing --------------------------------------------------------------
    def header(self) -> str:
        p = self.persona
        lines = [f"Name: {p.name} (age: {p.age})", f"Innate traits: {', '.join(p.traits)}"]
        if p.occupation:
            lines.append(f"Occupation: {p.occupation}")
        return "\n".join(lines)

    def description(self) -> str:
        """The summary description used at the top of every prompt."""
        return self.header() + (f"\n{self.summary}" if self.summary else "")

    def doing(self, moment: datetime) -> PlanStep | None:
        return self.plan.current(moment)

    def status(self, moment: datetime) -> str:
        if self.busy_until and moment < self.busy_until:
            return "having a conversation"
        step = self.doing(moment)
        return progressive(step.activity) if step else "idle"

    def available(self, moment: datetime) -> bool:
        return not (self.busy_until and moment < self.busy_until)

    def free_to_talk(self, moment: datetime) -> bool:
        """Not talking and not asleep: asleep neither stops for anything nor is stopped for
        (a 25-agent day's 22:00 had 18 agents asking whether to talk to someone sleeping)."""
        step = self.doing(moment)
        return self.available(moment) and not (step is not None and step.activity == "sleep")

    # ---- saving ------------------------------------------------------------------------
    def get_state(self) -> AgentState:
        return AgentState(
            location=self.location,
            plan=self.plan,
            plan_date=self.plan_date,
            summary=self.summary,
            summary_at=self.summary_at,
            seen=list(self.seen),
            chatted=dict(self.chatted),
            busy_until=self.busy_until,
            yesterday=self.yesterday,
            intentions=list(self.intentions),
            told={who: list(news) for who, news in self.told.items()},
            weighed=list(self.weighed),
        )

    def set_state(self, state: AgentState) -> None:
        self.location = state.location
        self.plan = state.plan
        self.plan_date = state.plan_date
        self.summary = state.summary
        self.summary_at = state.summary_at
        self.seen = list(state.seen)
        self.chatted = dict(state.chatted)
        self.busy_until = state.busy_until
        self.yesterday = state.yesterday
        self.intentions = list(state.intentions)
        self.told = {who: list(news) for who, news in state.told.items()}
        self.weighed = list(state.weighed)


class AgentState(BaseModel):
    """What an agent keeps between ticks: its part of a run's checkpoint."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    location: str
    plan: Plan
    plan_date: str | None = None
    summary: str | None = None
    summary_at: datetime | None = None
    seen: list[str] = []
    chatted: dict[str, datetime] = {}
    busy_until: datetime | None = None
    yesterday: str = "had an ordinary day."
    intentions: list[str] = []  # a checkpoint from before whispers were planned with has none
    told: dict[str, list[str]] = {}  # and one from before talk carried news, none
    weighed: list[str] = []
