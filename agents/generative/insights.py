"""What a town agent's memories prove about its days, offered to reflection (`reflection.offers`):
news it heard from several people, people it keeps talking with or seeing, where its time goes.

Each offer is read from the metadata the town writes (`told_by`, `news`, `partner`, `seen_at`,
`tick`), so it is true of the log by construction; the model only rates which matter. The
135M model's own insights were mostly false or copies of one memory (docs/concepts/reflection.md).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from mindstream.memory import MemoryKind, MemoryRecord
from mindstream.reflection.offers import OfferedInsight

MIN_TELLERS = 2  # news heard from one person is that person's line, already a memory
MIN_TALKS = 2  # conversations at distinct ticks before "talk often"
MIN_SIGHTINGS = 3  # ticks someone was seen at before "keeps seeing"
MIN_PEOPLE = 3  # people talked with before "is meeting many people"
MIN_PLACE_TICKS = 4  # ticks at one area, at least half of the agent's, before "spends its time"
MAX_EVIDENCE = 6


class TownInsights:
    """`InsightOffers` over a town agent's memories."""

    def offer(self, owner: str, memories: Sequence[MemoryRecord]) -> list[OfferedInsight]:
        mine = [m for m in memories if m.owner == owner and m.kind is not MemoryKind.REFLECTION]
        return [
            *news_heard(owner, mine),
            *people_talked_with(owner, mine),
            *people_seen(owner, mine),
            *where_time_goes(owner, mine),
        ]


def news_heard(owner: str, memories: Sequence[MemoryRecord]) -> list[OfferedInsight]:
    """The same news told by at least `MIN_TELLERS` different people: it is going around."""
    told: dict[str, list[MemoryRecord]] = defaultdict(list)
    for record in memories:
        news, teller = record.metadata.get("news"), record.metadata.get("told_by")
        if news and teller and teller != owner:
            told[_words(str(news))].append(record)
    offers = []
    for key, records in told.items():
        tellers = list(dict.fromkeys(str(r.metadata["told_by"]) for r in records))
        if len(tellers) < MIN_TELLERS:
            continue
        news = str(records[-1].metadata["news"]).rstrip(". ")
        offers.append(
            OfferedInsight(
                text=f"{news}: {owner} has heard it from {len(tellers)} people, {_listed(tellers)}",
                evidence=_first_per(records, "told_by"),
                question=f"What is going around that {_first(owner)} keeps hearing?",
                key=f"news:{key}",
            )
        )
    return offers


def people_talked_with(owner: str, memories: Sequence[MemoryRecord]) -> list[OfferedInsight]:
    """Partners of conversations at `MIN_TALKS` distinct ticks or more, and, past
    `MIN_PEOPLE` partners, that the agent is meeting many people."""
    talks: dict[str, dict[object, MemoryRecord]] = defaultdict(dict)
    for record in memories:
        partner = record.metadata.get("partner")
        if record.kind is MemoryKind.DIALOGUE and partner and partner != owner:
            talks[str(partner)].setdefault(record.metadata.get("tick", record.id), record)
    offers = []
    for partner, by_tick in talks.items():
        if len(by_tick) >= MIN_TALKS:
            offers.append(
                OfferedInsight(
                    text=f"{owner} and {partner} talk often: {len(by_tick)} conversations",
                    evidence=tuple(list(by_tick.values())[-MAX_EVIDENCE:]),
                    question=f"Who does {_first(owner)} talk with most?",
                    key=f"talks:{partner}",
                )
            )
    if len(talks) >= MIN_PEOPLE:
        latest = [next(reversed(by_tick.values())) for by_tick in talks.values()]
        offers.append(
            OfferedInsight(
                text=f"{owner} is meeting many people: {_listed(list(talks))}",
                evidence=tuple(latest[-MAX_EVIDENCE:]),
                question=f"How sociable is {_first(owner)}?",
                key="people",
            )
        )
    return offers


def people_seen(owner: str, memories: Sequence[MemoryRecord]) -> list[OfferedInsight]:
    """Someone seen at `MIN_SIGHTINGS` distinct ticks or more, and the area most of it was."""
    seen: dict[str, dict[object, MemoryRecord]] = defaultdict(dict)
    for record in memories:
        at, who = record.metadata.get("seen_at"), _subject(record.text)
        if record.kind is MemoryKind.OBSERVATION and at and who and who != owner:
            seen[who].setdefault(record.metadata.get("tick", record.id), record)
    offers = []
    for who, by_tick in seen.items():
        if len(by_tick) < MIN_SIGHTINGS:
            continue
        area = _most_common([_area(r) for r in by_tick.values()])
        offers.append(
            OfferedInsight(
                text=f"{owner} keeps seeing {who} at {area}",
                evidence=tuple(r for r in by_tick.values() if _area(r) == area)[-MAX_EVIDENCE:],
                question=f"Who does {_first(owner)} see around?",
                key=f"seen:{who}",
            )
        )
    return offers


def where_time_goes(owner: str, memories: Sequence[MemoryRecord]) -> list[OfferedInsight]:
    """The area of at least half the ticks the agent observed anything, and `MIN_PLACE_TICKS`."""
    at_tick: dict[object, MemoryRecord] = {}
    for record in memories:
        if record.kind is MemoryKind.OBSERVATION and record.metadata.get("seen_at"):
            at_tick.setdefault(record.metadata.get("tick", record.id), record)
    if not at_tick:
        return []
    area = _most_common([_area(r) for r in at_tick.values()])
    there = [r for r in at_tick.values() if _area(r) == area]
    if len(there) < MIN_PLACE_TICKS or 2 * len(there) < len(at_tick):
        return []
    return [
        OfferedInsight(
            text=f"{owner} spends most of the time at {area}",
            evidence=tuple(there[-MAX_EVIDENCE:]),
            question=f"Where does {_first(owner)} spend the day?",
            key="place",
        )
    ]


def _subject(text: str) -> str | None:
    """Who an observation is about: "Maria Lopez is studying" -> "Maria Lopez"."""
    found = re.match(r"([A-Z][a-z]+(?: [A-Z][a-z]+)+) is ", text)
    return found.group(1) if found else None


def _area(record: MemoryRecord) -> str:
    return str(record.metadata["seen_at"]).split(":", 1)[0].strip()


def _most_common(values: list[str]) -> str:
    return max(dict.fromkeys(values), key=values.count)


def _first_per(records: list[MemoryRecord], field: str) -> tuple[MemoryRecord, ...]:
    by: dict[str, MemoryRecord] = {}
    for record in records:
        by.setdefault(str(record.metadata[field]), record)
    return tuple(list(by.values())[:MAX_EVIDENCE])


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _first(name: str) -> str:
    return name.split()[0]


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))
