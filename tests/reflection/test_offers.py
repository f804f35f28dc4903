"""Insights offered by what the memories prove, chosen by the importance rating."""

from __future__ import annotations

from collections.abc import Sequence

from mindstream.lm.fakes import HashEmbeddings, ScriptedChatModel
from mindstream.memory import (
    InMemoryStore,
    ManualClock,
    MemoryKind,
    MemoryRecord,
    MemoryStatus,
    MemoryStream,
)
from mindstream.reflection import ReflectionConfig, Reflector
from mindstream.reflection.offers import OfferedInsight

RATINGS = {"Klaus keeps hearing about the party": 9.0, "Klaus sits in the library": 2.0}


def _stream() -> MemoryStream:
    def rater(texts: Sequence[str]) -> list[float]:
        return [RATINGS.get(t, 5.0) for t in texts]

    return MemoryStream(InMemoryStore(), HashEmbeddings(), clock=ManualClock(), rater=rater)


class Offers:
    """Offers whatever it is given, each resting on every memory."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts  # key -> text

    def offer(self, owner: str, memories: Sequence[MemoryRecord]) -> list[OfferedInsight]:
        evidence = tuple(m for m in memories if m.kind is not MemoryKind.REFLECTION)
        return [
            OfferedInsight(text=t, evidence=evidence, question=f"about {k}?", key=k)
            for k, t in self.texts.items()
        ]


def _reflector(stream: MemoryStream, offers: Offers, keep: int = 2) -> Reflector:
    model = ScriptedChatModel(rules={"high-level questions": "", "high-level insights": ""})
    return Reflector(stream, model, ReflectionConfig(threshold=1, offered=keep), offers)


def _seed(stream: MemoryStream) -> list[str]:
    said = ["Maria told Klaus: a party at the cafe", "Sam told Klaus: a party at the cafe"]
    return [stream.add(t, owner="Klaus", importance=8).id for t in said]


def test_the_model_rated_most_important_offers_are_stored_citing_their_evidence() -> None:
    stream = _stream()
    ids = _seed(stream)
    offers = Offers(
        {
            "news": "Klaus keeps hearing about the party",
            "place": "Klaus sits in the library",
            "talk": "Klaus talks with Maria",
        }
    )
    result = _reflector(stream, offers).reflect("Klaus")
    stored = [i.record for i in result.insights]
    assert [r.text for r in stored] == [
        "Klaus keeps hearing about the party",
        "Klaus talks with Maria",
    ]
    assert all(r.kind is MemoryKind.REFLECTION and list(r.evidence) == ids for r in stored)
    assert stored[0].metadata["offered"] == "news" and stored[0].metadata["depth"] == 1


def test_an_offer_already_known_is_not_stored_again_and_a_newer_one_replaces_it() -> None:
    stream = _stream()
    _seed(stream)
    first = _reflector(stream, Offers({"news": "Klaus heard it from 2 people"}))
    (old,) = [i.record for i in first.reflect("Klaus", force=True).insights]
    assert first.reflect("Klaus", force=True).insights == []  # the same text again
    newer = _reflector(stream, Offers({"news": "Klaus heard it from 3 people"}))
    (new,) = [i.record for i in newer.reflect("Klaus", force=True).insights]
    assert stream.get(old.id).status is MemoryStatus.SUPERSEDED
    assert stream.get(new.id).status is MemoryStatus.ACTIVE


def test_no_offers_are_stored_when_the_config_keeps_none() -> None:
    stream = _stream()
    _seed(stream)
    result = _reflector(stream, Offers({"news": "Klaus heard it"}), keep=0).reflect("Klaus")
    assert result.insights == []
