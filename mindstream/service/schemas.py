"""Request and response bodies of the service (validated; unknown fields refused)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memory import MemoryRecord, ScoredMemory


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatIn(Strict):
    message: str = Field(min_length=1, max_length=4000)


class MemoryIn(Strict):
    text: str = Field(min_length=1, max_length=4000)
    kind: Literal["fact", "observation", "dialogue", "plan"] = "fact"
    importance: float | None = Field(None, ge=1, le=10, description="omitted: rated by the model")


class SupersedeIn(Strict):
    text: str = Field(min_length=1, max_length=4000)


class CorrectionIn(Strict):
    action: Literal["wrong", "actually", "forget"]
    memory_id: str = Field(min_length=1, max_length=64)
    text: str | None = Field(None, max_length=4000)


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

    @classmethod
    def of(cls, record: MemoryRecord) -> MemoryOut:
        return cls(**record.model_dump(mode="json", exclude={"owner"}))


class FoundOut(BaseModel):
    memory: MemoryOut
    score: float
    recency: float
    importance: float
    relevance: float

    @classmethod
    def of(cls, found: ScoredMemory) -> FoundOut:
        return cls(
            memory=MemoryOut.of(found.record),
            score=found.score,
            recency=found.recency,
            importance=found.importance,
            relevance=found.relevance,
        )
