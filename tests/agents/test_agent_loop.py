"""The agent's loop without the sim: a room of its own, components as a set, stage stores."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta

from mindstream.agents.generative import (
    AgentLoop,
    GenerativeAgent,
    Outcome,
    Persona,
    Scene,
    Stage,
    Surroundings,
    town_day,
)
from mindstream.agents.generative.steps import DayPlanning, Dialogue, Perception, Reacting
from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import InMemoryStore, MemoryKind, MemoryStream, NewMemory
from tests.sim.conftest import scripted_minds

MORNING = datetime(2023, 2, 14, 9, 0)


class OneRoom:
    """A world of one room with a kettle: all the loop needs (`Surroundings`)."""

    def areas(self) -> list[str]:
        return ["Flat"]

    def rooms(self, area: str) -> list[str]:
        return ["kitchen"]

    def area_of(self, path: str) -> str:
        return path.split(": ")[0]

    def visible(self, location: str) -> list[tuple[str, str]]:
        return [("Flat: kitchen: kettle", "boiling")]

    def room_path(self, path: str) -> str:
        return ": ".join(path.split(": ")[:2])


def _town(yes: float = 0.9) -> tuple[MemoryStream, dict[str, GenerativeAgent], Scene]:
    minds = scripted_minds(yes)
    stream = MemoryStream(InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance)
    people = [
        Persona(name=name, age=30, traits=["kind"], home="Flat: kitchen") for name in ("Ann", "Bo")
    ]
    agents = {p.name: GenerativeAgent(p, stream) for p in people}
    world: Surroundings = OneRoom()
    scene = Scene(MORNING, 1, timedelta(minutes=10), agents, world, minds, random.Random(0))
    return stream, agents, scene


def test_agents_plan_perceive_and_talk_without_a_sim() -> None:
    stream, agents, scene = _town()
    events = AgentLoop(town_day(None), stream.add_many).step(scene)
    kinds = {e.type for e in events}
    assert {"plan", "conversation"} <= kinds
    for name in agents:
        assert stream.recent(5, owner=name, kinds=[MemoryKind.DIALOGUE])
        seen = [m.text for m in stream.recent(20, owner=name, kinds=[MemoryKind.OBSERVATION])]
        assert "Flat: kitchen: kettle is boiling" in seen


def test_an_ablation_is_a_component_set() -> None:
    stream, agents, scene = _town()
    events = AgentLoop([Stage((Perception(), Reacting(), Dialogue()))], stream.add_many).step(scene)
    assert "plan" not in {e.type for e in events}
    assert all(a.plan_date is None for a in agents.values())
    assert stream.recent(20, owner="Ann", kinds=[MemoryKind.PLAN]) == []


def test_a_stage_that_does_not_store_hands_its_memories_to_the_next_store() -> None:
    stream, _, scene = _town()
    batches: list[int] = []

    def store(memories: list[NewMemory]) -> None:
        batches.append(len(memories))
        stream.add_many(memories)

    stages = [Stage((DayPlanning(),), stores=False), Stage((Perception(),))]
    AgentLoop(stages, store).step(scene)
    # two plans, and each agent sees the other, the kettle and what it is itself doing now
    assert batches == [2 + 2 * 3]


class _Counting:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def wants(self, agent: GenerativeAgent) -> bool:
        return agent.name != "Bo"

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        self.seen += [a.name for a in agents]
        return Outcome()


def test_a_component_runs_only_on_the_agents_that_want_it() -> None:
    stream, _, scene = _town()
    counting = _Counting()
    AgentLoop([Stage((counting,))], stream.add_many).step(scene)
    assert counting.seen == ["Ann"]
