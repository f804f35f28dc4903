"""The town's components, each a thin shell over the batched steps in `planning` and `social`,
and `town_day`, the order the paper's agents run them in every tick."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from mindstream.agents.generative.agent import GenerativeAgent
from mindstream.agents.generative.day_choice import Town, invitation
from mindstream.agents.generative.events import ReactDecision, Reflected, Talked
from mindstream.agents.generative.loop import Outcome, Scene, Stage
from mindstream.agents.generative.news import events_to_come, has_event_for
from mindstream.agents.generative.places import choose_places
from mindstream.agents.generative.planning import decompose, plan_days, refresh_summaries
from mindstream.agents.generative.reactions import Sight, decide_reactions, react_to_objects
from mindstream.agents.generative.social import converse
from mindstream.reflection import Reflector


class _Everyone:
    def wants(self, agent: GenerativeAgent) -> bool:
        return True


class Summaries(_Everyone):
    """The summary description at the top of every prompt, refreshed when due."""

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        refresh_summaries(agents, scene.minds, scene.moment)
        return Outcome()


class _Planner:
    def wants(self, agent: GenerativeAgent) -> bool:
        return agent.config.cognition.plans


class DayPlanning(_Planner):
    """A day plan of broad steps for every agent without one for today; a day chosen part
    by part is made of the places that are nobody's home (anyone's home is someone's)."""

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        town = Town.of(scene.world, (a.persona.home for a in scene.agents.values()))
        return Outcome(*plan_days(agents, town, scene.minds, scene.moment, scene.tick))


class Decomposition(_Planner):
    """The current broad step split into hours, the current hour into actions."""

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        return Outcome(events=decompose(agents, scene.minds, scene.moment))


class Placement(_Everyone):
    """Where each agent goes for its current step."""

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        return Outcome(events=choose_places(agents, scene.world, scene.minds, scene.moment))


class Movement(_Everyone):
    """A free agent goes where its current step is."""

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        for agent in agents:
            step = agent.doing(scene.moment)
            if step is not None and step.place is not None and agent.available(scene.moment):
                agent.location = step.place
        return Outcome()


class Perception(_Everyone):
    """What is newly in sight (people in the same area, objects in the same room, and what the
    agent itself is now doing, as the paper's agents perceive their own tile's event) becomes
    observations; an object's new state supersedes what the agent saw of it before."""

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        scene.fresh = {}
        outcome = Outcome()
        for agent in agents:
            sights = _sights(agent, scene)
            subjects = {s.text: s.subject for s in sights if not s.is_agent}
            seen = [s.text for s in sights] + _own_doing(agent, scene)
            new = agent.observe(seen, scene.moment, scene.tick, subjects)
            texts = {m.text for m in new}
            scene.fresh[agent.name] = [s for s in sights if s.text in texts]
            outcome.memories += new
        return outcome


def _own_doing(agent: GenerativeAgent, scene: Scene) -> list[str]:
    """What the agent is doing, remembered when it changes (a talk is remembered on its own)."""
    if not agent.available(scene.moment) or agent.doing(scene.moment) is None:
        return []
    return [f"{agent.name} is {agent.status(scene.moment)}"]


def _sights(agent: GenerativeAgent, scene: Scene) -> list[Sight]:
    world, area = scene.world, scene.world.area_of(agent.location)
    sights = [
        Sight(text=f"{o.name} is {o.status(scene.moment)}", subject=o.name, is_agent=True,
              place=o.location)
        for o in scene.agents.values()
        if o is not agent and world.area_of(o.location) == area
    ]  # fmt: skip
    sights += [
        Sight(text=f"{path} is {state}", subject=path, is_agent=False, place=world.room_path(path))
        for path, state in world.visible(agent.location)
    ]
    return sights


class Reacting(_Everyone):
    """Whether each free agent stops for the one new thing it saw; those who do are shuffled
    into `scene.reacting` for dialogue and object reactions."""

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        scene.reacting = []
        candidates = [
            (a, sight)
            for a in agents
            if a.free_to_talk(scene.moment) and (sight := _salient(a, scene) or _unmet(a, scene))
        ]
        if not candidates:
            return Outcome()
        decided = decide_reactions(candidates, scene.minds, scene.moment)
        scene.reacting = [(d.agent, d.sight) for d in decided if d.reacts()]
        scene.rng.shuffle(scene.reacting)
        return Outcome(
            events=[
                ReactDecision(
                    agent=d.agent.name,
                    to=d.sight.text,
                    p_yes=round(d.p, 3),
                    baseline=None if d.baseline is None else round(d.baseline, 3),
                )
                for d in decided
            ]
        )


def _salient(agent: GenerativeAgent, scene: Scene) -> Sight | None:
    """The one new thing an agent may react to, of a free person not talked to lately and
    the changed objects: the one whose memory was rated most important just now (a burning
    stove before a neighbour walking by); on a tie, the first seen."""
    eligible = [s for s in scene.fresh.get(agent.name, []) if _may_stop_for(agent, s, scene)]
    if len(eligible) <= 1:
        return eligible[0] if eligible else None
    rated = {r.text: r.importance for r in agent.stream.recent(4 * len(eligible), owner=agent.name)}
    return max(eligible, key=lambda s: rated.get(s.text, 0.0))


