"""The engine: every tick, every agent plans, moves, perceives, reacts and talks. In-process,
the model calls of all agents in a step go out as one batch (`Minds`); over a served model
each agent plans on its own thread, so the server is never idle waiting for a phase."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from agents.generative import (
    GenerativeAgent,
    Minds,
    Sight,
    choose_places,
    converse,
    decide_reactions,
    decompose,
    plan_days,
    react_to_objects,
    refresh_summaries,
)
from agents.generative.events import (
    Event,
    InnerVoice,
    ObjectChange,
    ReactDecision,
    Reflected,
    Talked,
    Tick,
    Whereabouts,
)
from memory import MemoryStream, NewMemory
from reflection import ReflectionConfig, Reflector
from sim.checkpoint import Checkpoint, RunFolder
from sim.clock import SimClock
from sim.config import SimConfig
from sim.errors import SimError
from sim.scenario import EventSpec, Scenario
from sim.world import World


class Engine:
    """Steps a scenario's agents through sim time; `step()` is one tick."""

    def __init__(
        self,
        scenario: Scenario,
        stream: MemoryStream,
        minds: Minds,
        config: SimConfig | None = None,
        folder: RunFolder | None = None,
        reflection: ReflectionConfig | None = None,
    ) -> None:
        self.scenario = scenario
        self.config = config or SimConfig()
        self.stream = stream
        self.minds = minds
        self.folder = folder
        self.world = World(scenario.world)
        self.clock = SimClock(scenario.start, scenario.tick_minutes)
        stream.clock = self.clock
        self.agents = {
            spec.name: GenerativeAgent(spec, stream, self.config.agent, spec.location)
            for spec in scenario.agents
        }
        # Reflection's generation is counted in the run's ledger like every other component.
        self.reflector = Reflector(stream, minds.counted_model("reflection"), reflection)
        self.tick = 0
        self.wall_seconds = 0.0  # over every segment of the run, resumed ones included
        self.model_seconds = 0.0  # of which a model call was under way
        self.pending: list[EventSpec] = sorted(scenario.events, key=lambda e: e.at)
        self.rng = random.Random(self.config.seed)
        self.log_size = 0
        self._fresh: dict[str, list[Sight]] = {}  # what each agent newly saw this tick

    # ---- user input --------------------------------------------------------------------
    def inject(self, place: str, state: str, at: datetime | None = None) -> None:
        """An object changes state ("<Isabella's apartment: kitchen: stove> is burning")."""
        self.world.check(place)
        self._queue(EventSpec(at=at or self.clock.now(), place=place, state=state))

    def whisper(self, agent: str, text: str, at: datetime | None = None) -> None:
        """An inner-voice instruction, remembered by the agent, which then re-plans its day."""
        if agent not in self.agents:
            raise SimError(f"no agent named {agent!r} (known: {', '.join(self.agents)})")
        self._queue(EventSpec(at=at or self.clock.now(), agent=agent, inner_voice=text))

    def _queue(self, event: EventSpec) -> None:
        self.pending = sorted([*self.pending, event], key=lambda e: e.at)

    # ---- running -----------------------------------------------------------------------
    def run(self, ticks: int, on_tick: Callable[[Engine], None] | None = None) -> None:
        for _ in range(ticks):
            self.step()
            if on_tick:
                on_tick(self)

    def step(self) -> list[Event]:
        """One tick; memories are stored during it, the checkpoint after it."""
        started, busy = time.perf_counter(), self.minds.clock.seconds()
        self.tick += 1
        if self.tick == 1:
            self._seed()
        moment = self.clock.now()
        agents = list(self.agents.values())
        events = self._apply_due(moment)
        memories, prepared = self._prepare(agents, moment)
        events += prepared
        self._follow_plans(moment)
        memories += self._perceive(agents, moment)
        self.stream.add_many(memories)
        events += self._react(agents, moment)
        events += self._reflect(agents)
        events.append(self._whereabouts(moment))
        self.clock.tick()
        self.wall_seconds += time.perf_counter() - started
        self.model_seconds += self.minds.clock.seconds() - busy
        self._commit(events)
        return events

    def _prepare(
        self, agents: list[GenerativeAgent], moment: datetime
    ) -> tuple[list[NewMemory], list[Event]]:
        """Summaries, day plans, decomposition and places. An agent's steps depend only on its
        own earlier ones: over a served model each agent runs them on its own thread, so the
        server gets every agent's next request as soon as it is ready (no phase waits for the
        slowest agent); in-process, each phase is one batch over all agents."""
        groups = [[a] for a in agents] if self.minds.concurrent else [agents]
        if len(groups) == 1:
            results = [self._prepare_group(groups[0], moment)]
        else:
            with ThreadPoolExecutor(len(groups), thread_name_prefix="mindstream-agent") as pool:
                results = list(pool.map(lambda g: self._prepare_group(g, moment), groups))
        return [m for r in results for m in r[0]], [e for r in results for e in r[1]]

    def _prepare_group(
        self, agents: list[GenerativeAgent], moment: datetime
    ) -> tuple[list[NewMemory], list[Event]]:
        refresh_summaries(agents, self.minds, moment)
        planners = [a for a in agents if a.config.cognition.plans]
        memories, events = plan_days(planners, self.minds, moment, self.tick)
        events += decompose(planners, self.minds, moment)
        events += choose_places(agents, self.world, self.minds, moment)
        return memories, events

    def _seed(self) -> None:
        moment = self.clock.now()
        self.stream.add_many(
            [m for a in self.agents.values() for m in a.seed_memories(moment, self.tick)]
        )

    def _apply_due(self, moment: datetime) -> list[Event]:
        due = [e for e in self.pending if e.at <= moment]
        self.pending = [e for e in self.pending if e.at > moment]
        events: list[Event] = []
        whispers: list[NewMemory] = []
        for event in due:
            if event.place is not None and event.state is not None:
                self.world.set_state(event.place, event.state)
                events.append(ObjectChange(place=event.place, state=event.state))
            elif event.agent is not None and event.inner_voice is not None:
                agent = self.agents[event.agent]
                whispers.append(agent.hear(event.inner_voice, moment, self.tick))
                events.append(InnerVoice(agent=agent.name, text=event.inner_voice))
        self.stream.add_many(whispers)
        return events

    def _follow_plans(self, moment: datetime) -> None:
        for agent in self.agents.values():
            step = agent.doing(moment)
            if step is not None and step.place is not None and agent.available(moment):
                agent.location = step.place

    def _sights(self, agent: GenerativeAgent, moment: datetime) -> list[Sight]:
        area = self.world.area_of(agent.location)
        sights = [
            Sight(
                text=f"{o.name} is {o.status(moment)}",
                subject=o.name,
                is_agent=True,
                place=o.location,
            )
            for o in self.agents.values()
            if o is not agent and self.world.area_of(o.location) == area
        ]
        sights += [
            Sight(
                text=f"{path} is {state}",
                subject=path,
                is_agent=False,
                place=self.world.room_path(path),
            )
            for path, state in self.world.visible(agent.location)
        ]
        return sights

    def _perceive(self, agents: list[GenerativeAgent], moment: datetime) -> list[NewMemory]:
        self._fresh = {}
        memories: list[NewMemory] = []
        for agent in agents:
            sights = self._sights(agent, moment)
            # An object's new state supersedes what the agent saw of it before.
            subjects = {s.text: s.subject for s in sights if not s.is_agent}
            new = agent.observe([s.text for s in sights], moment, self.tick, subjects)
            texts = {m.text for m in new}
            self._fresh[agent.name] = [s for s in sights if s.text in texts]
            memories += new
        return memories

    def _react(self, agents: list[GenerativeAgent], moment: datetime) -> list[Event]:
        candidates = [
            (a, sight)
            for a in agents
            if a.available(moment) and (sight := self._salient(a, moment))
        ]
        if not candidates:
            return []
        decided = decide_reactions(candidates, self.minds, moment)
        events: list[Event] = [
            ReactDecision(
                agent=d.agent.name,
                to=d.sight.text,
                p_yes=round(d.p, 3),
                baseline=None if d.baseline is None else round(d.baseline, 3),
            )
            for d in decided
        ]
        chosen = [(d.agent, d.sight) for d in decided if d.reacts()]
        self.rng.shuffle(chosen)
        pairs: list[tuple[GenerativeAgent, GenerativeAgent]] = []
        talking: set[str] = set()
        for agent, sight in chosen:
            if sight.is_agent and not talking & {agent.name, sight.subject}:
                talking |= {agent.name, sight.subject}
                pairs.append((agent, self.agents[sight.subject]))
        memories, talks = converse(pairs, self.minds, moment, self.tick, self.clock.step)
        objects = [(a, s) for a, s in chosen if not s.is_agent]
        reacted, reactions = react_to_objects(objects, self.minds, moment, self.tick)
        self.stream.add_many(memories + reacted)
        events += [Talked(**t.model_dump()) for t in talks]
        return events + reactions

    def _salient(self, agent: GenerativeAgent, moment: datetime) -> Sight | None:
        """The one new thing an agent may react to: a free person not talked to lately, or a
        changed object."""
        cooldown = timedelta(minutes=agent.config.chat_cooldown_minutes)
        for sight in self._fresh.get(agent.name, []):
            if sight.is_agent:
                other = self.agents[sight.subject]
                last = agent.chatted.get(other.name)
                if other.available(moment) and (last is None or moment - last >= cooldown):
                    return sight
            else:
                return sight
        return None

    def _reflect(self, agents: list[GenerativeAgent]) -> list[Event]:
        if not self.config.reflect:
            return []
        events: list[Event] = []
        for agent in (a for a in agents if a.config.cognition.reflects):
            result = self.reflector.reflect(agent.name)
            if result.questions:
                # When an agent reflects, insights whose evidence a newer observation
                # superseded (the stove is off now) are re-derived too.
                result.insights += self.reflector.rederive(agent.name).insights
            if result.insights:
                insights = [i.record.text for i in result.insights]
                events.append(Reflected(agent=agent.name, insights=insights))
        return events

    def _whereabouts(self, moment: datetime) -> Tick:
        return Tick(
            agents={
                a.name: Whereabouts(place=a.location, doing=a.status(moment))
                for a in self.agents.values()
            },
        )

    def _commit(self, events: list[Event]) -> None:
        stamp = {"tick": self.tick, "time": (self.clock.now() - self.clock.step).isoformat()}
        if self.folder is not None:
            self.stream.flush()
            self.log_size = self.folder.append(e.model_copy(update=stamp) for e in events)
            self.folder.save(self.get_state())

    # ---- saving ------------------------------------------------------------------------
    def get_state(self) -> Checkpoint:
        version, internal, gauss = self.rng.getstate()
        return Checkpoint(
            tick=self.tick,
            now=self.clock.now(),
            world=self.world.get_state(),
            agents={name: a.get_state() for name, a in self.agents.items()},
            pending=list(self.pending),
            rng=(version, tuple(internal), gauss),
            log_size=self.log_size,
            requests=dict(self.minds.requests),
            ledger=self.minds.ledger.as_dict(),
            wall_seconds=self.wall_seconds,
            model_seconds=self.model_seconds,
        )

    def set_state(self, state: Checkpoint) -> None:
        self.tick = state.tick
        self.clock.set(state.now)
        self.world.set_state_all(state.world)
        for name, agent_state in state.agents.items():
            self.agents[name].set_state(agent_state)
        self.pending = list(state.pending)
        self.rng.setstate(state.rng)
        self.log_size = state.log_size
        self.wall_seconds = state.wall_seconds
        self.model_seconds = state.model_seconds
        self.minds.restore_counts(state.requests, state.ledger)
