"""A long-running personal assistant: one memory stream shared by many users, each user the
owner of their own memories (never another's), kept for months.

Every answer comes with the memories it used, and is stored with them as its evidence, so a
user can see why it said what it said and correct it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agents.assistant.config import AssistantConfig
from agents.assistant.prompting import answer_prompt
from lm import complete_batch
from memory import (
    MemoryKind,
    MemoryNotFoundError,
    MemoryRecord,
    MemoryStatus,
    MemoryStream,
    ScoredMemory,
    new_memory,
)

RECALLED = (MemoryKind.OBSERVATION, MemoryKind.DIALOGUE, MemoryKind.FACT, MemoryKind.CORRECTION)
RECALLED_WITH_REFLECTIONS = (*RECALLED, MemoryKind.REFLECTION)


class UsedMemory(BaseModel):
    """A memory an answer used, with the parts of its retrieval score."""

    id: str
    kind: str
    text: str
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


class Correction(BaseModel):
    """A person's correction, as in TeachMe: the memory is wrong (forgotten, noted), has a
    newer truth ("actually ..."; superseded with provenance), or should be forgotten."""

    action: Literal["wrong", "actually", "forget"]
    memory_id: str
    text: str | None = Field(None, description="the corrected fact, for `actually`")


class Assistant:
    """chat, remember, correct, search, export and delete, per user, on one stream.

    The stream is not thread-safe: calls are serialised by a lock, except the model's
    generation, so one user's slow answer does not hold up another's search.
    """

    def __init__(
        self,
        stream: MemoryStream,
        model: BaseChatModel,
        config: AssistantConfig | None = None,
        reflect: Callable[[str], Any] | None = None,
    ) -> None:
        self.stream = stream
        self.model = model
        self.config = config or AssistantConfig()
        self._reflect = reflect
        self.lock = threading.RLock()

    # ---- talking -------------------------------------------------------------------------
    def chat(self, user: str, message: str) -> Reply:
        with self.lock:
            found = self._recall(user, message, self.config.k)
            history = [
                r.text
                for r in self.stream.recent(
                    self.config.history, owner=user, kinds=[MemoryKind.DIALOGUE]
                )
            ]
        prompt = answer_prompt(message, found, history)
        answer = complete_batch(
            self.model, [prompt], "assistant", max_tokens=self.config.max_tokens
        )[0]
        answer = answer or "(no answer)"
        with self.lock:
            asked = self.stream.add(
                f"User: {message}", owner=user, kind=MemoryKind.DIALOGUE, metadata={"role": "user"}
            )
            said = self.stream.add(
                f"Assistant: {answer}",
                owner=user,
                kind=MemoryKind.DIALOGUE,
                importance=self.config.answer_importance,
                evidence=tuple(m.record.id for m in found),
                metadata={"role": "assistant"},
            )
        return Reply(
            answer=answer,
            memories=[UsedMemory.of(m) for m in found],
            message_id=asked.id,
            answer_id=said.id,
        )

    def _recall(self, user: str, query: str, k: int) -> list[ScoredMemory]:
        if not self.stream.count(user):
            return []
        return self.stream.retrieve(query, k, owner=user, kinds=RECALLED_WITH_REFLECTIONS)

    # ---- memories ------------------------------------------------------------------------
    def remember(
        self, user: str, text: str, importance: float | None = None, kind: str = "fact"
    ) -> MemoryRecord:
        with self.lock:
            return self.stream.add(text, owner=user, kind=kind, importance=importance)

    def search(self, user: str, query: str, k: int = 10) -> list[ScoredMemory]:
        with self.lock:
            return self._recall(user, query, k)

    def memory(self, user: str, memory_id: str) -> MemoryRecord:
        """A memory of this user; another user's id is as unknown as a made-up one."""
        with self.lock:
            record = self.stream.get(memory_id)
        if record.owner != user:
            raise MemoryNotFoundError(f"no memory with id {memory_id!r}")
        return record

    def memories(
        self, user: str, kind: str | None = None, status: str | None = None
    ) -> list[MemoryRecord]:
        with self.lock:
            records = self.stream.records(user)
        return [
            r
            for r in records
            if (kind is None or r.kind.value == kind)
            and (status is None or r.status.value == status)
        ]

    def correct(self, user: str, correction: Correction) -> MemoryRecord:
        """Apply a correction; what is stored (the correction, or the superseding memory)."""
        wrong = self.memory(user, correction.memory_id)
        with self.lock:
            if correction.action == "actually":
                if not correction.text or not correction.text.strip():
                    raise ValueError("text: an 'actually' correction needs the corrected fact")
                replacement = new_memory(
                    text=correction.text,
                    owner=user,
                    kind=MemoryKind.CORRECTION,
                    metadata={"corrects": wrong.id},
                )
                return self.stream.supersede(wrong.id, replacement)
            self.stream.forget(wrong.id)
            if correction.action == "forget":
                return self.stream.get(wrong.id)
            return self.stream.add(
                f"The user said this is wrong: {wrong.text}",
                owner=user,
                kind=MemoryKind.CORRECTION,
                evidence=(wrong.id,),
                metadata={"wrong": wrong.id},
            )

    def forget(self, user: str, memory_id: str) -> MemoryRecord:
        return self.correct(user, Correction(action="forget", memory_id=memory_id))

    def supersede(self, user: str, memory_id: str, text: str) -> MemoryRecord:
        return self.correct(user, Correction(action="actually", memory_id=memory_id, text=text))

    # ---- reflection, export, deletion ----------------------------------------------------
    def reflect(self, user: str) -> Any:
        if self._reflect is None:
            raise ValueError("this assistant has no reflector")
        with self.lock:
            return self._reflect(user)

    def reflections(self, user: str) -> list[dict[str, Any]]:
        with self.lock:
            return [
                {
                    **_exported(r),
                    "evidence_texts": [
                        e.text for e in self.stream.evidence_of(r.id)[: len(r.evidence)]
                    ],
                }
                for r in self.stream.records(user)
                if r.kind is MemoryKind.REFLECTION and r.status is MemoryStatus.ACTIVE
            ]

    def export(self, user: str) -> dict[str, Any]:
        """Every memory of the user with its provenance (what it cites, what cites it)."""
        with self.lock:
            records = self.stream.records(user)
            cited_by = {r.id: [d.id for d in self.stream.dependents_of(r.id)] for r in records}
        return {
            "user": user,
            "memories": [{**_exported(r), "cited_by": cited_by[r.id]} for r in records],
        }

    def delete_user(self, user: str) -> int:
        """Remove the user's memories from the store and the index, reflections included."""
        with self.lock:
            self.stream.flush()
            return self.stream.drop_owner(user)


def _exported(record: MemoryRecord) -> dict[str, Any]:
    return record.model_dump(mode="json")
