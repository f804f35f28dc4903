"""Emergent behaviour (Park et al. 2023, section 7): information diffusion, relationship
formation, coordination.

The paper interviewed agents and read the answers. Here "knows" is grounded in memory: an
agent knows of a topic if a memory it was told (a seed, a conversation, an inner voice, or a
reflection on those) mentions one of the topic's keywords, and knows a person if one mentions
that person's name. Mere sightings ("Sam is writing speeches") do not count. Measured on the
seed memories (the start) and at the end, so the difference is what the run added. The agents'
own interview answers are kept beside these figures in the report for a reader to judge.
The same counts at every hour give the paper's diffusion curves.
"""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import permutations
from typing import Any

from mindstream.memory import MemoryKind, MemoryStatus, MemoryStream
from mindstream.sim.events import Event
from mindstream.sim.scenario import Scenario


def _told(stream: MemoryStream, owner: str) -> list[tuple[datetime, str, bool]]:
    """(when, lower-cased text, is a seed) of the memories an agent was told."""
    told = (MemoryKind.DIALOGUE, MemoryKind.REFLECTION)
    return [
        (r.created_at, r.text.lower(), bool(r.metadata.get("seed")))
        for r in stream.records(owner)
        if r.status is MemoryStatus.ACTIVE
        and (r.metadata.get("seed") or r.kind in told or r.metadata.get("inner_voice"))
    ]


class _Knowledge:
    """What each agent was told, read from the stream once; asked as of any moment."""

    def __init__(self, stream: MemoryStream, scenario: Scenario) -> None:
        self.scenario = scenario
        self.told = {a.name: _told(stream, a.name) for a in scenario.agents}

    def texts(self, owner: str, until: datetime | None) -> list[str]:
        """The seeds alone (`until` None), or everything told up to `until`."""
        if until is None:
            return [text for _, text, seed in self.told[owner] if seed]
        return [text for when, text, _ in self.told[owner] if when <= until]

    def diffusion(self, until: datetime | None) -> dict[str, Any]:
        """Per topic: which agents know of it and their share."""
        names = [a.name for a in self.scenario.agents]
        texts = {name: self.texts(name, until) for name in names}
        result = {}
        for topic, keywords in self.scenario.topics.items():
            knowers = [n for n in names if any(k.lower() in t for t in texts[n] for k in keywords)]
            result[topic] = {"agents": knowers, "share": len(knowers) / len(names)}
        return result

    def relationships(self, until: datetime | None) -> dict[str, Any]:
        """Directed "A knows B" pairs and the network density (pairs / n(n-1))."""
        agents = self.scenario.agents
        texts = {a.name: self.texts(a.name, until) for a in agents}
        pairs = [
            (a.name, b.name)
            for a, b in permutations(agents, 2)
            if any(b.name.lower() in t or b.first_name.lower() in t for t in texts[a.name])
        ]
        possible = len(agents) * (len(agents) - 1)
        return {"pairs": pairs, "density": len(pairs) / possible if possible else 0.0}

    def curve(self, moments: list[datetime]) -> list[dict[str, Any]]:
        """Each topic's share of knowers and the network density at each moment; at the
        scenario's start, the seeds alone (what its first tick adds comes after)."""
        start = self.scenario.start
        return [
            {
                "time": f"{moment:%Y-%m-%d %H:%M}",
                "shares": {
                    t: d["share"]
                    for t, d in self.diffusion(None if moment <= start else moment).items()
                },
                "density": self.relationships(None if moment <= start else moment)["density"],
            }
            for moment in moments
        ]


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
    """Diffusion and relationships at the start (seeds) and the end, and hour by hour (the
    paper's curves); attendance at each gathering."""
    known = _Knowledge(stream, scenario)
    return {
        "diffusion": {"start": known.diffusion(None), "end": known.diffusion(_END)},
        "relationships": {
            "start": known.relationships(None),
            "end": known.relationships(_END),
        },
        "hourly": known.curve(_hours(events, scenario.start)),
        "coordination": attendance(events, scenario),
    }


_END = datetime.max.replace(tzinfo=UTC)


def _hours(events: list[Event], start: datetime) -> list[datetime]:
    """The run's start, its ticks on the hour, and its last tick."""
    ticks = [datetime.fromisoformat(e.time) for e in events if e.type == "tick"]
    marks = [start, *(t for t in ticks if t.minute == 0), *ticks[-1:]]
    return sorted(set(marks))
