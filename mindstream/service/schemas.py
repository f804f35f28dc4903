"""Request and response bodies of the service (validated; unknown fields refused)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Header
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictFloat, StrictInt

from mindstream.memory import MemoryRecord, ScoredMemory
from mindstream.memory.records import Provenance


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def no_control(text: str) -> str:
    """NUL and other C0 controls (tab and newlines aside) are refused, not stored."""
    bad = next((c for c in text if ord(c) < 32 and c not in "\t\n\r"), None)
    if bad is not None:
        raise ValueError(f"control character U+{ord(bad):04X} is not allowed")
    return text


Words = Annotated[str, Field(min_length=1, max_length=4000), AfterValidator(no_control)]


class ChatIn(Strict):
    message: Words
    session: str = Field(
        "default", pattern=r"^[\w.-]{1,64}$", description="the chat's turns are kept per session"
    )


class MemoryIn(Strict):
    text: Words
    kind: Literal["fact", "observation", "dialogue", "plan"] = "fact"
    importance: StrictFloat | StrictInt | None = Field(
        None, ge=1, le=10, description="omitted: rated by the model; a number (not true/false)"
    )


class SupersedeIn(Strict):
    text: Words


class CorrectionIn(Strict):
    action: Literal["wrong", "actually", "forget"]
    memory_id: str = Field(min_length=1, max_length=64)
    text: Words | None = None


class UserIn(Strict):
    name: str = Field(min_length=1, max_length=64)


class MemoryOut(BaseModel):
    id: str
    kind: str
    text: str
    created_at: datetime
    last_accessed_at: datetime
    importance: float
    status: str
    evidence: list[str]
    metadata: dict[str, Any]
    provenance: Provenance

    @classmethod
    def of(cls, record: MemoryRecord) -> MemoryOut:
        return cls(**record.model_dump(mode="json", exclude={"owner"}))


class FoundOut(BaseModel):
    memory: MemoryOut
    score: float
    recency: float
    importance: float
    relevance: float
    recency_raw: float = 0.0

    @classmethod
    def of(cls, found: ScoredMemory) -> FoundOut:
        return cls(
            memory=MemoryOut.of(found.record),
            score=found.score,
            recency=found.recency,
            importance=found.importance,
            relevance=found.relevance,
            recency_raw=found.recency_raw,
        )


# A write sent again with the same key (a client retrying after a 503 or a lost answer)
# returns what the first stored, and stores nothing twice; the key is kept with the memories.
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=200,
        pattern=r"^[\x21-\x7e]+$",
        description="any printable key, one per logical write; send it again on a retry",
    ),
]
