"""Corrections as one state machine, and the reflections they make stale.

    active --supersede--> superseded --restore--> active
    active --forget-->    forgotten   (final: superseding or restoring it is refused)

Superseding a memory that is already superseded follows its chain to the newest active one
and supersedes that, so a chain keeps exactly one active memory. Every change is recorded in
the memories' metadata (`superseded_by` / `supersedes`, when, how, the judge's probability),
never by deleting. A stale reflection stays retrievable until the reflection layer re-derives
it; its `metadata["stale"]` says why it can no longer be trusted.
"""

from __future__ import annotations

from mindstream.memory.book import EditableBook
from mindstream.memory.errors import MemoryStateError
from mindstream.memory.records import MemoryRecord, MemoryStatus, NewMemory, ScoredMemory

# What a supersede writes on the old memory; restore takes it off again.
SUPERSEDE_KEYS = ("superseded_by", "superseded_at", "superseded_how", "supersede_p")


def forget(stream: EditableBook, memory_id: str) -> MemoryRecord:
    record = stream.get(memory_id)
    if record.status is MemoryStatus.FORGOTTEN:
        return record
    forgotten = stream.replace(record, status=MemoryStatus.FORGOTTEN)
    mark_dependents_stale(stream, memory_id, reason=f"evidence {memory_id} forgotten")
    return forgotten


def forget_all(stream: EditableBook, owner: str) -> int:
    active = [r for r in stream.records(owner) if r.status is MemoryStatus.ACTIVE]
    stream.replace_many([(r, {"status": MemoryStatus.FORGOTTEN}) for r in active])
    return len(active)


def newest_in_chain(stream: EditableBook, memory_id: str) -> MemoryRecord:
    """The active end of a memory's supersede chain (itself if active)."""
    record, seen = stream.get(memory_id), {memory_id}
    while record.status is MemoryStatus.SUPERSEDED:
        following = str(record.metadata.get("superseded_by", ""))
        if not following or following in seen:
            raise MemoryStateError(f"memory {memory_id!r}: its supersede chain is broken")
        seen.add(following)
        record = stream.get(following)
    if record.status is MemoryStatus.FORGOTTEN:
        where = "" if record.id == memory_id else f" (its newest version {record.id!r} is)"
        raise MemoryStateError(
            f"memory {memory_id!r} is forgotten{where}; a forgotten memory stays forgotten "
            "(add the fact as a new memory)"
        )
    return record


def supersede(stream: EditableBook, old_id: str, new: NewMemory) -> MemoryRecord:
    """Store `new` in place of the newest version of `old_id`; the old one is kept, marked."""
    current = newest_in_chain(stream, old_id)
    extra = {"supersedes": current.id}
    if current.id != old_id:
        extra["corrects"] = old_id
    replacement = stream.add_many(
        [new.model_copy(update={"metadata": {**new.metadata, **extra}})], detect=False
    )[0]
    retire(stream, current, replacement, how="correction")
    return stream.get(replacement.id)


def retire(
    stream: EditableBook,
    old: MemoryRecord,
    new: MemoryRecord,
    *,
    how: str,
    probability: float | None = None,
) -> MemoryRecord:
    """Mark `old` superseded by `new` (both ways) and its dependents stale."""
    note: dict[str, str | float] = {
        "superseded_by": new.id,
        "superseded_at": stream.clock.now().isoformat(),
        "superseded_how": how,
    }
    if probability is not None:
        note["supersede_p"] = round(probability, 4)
    listed = [i for i in str(new.metadata.get("supersedes", "")).split(",") if i]
    supersedes = ",".join(dict.fromkeys([*listed, old.id]))
    retired, _ = stream.replace_many(
        [
            (old, {"status": MemoryStatus.SUPERSEDED, "metadata": {**old.metadata, **note}}),
            (new, {"metadata": {**new.metadata, "supersedes": supersedes}}),
        ]
    )
    mark_dependents_stale(stream, old.id, reason=f"evidence {old.id} superseded")
    return retired


def replaced_by(stream: EditableBook, record: MemoryRecord, limit: int) -> list[MemoryRecord]:
    """What `record` superseded, newest first, down its chain: the history shown beside what
    is true now (the assistant's prompt, the long-memory eval's context recall)."""
    out: list[MemoryRecord] = []
    frontier = [record]
    while frontier and len(out) < limit:
        listed = str(frontier.pop().metadata.get("supersedes", ""))
        older = [stream.find(i) for i in listed.split(",") if i]
        found = [r for r in older if r is not None and r.status is MemoryStatus.SUPERSEDED]
        out += found
        frontier += found
    return sorted(out, key=lambda r: r.created_at, reverse=True)[:limit]


def after_replacements(results: list[ScoredMemory]) -> list[ScoredMemory]:
    """Each superseded memory moved right after the memory that directly replaced it, when
    that one is among `results`; otherwise it keeps its rank."""
    by_id = {m.record.id: m for m in results}
    followers: dict[str, list[ScoredMemory]] = {}
    for m in results:
        newer = m.record.metadata.get("superseded_by")
        if m.record.status is MemoryStatus.SUPERSEDED and newer in by_id:
            followers.setdefault(str(newer), []).append(m)
    following = {m.record.id for group in followers.values() for m in group}
    out: list[ScoredMemory] = []
    done: set[str] = set()

    def place(m: ScoredMemory) -> None:
        if m.record.id in done:
            return
        done.add(m.record.id)
        out.append(m)
        for older in followers.get(m.record.id, ()):
            place(older)

    for m in results:
        if m.record.id not in following:
            place(m)
    out += [m for m in results if m.record.id not in done]  # a cycle: keep every memory
    return out


def restore(stream: EditableBook, memory_id: str) -> MemoryRecord:
    """Undo a supersede (a wrong automatic one, say): the memory is active again and its
    replacement no longer lists it. The replacement stays active: both are now believed."""
    record = stream.get(memory_id)
    if record.status is not MemoryStatus.SUPERSEDED:
        raise MemoryStateError(
            f"memory {memory_id!r} is {record.status.value}; only a superseded memory can be "
            "restored"
        )
    replaced_by = str(record.metadata.get("superseded_by", ""))
    metadata = {k: v for k, v in record.metadata.items() if k not in SUPERSEDE_KEYS}
    metadata.update(restored_from=replaced_by, restored_at=stream.clock.now().isoformat())
    changes = [(record, {"status": MemoryStatus.ACTIVE, "metadata": metadata})]
    replacement = stream.find(replaced_by)
    if replacement is not None:
        left = [i for i in str(replacement.metadata.get("supersedes", "")).split(",") if i]
        kept = ",".join(i for i in left if i != memory_id)
        rest = {k: v for k, v in replacement.metadata.items() if k != "supersedes"}
        changes.append((replacement, {"metadata": {**rest, "supersedes": kept} if kept else rest}))
    return stream.replace_many(changes)[0]


def mark_dependents_stale(
    stream: EditableBook, memory_id: str, *, reason: str
) -> list[MemoryRecord]:
    changes = [
        (d, {"metadata": {**d.metadata, "stale": True, "stale_reason": reason}})
        for d in stream.dependents_of(memory_id)
        if d.status is MemoryStatus.ACTIVE and not d.stale
    ]
    return stream.replace_many(changes)


def stale_memories(stream: EditableBook, owner: str) -> list[MemoryRecord]:
    return [r for r in stream.records(owner) if r.stale and r.status is MemoryStatus.ACTIVE]
