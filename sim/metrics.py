"""Emergent behaviour (Park et al. 2023, section 7): information diffusion, relationship
formation, coordination.

The paper interviewed agents and read the answers. Here "knows" is grounded in memory: an
agent knows of a topic if a memory it was told (a seed, a conversation, an inner voice, or a
reflection on those) mentions one of the topic's keywords, and knows a person if one mentions
that person's name. Mere sightings ("Sam is writing speeches") do not count. Measured on the
seed memories (the start) and at the end, so the difference is what the run added. The agents'
own interview answers are kept beside these figures in the report for a reader to judge.
"""

from __future__ import annotations

from datetime import datetime
from itertools import permutations
from typing import Any

from memory import MemoryKind, MemoryRecord, MemoryStatus, MemoryStream
from sim.events import Event
from sim.scenario import Scenario


def _memories(stream: MemoryStream, owner: str, start_only: bool) -> list[str]:
    records: list[MemoryRecord] = [
        r for r in stream.records(owner) if r.status is MemoryStatus.ACTIVE
    ]
    told = (MemoryKind.DIALOGUE, MemoryKind.REFLECTION)
    records = [
        r
        for r in records
        if r.metadata.get("seed")
        or (not start_only and (r.kind in told or r.metadata.get("inner_voice")))
    ]
    return [r.text.lower() for r in records]


def diffusion(stream: MemoryStream, scenario: Scenario, start_only: bool) -> dict[str, Any]:
    """Per topic: which agents know of it and their share."""
    result = {}
    names = [a.name for a in scenario.agents]
    for topic, keywords in scenario.topics.items():
        knowers = [
            name
            for name in names
            if any(
                k.lower() in text for text in _memories(stream, name, start_only) for k in keywords
            )
        ]
        result[topic] = {"agents": knowers, "share": len(knowers) / len(names)}
    return result


def relationships(stream: MemoryStream, scenario: Scenario, start_only: bool) -> dict[str, Any]:
    """Directed "A knows B" pairs and the network density (pairs / n(n-1))."""
    agents = scenario.agents
    texts = {a.name: _memories(stream, a.name, start_only) for a in agents}
    pairs = [
        (a.name, b.name)
        for a, b in permutations(agents, 2)
        if any(b.name.lower() in t or b.first_name.lower() in t for t in texts[a.name])
    ]
    possible = len(agents) * (len(agents) - 1)
    return {"pairs": pairs, "density": len(pairs) / possible if possible else 0.0}


def attendance(events: list[Event], scenario: Scenario) -> dict[str, Any]:
    """Who was in each gathering's area at some tick inside its window (None: not simulated)."""
    result: dict[str, Any] = {}
    ticks = [e for e in events if e.type == "tick" and e.agents]
    for gathering in scenario.gatherings:
        inside = [
            e for e in ticks if gathering.start <= datetime.fromisoformat(e.time) < gathering.end
        ]
        present = sorted(
            {
                name
                for e in inside
                for name, where in (e.agents or {}).items()
                if where.place.startswith(f"{gathering.area}:")
            }
        )
        result[gathering.topic] = {
            "area": gathering.area,
            "window": f"{gathering.start:%b %d %H:%M}-{gathering.end:%H:%M}",
            "ticks_simulated": len(inside),
            "present": present if inside else None,
        }
    return result


def measure(stream: MemoryStream, scenario: Scenario, events: list[Event]) -> dict[str, Any]:
    return {
        "diffusion": {
            "start": diffusion(stream, scenario, start_only=True),
            "end": diffusion(stream, scenario, start_only=False),
        },
        "relationships": {
            "start": relationships(stream, scenario, start_only=True),
            "end": relationships(stream, scenario, start_only=False),
        },
        "coordination": attendance(events, scenario),
    }
