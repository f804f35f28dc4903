"""Bringing exported memories back: the same times, statuses, evidence, provenance and
metadata, so an export imported into an empty account exports equal again (a backup that
restores); its ids too, unless one is taken on this store, when every id is issued anew and
every link rewritten (an account copied into another on the same server).

Every link an imported memory carries (evidence, what it supersedes or was superseded by,
corrects, was restored from, probably replaces) must name a memory of the import itself or
one of the importing account's: a dangling link or one into another account is refused in
one line, before anything is written. Nothing is re-decided on the way in (no change
detection, no rating): the export already holds what was superseded by what.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from uuid import uuid4

from mindstream.memory.errors import InvalidMemoryError, MemoryStateError
from mindstream.memory.records import MemoryRecord

Find = Callable[[str], MemoryRecord | None]


def prepared(
    records: Sequence[MemoryRecord], find: Find, taken: Collection[str] = ()
) -> list[MemoryRecord]:
    """The records as they will be stored: links checked, ids kept or issued anew (if one is
    found, or `taken` in the store by an owner not loaded here)."""
    ids = [r.id for r in records]
    repeated = next((i for n, i in enumerate(ids) if i in ids[:n]), None)
    if repeated is not None:
        raise MemoryStateError(f"memory id {repeated!r} is repeated in the import")
    coming = set(ids)
    for record in records:
        for link in (*record.evidence, *record.provenance.links()):
            found = None if link in coming else find(link)
            if link not in coming and (found is None or found.owner != record.owner):
                raise InvalidMemoryError(
                    f"memory {record.id!r} links to {link!r}, which is neither in the import "
                    "nor a memory of this account"
                )
    if not any(find(i) is not None or i in taken for i in ids):
        return list(records)
    renamed = {i: uuid4().hex for i in ids}
    return [_renamed(r, renamed) for r in records]


def _renamed(record: MemoryRecord, renamed: dict[str, str]) -> MemoryRecord:
    def one(i: str | None) -> str | None:
        return None if i is None else renamed.get(i, i)

    def many(ids: Sequence[str]) -> tuple[str, ...]:
        return tuple(renamed.get(i, i) for i in ids)

    p = record.provenance
    provenance = p.model_copy(
        update={
            "supersedes": many(p.supersedes),
            "superseded_by": many(p.superseded_by),
            "corrects": one(p.corrects),
            "restored_from": one(p.restored_from),
            "closest": one(p.closest),
            "near": many(p.near),
        }
    )
    return record.model_copy(
        update={
            "id": renamed[record.id],
            "evidence": many(record.evidence),
            "provenance": provenance,
        }
    )


def importable(memory: dict[str, object], owner: str) -> MemoryRecord:
    """One memory of an export (`cited_by` dropped) as a record of `owner`."""
    fields = {k: v for k, v in memory.items() if k != "cited_by"}
    try:
        return MemoryRecord.model_validate({**fields, "owner": owner})
    except ValueError as error:
        first = str(error).splitlines()
        raise InvalidMemoryError(f"memories: {first[1] if len(first) > 1 else first[0]}") from None
