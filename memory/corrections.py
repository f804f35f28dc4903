"""Corrections as one state machine, and the reflections they make stale.

    active --supersede--> superseded --restore--> active
    active --forget-->    forgotten   (final: superseding or restoring it is refused)

Superseding a memory that is already superseded follows its chain to the newest active one
and supersedes that, so a chain keeps exactly one active memory. Every change is recorded in
the memories' typed provenance (`superseded_by` / `supersedes`, when, how, the judge's
probability), never by deleting. Every link is followed only within one owner: a link to
another owner's memory is treated as broken, never read. A stale reflection stays
retrievable until the reflection layer re-derives it; its `metadata["stale"]` says why it can
no longer be trusted.
"""

from __future__ import annotations

from mindstream.memory.book import EditableBook, RecordBook
from mindstream.memory.errors import MemoryStateError
from mindstream.memory.records import (
    MemoryRecord,
    MemoryStatus,
    NewMemory,
    Provenance,
    ScoredMemory,
)

# What a supersede writes on the old memory; restore takes it off again.
SUPERSEDE_FIELDS = ("superseded_by", "superseded_at", "how", "probability")


def linked(stream: RecordBook, record: MemoryRecord, memory_id: str | None) -> MemoryRecord | None:
    """The memory a link of `record` names, if it is one of the same owner's (a link to
    anyone else's is as good as broken: never followed)."""
    found = stream.find(memory_id) if memory_id else None
    return found if found is not None and found.owner == record.owner else None


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
        following = linked(stream, record, record.replaced_by)
        if following is None or following.id in seen:
            raise MemoryStateError(f"memory {memory_id!r}: its supersede chain is broken")
        seen.add(following.id)
        record = following
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
    replacement = stream.add_many([new], detect=False)[0]
    provenance = replacement.provenance.model_copy(update={"corrects": old_id})
    replacement = stream.replace(replacement, provenance=provenance)
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
    """Mark `old` superseded by `new` (both ways) and its dependents stale. Refused across
    owners."""
    if old.owner != new.owner:
        raise MemoryStateError(f"memory {new.id!r} cannot supersede another owner's memory")
    note = old.provenance.model_copy(
        update={
            "superseded_by": (*old.provenance.superseded_by, new.id),
            "superseded_at": stream.clock.now(),
            "how": how,
            "probability": None if probability is None else round(probability, 4),
        }
    )
    supersedes = tuple(dict.fromkeys([*new.provenance.supersedes, old.id]))
    retired, _ = stream.replace_many(
        [
            (old, {"status": MemoryStatus.SUPERSEDED, "provenance": note}),
            (new, {"provenance": new.provenance.model_copy(update={"supersedes": supersedes})}),
        ]
    )
    mark_dependents_stale(stream, old.id, reason=f"evidence {old.id} superseded")
    return retired


def replaced_by(stream: EditableBook, record: MemoryRecord, limit: int) -> list[MemoryRecord]:
    """What `record` superseded, newest first, down its chain: the history shown beside what
    is true now (the assistant's prompt, the long-memory eval's context recall)."""
    out: list[MemoryRecord] = []
    frontier, seen = [record], {record.id}
    while frontier and len(out) < limit:
        current = frontier.pop()
        older = [linked(stream, current, i) for i in current.provenance.supersedes]
        found = [
            r
            for r in older
            if r is not None and r.status is MemoryStatus.SUPERSEDED and r.id not in seen
        ]
        seen |= {r.id for r in found}
        out += found
        frontier += found
    return sorted(out, key=lambda r: r.created_at, reverse=True)[:limit]


def with_replacements(
    stream: RecordBook, results: list[ScoredMemory], k: int
) -> list[ScoredMemory]:
    """Never hide what is true now: a superseded memory among `results` whose current
    version is not brings that version in, right above it (with its score), the results cut
    back to `k`; then every superseded memory follows what replaced it."""
    present = {m.record.id for m in results}
    out: list[ScoredMemory] = []
    paired: set[str] = set()
    for m in results:
        if m.record.status is MemoryStatus.SUPERSEDED:
            current = _current(stream, m.record)
            if current is not None and current.id not in present:
                out.append(m.model_copy(update={"record": current}))
                present.add(current.id)
                paired |= {current.id, m.record.id}
        out.append(m)
    while len(out) > k:  # make room from the bottom, keeping each truth with its history
        spare = [n for n, m in enumerate(out) if m.record.id not in paired]
        out.pop(spare[-1] if spare else -1)
    return after_replacements(out)


def _current(stream: RecordBook, record: MemoryRecord) -> MemoryRecord | None:
    """The active end of a superseded memory's chain, within its owner; None if broken."""
    seen = {record.id}
    while record.status is MemoryStatus.SUPERSEDED:
        following = linked(stream, record, record.replaced_by)
        if following is None or following.id in seen:
            return None
        seen.add(following.id)
        record = following
    return record if record.status is MemoryStatus.ACTIVE else None


def after_replacements(results: list[ScoredMemory]) -> list[ScoredMemory]:
    """Each superseded memory moved right after the memory that directly replaced it, when
    that one is among `results`; otherwise it keeps its rank."""
    by_id = {m.record.id: m for m in results}
    followers: dict[str, list[ScoredMemory]] = {}
    for m in results:
        newer = m.record.replaced_by
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
    replacement = linked(stream, record, record.replaced_by)
    cleared = {name: Provenance.model_fields[name].default for name in SUPERSEDE_FIELDS}
    provenance = record.provenance.model_copy(
        update={
            **cleared,
            "restored_from": record.replaced_by,
            "restored_at": stream.clock.now(),
        }
    )
    changes: list[tuple[MemoryRecord, dict[str, object]]] = [
        (record, {"status": MemoryStatus.ACTIVE, "provenance": provenance})
    ]
    if replacement is not None:
        kept = tuple(i for i in replacement.provenance.supersedes if i != memory_id)
        update: dict[str, object] = {"supersedes": kept}
        changes.append(
            (replacement, {"provenance": replacement.provenance.model_copy(update=update)})
        )
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
