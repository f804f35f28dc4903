"""What a town agent's memories prove, offered to reflection: read from the town's metadata."""

from __future__ import annotations

from typing import Any

from mindstream.agents.generative.insights import TownInsights
from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import (
    InMemoryStore,
    ManualClock,
    MemoryKind,
    MemoryStream,
    NewMemory,
    new_memory,
)

PARTY = "Isabella Rodriguez is planning a party at Hobbs Cafe."


def _record(text: str, kind: MemoryKind, tick: int, **meta: Any) -> NewMemory:
    meta = {"tick": tick, **meta}
    return new_memory(text=text, owner="Klaus Mueller", kind=kind, metadata=meta, importance=5)


def _told(teller: str, tick: int, news: str = PARTY) -> NewMemory:
    text = f"{teller} told Klaus Mueller: {news}"
    return _record(text, MemoryKind.DIALOGUE, tick, news=news, told_by=teller, partner=teller)


def _seen(text: str, tick: int, at: str) -> NewMemory:
    return _record(text, MemoryKind.OBSERVATION, tick, seen_at=at)


def _offers(items: list[NewMemory]) -> dict[str, str]:
    stream = MemoryStream(InMemoryStore(), HashEmbeddings(), clock=ManualClock())
    records = stream.add_many(items)
    return {o.key: o.text for o in TownInsights().offer("Klaus Mueller", records)}


def test_news_heard_from_two_people_is_offered_and_from_one_is_not() -> None:
    once = _offers([_told("Maria Lopez", 1)])
    assert not any(k.startswith("news:") for k in once)
    twice = _offers([_told("Maria Lopez", 1), _told("Maria Lopez", 4), _told("Sam Moore", 5)])
    (text,) = [t for k, t in twice.items() if k.startswith("news:")]
    assert text.startswith("Isabella Rodriguez is planning a party at Hobbs Cafe:")
    assert "2 people, Maria Lopez and Sam Moore" in text


def test_talks_at_two_ticks_make_a_partner_one_talks_with_often() -> None:
    talks = [_told("Maria Lopez", 1), _told("Maria Lopez", 1, "Maria Lopez studies physics.")]
    assert "talks:Maria Lopez" not in _offers(talks)  # one conversation, two memories
    offers = _offers([*talks, _told("Maria Lopez", 3, "Maria Lopez streams games.")])
    assert (
        offers["talks:Maria Lopez"] == "Klaus Mueller and Maria Lopez talk often: 2 conversations"
    )


def test_someone_seen_at_three_ticks_and_the_place_of_most_ticks() -> None:
    seen = [_seen("Ayesha Khan is reading", t, "Oak Hill College: library") for t in (1, 2, 3)]
    seen += [_seen("Hobbs Cafe: cafe: counter is idle", 4, "Hobbs Cafe: cafe")]
    offers = _offers(seen)
    assert (
        offers["seen:Ayesha Khan"] == "Klaus Mueller keeps seeing Ayesha Khan at Oak Hill College"
    )
    assert "place" not in offers  # 3 ticks at the college: fewer than 4
    offers = _offers([*seen, _seen("Ayesha Khan is writing", 5, "Oak Hill College: library")])
    assert offers["place"] == "Klaus Mueller spends most of the time at Oak Hill College"
