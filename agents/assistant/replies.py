"""What the assistant answers with and the errors and corrections of its requests: the HTTP
client reads these without loading the assistant."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from mindstream.memory import ScoredMemory


class UsedMemory(BaseModel):
    """A memory an answer used, with the parts of its retrieval score."""

    id: str
    kind: str
    text: str
    status: str = "active"  # "superseded": recalled as history, no longer true
    created_at: datetime
    score: float
    recency: float
    importance: float
    relevance: float

    @classmethod
    def of(cls, found: ScoredMemory) -> UsedMemory:
        r = found.record
        return cls(
            id=r.id,
            kind=r.kind.value,
            text=r.text,
            status=r.status.value,
            created_at=r.created_at,
            score=found.score,
            recency=found.recency,
            importance=found.importance,
            relevance=found.relevance,
        )


class Reply(BaseModel):
    answer: str
    memories: list[UsedMemory]
    message_id: str
    answer_id: str


class RequestReused(ValueError):
    """An idempotency key sent again with another request than the first time."""


class ReflectionBusy(RuntimeError):
    """This user's reflection is still running; a second one would repeat its insights."""


class Correction(BaseModel):
    """A person's correction, as in TeachMe: the memory is wrong (forgotten, noted), has a
    newer truth ("actually ..."; superseded with provenance), or should be forgotten."""

    action: Literal["wrong", "actually", "forget"]
    memory_id: str
    text: str | None = Field(None, description="the corrected fact, for `actually`")
