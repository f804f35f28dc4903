"""The embedded model's reaction decisions through the committed reaction adapter: the flood
and the fire of smallville25 next to the residents who see them, against everyday states of
the same objects. The adapter never saw a state with "burn" or "flood" in it."""

from __future__ import annotations

from datetime import datetime

import pytest

from mindstream.agents.generative import (
    GenerativeAgent,
    Minds,
    Sight,
    decide_reactions,
    react_to_objects,
)
from mindstream.agents.generative.reactions import ReactOdds
from mindstream.compose import Parts
from mindstream.memory import InMemoryStore, MemoryStream
from mindstream.sim import load_scenario

pytestmark = pytest.mark.real_model

EVENTS = {
    "Johnson Park: park: fountain": ("flooding the path", "running quietly"),
    "Hobbs Cafe: kitchen: stove": ("burning", "being cleaned"),
}


EMERGENCIES = tuple(emergency for emergency, _ in EVENTS.values())


def six_residents_see(parts: Parts) -> tuple[list[ReactOdds], Minds]:
    """Each state of `EVENTS`, seen by six smallville25 residents, decided through `parts`."""
    minds = parts.minds()
    town = load_scenario("smallville25")
    stream = MemoryStream(InMemoryStore(), parts.models.embedder)
    moment = datetime(2023, 2, 14, 10, 0, tzinfo=town.start.tzinfo)
    residents = [GenerativeAgent(p, stream) for p in town.agents[:6]]
    candidates = [
        (agent, Sight(text=f"{path} is {state}", subject=path, is_agent=False, place=path))
        for path, states in EVENTS.items()
        for state in states
        for agent in residents
    ]
    return decide_reactions(candidates, minds, moment), minds


def test_a_flood_and_a_fire_are_reacted_to_and_everyday_states_are_not() -> None:
    decided, minds = six_residents_see(Parts.load())
    for d in decided:
        print(f"{d.agent.name:20} {d.sight.text:50} P {d.p:.2f} idle {d.baseline:.2f} {d.reacts()}")
    emergency = {
        state: sum(d.reacts() for d in decided if d.sight.text.endswith(state))
        for state in EMERGENCIES
    }
    everyday = [d for d in decided if not d.sight.text.endswith(EMERGENCIES)]
    # Measured: the flood 5 of 6, the fire 5 of 6, 1 of 12 everyday states (a stove being
    # cleaned, +0.25 for Klaus, at the margin). P >= 0.5 alone reacted to 5 of the 12.
    assert min(emergency.values()) >= 4, emergency
    assert sum(d.reacts() for d in everyday) <= 1
    assert minds.requests["react"] == 2 * len(decided)  # each sight and its idle baseline


def test_most_who_stop_for_a_fire_or_a_flood_choose_the_deed_that_ends_it() -> None:
    decided, minds = six_residents_see(Parts.load())
    stopped = [(d.agent, d.sight) for d in decided if d.reacts()]
    moment = datetime(2023, 2, 14, 10, 0, tzinfo=load_scenario("smallville25").start.tzinfo)
    _, events, changes = react_to_objects(stopped, minds, moment, 1)
    for event in events:
        print(f"{event.agent:20} {event.to:50} {event.plan} {event.changed}")
    emergencies = [e for e in events if e.to.endswith(EMERGENCIES)]
    # Measured: 9 of the 10 who stopped chose the deed (Klaus wrote "not be surprised by the
    # fact that the fire at Hobbs Cafe" and kept it); the first to act at each changed it.
    fixed = [e for e in emergencies if e.plan.split(" ", 1)[1].startswith(("put out", "stop"))]
    assert len(fixed) >= len(emergencies) // 2, [e.plan for e in emergencies]
    assert set(changes) == {e.to.rsplit(" is ", 1)[0] for e in fixed}
