"""Bringing exported memories back: the same ids, times, statuses, evidence and metadata, so
an export imported into an empty account exports equal again (a backup that restores).

Nothing is re-decided on the way in (no change detection, no rating): the export already
holds what was superseded by what.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mindstream.memory.errors import InvalidMemoryError, MemoryStateError
from mindstream.memory.records import MemoryRecord


def check_importable(
    records: Sequence[MemoryRecord], find: Callable[[str], MemoryRecord | None]
) -> None:
    """Refuses ids already present (`find`) or repeated (`MemoryStateError`), and evidence
    that cites neither an imported memory nor one of the same owner's."""
    taken = [r.id for r in records if find(r.id) is not None]
    if taken or len({r.id for r in records}) != len(records):
        raise MemoryStateError(
            f"memory id {(taken or [r.id for r in records])[0]!r} exists (or is repeated): "
            "import into an empty account"
        )
    coming = {r.id: r for r in records}
    for record in records:
        for cited in record.evidence:
            source = coming.get(cited) or find(cited)
            if source is None or source.owner != record.owner:
                raise InvalidMemoryError(f"evidence: {cited!r} is not a memory of {record.owner!r}")


def importable(memory: dict[str, object], owner: str) -> MemoryRecord:
    """One memory of an export (`cited_by` dropped) as a record of `owner`."""
    fields = {k: v for k, v in memory.items() if k != "cited_by"}
    try:
        return MemoryRecord.model_validate({**fields, "owner": owner})
    except ValueError as error:
        first = str(error).splitlines()
        raise InvalidMemoryError(f"memories: {first[1] if len(first) > 1 else first[0]}") from None
