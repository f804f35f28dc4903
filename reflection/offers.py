"""Insights offered by what a memory stream shows, chosen by the model's importance rating.

A small model cannot write insights that hold: on a day of 25 town agents on the 135M model,
7 of about 250 written lines passed the evidence check. It can rate which of several true
statements matter, as it chooses places among the world's own. So an application that knows
the structure of its memories (a town: who told whom what, who talked with whom, where an
agent was) offers insights that are true by construction, each with the memories behind it;
the reflector stores the ones the model rates highest. An offer with the `key` of an insight
already stored replaces it when it says more ("heard it from 3 people" after "from 2").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from mindstream.memory import (
    MemoryKind,
    MemoryRecord,
    MemoryStatus,
    MemoryStream,
    NewMemory,
    corrections,
    new_memory,
)
from mindstream.memory.importance import RateTexts


class OfferedInsight(BaseModel):
    """A statement the memories prove, the memories that prove it, and what it answers."""

    model_config = ConfigDict(frozen=True)

    text: str
    evidence: tuple[MemoryRecord, ...] = Field(min_length=1)
    question: str
    key: str = Field(description="what it is about; a newer offer with the same key replaces it")


class InsightOffers(Protocol):
    """What an application's memories show about an owner, as insights to choose from."""

    def offer(self, owner: str, memories: Sequence[MemoryRecord]) -> list[OfferedInsight]: ...


def choose_offered(
    stream: MemoryStream,
    owner: str,
    offered: Sequence[OfferedInsight],
    rate: RateTexts,
    keep: int,
) -> list[tuple[OfferedInsight, MemoryRecord]]:
    """Store the `keep` offers the model rates most important, skipping what is already known;
    an offer replaces a stored insight with its key that says something else."""
    stored = {
        str(r.metadata.get("offered")): r
        for r in stream.records(owner)
        if r.kind is MemoryKind.REFLECTION
        and r.status is MemoryStatus.ACTIVE
        and r.metadata.get("offered")
    }
    fresh = [o for o in offered if o.key not in stored or stored[o.key].text != o.text]
    if not fresh or keep <= 0:
        return []
    ratings = rate([o.text for o in fresh])
    ranked = sorted(zip(fresh, ratings, strict=True), key=lambda pair: -pair[1])[:keep]
    chosen = [o for o, _ in ranked]
    records = stream.add_many([_as_memory(owner, o) for o in chosen])
    for offer, record in zip(chosen, records, strict=True):
        if offer.key in stored:
            corrections.retire(stream, stored[offer.key], record, how="offered again")
    return list(zip(chosen, records, strict=True))


def _as_memory(owner: str, offer: OfferedInsight) -> NewMemory:
    depth = 1 + max(int(r.metadata.get("depth", 0)) for r in offer.evidence)
    return new_memory(
        text=offer.text,
        owner=owner,
        kind=MemoryKind.REFLECTION,
        evidence=tuple(r.id for r in offer.evidence),
        metadata={"question": offer.question, "depth": depth, "offered": offer.key},
    )
