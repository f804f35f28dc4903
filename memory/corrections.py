"""Forgetting and superseding memories, and marking the reflections that cited them stale.

A stale reflection stays retrievable until the reflection layer re-derives it; its
`metadata["stale"]` says why it can no longer be trusted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory.records import MemoryRecord, MemoryStatus

if TYPE_CHECKING:
    from memory.records import NewMemory
    from memory.stream import MemoryStream


def forget(stream: MemoryStream, memory_id: str) -> MemoryRecord:
    record = stream.get(memory_id)
    forgotten = stream.replace(record, status=MemoryStatus.FORGOTTEN)
    mark_dependents_stale(stream, memory_id, reason=f"evidence {memory_id} forgotten")
    return forgotten


def forget_all(stream: MemoryStream, owner: str) -> int:
    active = [r for r in stream.records(owner) if r.status is MemoryStatus.ACTIVE]
    stream.replace_many([(r, {"status": MemoryStatus.FORGOTTEN}) for r in active])
    return len(active)


def supersede(stream: MemoryStream, old_id: str, new: NewMemory) -> MemoryRecord:
    """Store `new` in place of `old_id`: the old memory is kept, marked superseded."""
    old = stream.get(old_id)
    replacement = stream.add_many(
        [new.model_copy(update={"metadata": {**new.metadata, "supersedes": old_id}})]
    )[0]
    stream.replace(
        old,
        status=MemoryStatus.SUPERSEDED,
        metadata={**old.metadata, "superseded_by": replacement.id},
    )
    mark_dependents_stale(stream, old_id, reason=f"evidence {old_id} superseded")
    return replacement


def mark_dependents_stale(
    stream: MemoryStream, memory_id: str, *, reason: str
) -> list[MemoryRecord]:
    changes = [
        (d, {"metadata": {**d.metadata, "stale": True, "stale_reason": reason}})
        for d in stream.dependents_of(memory_id)
        if d.status is MemoryStatus.ACTIVE and not d.stale
    ]
    return stream.replace_many(changes)


def stale_memories(stream: MemoryStream, owner: str) -> list[MemoryRecord]:
    return [r for r in stream.records(owner) if r.stale and r.status is MemoryStatus.ACTIVE]
