"""The engine schedules a town: sim time, the world's objects, the scenario's and the user's
events, the run log and checkpoint. What agents do in a tick is their own loop
(`agents.generative.loop`: plan, move, perceive, react, talk, reflect), batched over agents."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import datetime

from mindstream.agents.generative import AgentLoop, GenerativeAgent, Minds, Scene, town_day
from mindstream.agents.generative.events import Event, InnerVoice, ObjectChange, Tick, Whereabouts
from mindstream.memory import MemoryStream, NewMemory
from mindstream.reflection import Reflector
from mindstream.sim.checkpoint import Checkpoint, RunFolder
from mindstream.sim.clock import SimClock
from mindstream.sim.config import SimConfig
from mindstream.sim.errors import SimError
from mindstream.sim.scenario import EventSpec, Scenario
from mindstream.sim.world import World


class Engine:
    """Steps a scenario's agents through sim time; `step()` is one tick."""

    def __init__(
        self,
        scenario: Scenario,
        stream: MemoryStream,
        minds: Minds,
        config: SimConfig | None = None,
        folder: RunFolder | None = None,
        reflector: Reflector | None = None,
    ) -> None:
        """`reflector`: how agents reflect (`sim.runner` makes it from the run's parts);
        without one, agents do not reflect."""
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
        self.reflector = reflector
        self.tick = 0
        self.wall_seconds = 0.0  # over every segment of the run, resumed ones included
        self.model_seconds = 0.0  # of which a model call was under way
        self.pending: list[EventSpec] = sorted(scenario.events, key=lambda e: e.at)
        self.rng = random.Random(self.config.seed)
        self.log_size = 0
        self.loop = AgentLoop(town_day(reflector if self.config.reflect else None), stream.add_many)

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
        events = self._apply_due(moment)
        events += self.loop.step(self._scene(moment))
        self.clock.tick()
        self.wall_seconds += time.perf_counter() - started
        self.model_seconds += self.minds.clock.seconds() - busy
        events.append(self._whereabouts(moment))
        self._commit(events)
        return events

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

    def _scene(self, moment: datetime) -> Scene:
        return Scene(
            moment=moment,
            tick=self.tick,
            step=self.clock.step,
            agents=self.agents,
            world=self.world,
            minds=self.minds,
            rng=self.rng,
        )

    def _whereabouts(self, moment: datetime) -> Tick:
        return Tick(
            agents={
                a.name: Whereabouts(place=a.location, doing=a.status(moment))
                for a in self.agents.values()
            },
            wall_seconds=round(self.wall_seconds, 2),
            requests=sum(self.minds.requests.values()),
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
            fruitless=self.reflector.fruitless() if self.reflector else {},
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
        if self.reflector is not None:
            self.reflector.resume_fruitless(state.fruitless)
