"""The agent's loop: a tick is a sequence of stages, each a few components run over every agent
at once. Anything that schedules agents (the sim engine, a test, another sandbox) hands the
loop a `Scene` and stores what it returns; the loop needs no sim, only `Surroundings`.

An ablation is a component set: leave a component out of the loop for every agent, or let an
agent's `Cognition` switch it off (`Component.wants`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from mindstream.agents.generative.agent import GenerativeAgent
from mindstream.agents.generative.events import Event
from mindstream.agents.generative.minds import Minds
from mindstream.agents.generative.places import Places
from mindstream.agents.generative.reactions import Sight
from mindstream.memory import NewMemory


class Surroundings(Places, Protocol):
    """What an agent's loop needs from a world: places, what is in sight from one, and
    objects whose state a deed changes."""

    def visible(self, location: str) -> list[tuple[str, str]]: ...

    def room_path(self, path: str) -> str: ...

    def set_state(self, path: str, state: str) -> None: ...


@dataclass
class Scene:
    """One tick as the components see it. `fresh` (what each agent newly saw) and `reacting`
    (who stops for what) carry perception's and the reaction decision's results to the
    components after them; nothing here outlives the tick."""

    moment: datetime
    tick: int
    step: timedelta  # the tick's length: how long a conversation keeps two agents busy
    agents: Mapping[str, GenerativeAgent]
    world: Surroundings
    minds: Minds
    rng: random.Random
    fresh: dict[str, list[Sight]] = field(default_factory=dict)
    reacting: list[tuple[GenerativeAgent, Sight]] = field(default_factory=list)


@dataclass
class Outcome:
    """What a component produced: memories to store and events to log."""

    memories: list[NewMemory] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def add(self, other: Outcome) -> None:
        self.memories += other.memories
        self.events += other.events


class Component(Protocol):
    """One cognitive step, run on many agents at once so their model calls batch. Its state
    between ticks lives in the agent (`AgentState`, the checkpoint)."""

    def wants(self, agent: GenerativeAgent) -> bool:
        """Whether this agent runs the step (its `Cognition` may switch it off)."""
        ...

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome: ...


@dataclass(frozen=True)
class Stage:
    """Components run in order; the stage's memories are stored when it ends (`stores`), before
    the next stage recalls, or else with the next stage's in one batch (one rating and one
    change-detection call). `per_agent`: over a served model each agent runs the stage on its
    own thread (its steps depend only on its own earlier ones), so none waits for the slowest."""

    components: tuple[Component, ...]
    per_agent: bool = False
    stores: bool = True


class AgentLoop:
    """Runs a tick's stages over a town's agents; `store` writes a stage's memories."""

    def __init__(self, stages: Sequence[Stage], store: Callable[[list[NewMemory]], object]) -> None:
        self.stages = tuple(stages)
        self.store = store

    def step(self, scene: Scene) -> list[Event]:
        agents = list(scene.agents.values())
        events: list[Event] = []
        unstored: list[NewMemory] = []
        for stage in self.stages:
            outcome = self._run(stage, agents, scene)
            unstored += outcome.memories
            events += outcome.events
            if stage.stores and unstored:
                self.store(unstored)
                unstored = []
        if unstored:
            self.store(unstored)
        return events

    def _run(self, stage: Stage, agents: list[GenerativeAgent], scene: Scene) -> Outcome:
        groups = [[a] for a in agents] if stage.per_agent and scene.minds.concurrent else [agents]
        if len(groups) == 1:
            return _run_group(stage, groups[0], scene)
        with ThreadPoolExecutor(len(groups), thread_name_prefix="mindstream-agent") as pool:
            results = list(pool.map(lambda g: _run_group(stage, g, scene), groups))
        total = Outcome()
        for result in results:
            total.add(result)
        return total


def _run_group(stage: Stage, agents: list[GenerativeAgent], scene: Scene) -> Outcome:
    outcome = Outcome()
    for component in stage.components:
        outcome.add(component.run([a for a in agents if component.wants(a)], scene))
    return outcome