def _unmet(agent: GenerativeAgent, scene: Scene) -> Sight | None:
    """With nothing new in sight, someone here the agent has not talked to today and has an
    event to tell (the party at 5 pm): only new sights were weighed before, so Isabella,
    inviting, never spoke to the people who sat down in her cafe once their first sights
    were old. Not everyone unmet: a talk costs about 19 s on the embedded model, and 41
    talks in two hours made a day take 100 minutes."""
    unmet = [
        sight
        for sight in _sights(agent, scene)
        if sight.is_agent
        and not _talked_today(agent, sight.subject, scene.moment)
        and _may_stop_for(agent, sight, scene)
    ]
    if not unmet:
        return None  # alone, or everyone here met: no reading of the agent's memories
    events = events_to_come(agent, scene.moment)
    return next((s for s in unmet if has_event_for(agent, scene.agents[s.subject], events)), None)


def _talked_today(agent: GenerativeAgent, other: str, moment: datetime) -> bool:
    last = agent.chatted.get(other)
    return last is not None and last.date() == moment.date()


def _may_stop_for(agent: GenerativeAgent, sight: Sight, scene: Scene) -> bool:
    if not sight.is_agent:
        return True
    other = scene.agents[sight.subject]
    last = agent.chatted.get(other.name)
    cooldown = timedelta(minutes=agent.config.dialogue.cooldown_minutes)
    return other.free_to_talk(scene.moment) and (last is None or scene.moment - last >= cooldown)


class Dialogue(_Everyone):
    """Agents who stopped for a person talk with them, each person in one conversation."""

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        pairs: list[tuple[GenerativeAgent, GenerativeAgent]] = []
        talking: set[str] = set()
        for agent, sight in scene.reacting:
            if sight.is_agent and not talking & {agent.name, sight.subject}:
                talking |= {agent.name, sight.subject}
                pairs.append((agent, scene.agents[sight.subject]))
        memories, talks = converse(
            pairs, scene.minds, scene.moment, scene.tick, scene.step, town=list(scene.agents)
        )
        for (first, second), talk in zip(pairs, talks, strict=True):
            for agent in (first, second):
                heard = [text for who, text in talk.lines + talk.told if who != agent.name]
                _replan_if_invited(agent, heard, scene)
        return Outcome(memories, [Talked(**t.model_dump()) for t in talks])


def _replan_if_invited(agent: GenerativeAgent, heard: list[str], scene: Scene) -> None:
    """What an agent heard that names a place and a time later today (an invitation), in a
    line or in the news a line carried (the small model's line may drop the time), makes it
    plan the rest of the day again, the talk among its memories (the visit becomes a choice);
    not the one who said it, nor one whose plan already has the visit (a host re-planned after
    every talk: 40 s of scoring each on the embedded model), nor one who already planned
    around this invitation and chose otherwise (Klaus re-planned three times in an hour, once
    for each person who told him of the party)."""
    midnight = scene.moment.replace(hour=0, minute=0, second=0, microsecond=0)
    end = midnight + timedelta(hours=agent.config.planning.day_end_hour)
    found = invitation(" ".join(heard), scene.world.areas(), scene.moment, end)
    if found is None:
        return
    at, visit = found
    key = f"{at.isoformat()} {visit}"
    if key in agent.weighed or any(s.covers(at) and s.activity == visit for s in agent.plan.day()):
        return
    agent.weighed.append(key)
    agent.plan_date = None


class ObjectReaction(_Everyone):
    """Agents who stopped for an object re-plan from now; a deed that puts it right changes
    the world."""

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        objects = [(a, s) for a, s in scene.reacting if not s.is_agent]
        memories, events, changes = react_to_objects(objects, scene.minds, scene.moment, scene.tick)
        for path, state in changes.items():
            scene.world.set_state(path, state)
        return Outcome(memories, events)


@dataclass(frozen=True)
class Reflection:
    """Reflects when the agent's importance trigger fires; insights whose evidence a newer
    observation superseded (the stove is off now) are re-derived then too."""

    reflector: Reflector

    def wants(self, agent: GenerativeAgent) -> bool:
        return agent.config.cognition.reflects

    def run(self, agents: Sequence[GenerativeAgent], scene: Scene) -> Outcome:
        outcome = Outcome()
        for agent in agents:
            result = self.reflector.reflect(agent.name)
            if result.questions:
                result.insights += self.reflector.rederive(agent.name).insights
            if result.insights:
                insights = [i.record.text for i in result.insights]
                outcome.events.append(Reflected(agent=agent.name, insights=insights))
        return outcome


def town_day(reflector: Reflector | None) -> list[Stage]:
    """The paper's order: think ahead (each agent on its own over a server), move and look,
    react and talk, reflect. Without a reflector nobody reflects."""
    thinking = (Summaries(), DayPlanning(), Decomposition(), Placement())
    return [
        Stage(thinking, per_agent=True, stores=False),
        Stage((Movement(), Perception())),
        Stage((Reacting(), Dialogue(), ObjectReaction())),
        *([Stage((Reflection(reflector),))] if reflector is not None else []),
    ]
