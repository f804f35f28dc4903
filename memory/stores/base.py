"""The store protocol and the flat form every backend keeps a record in."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mindstream.memory.records import MemoryKind, MemoryRecord, MemoryStatus

# What may change after a record is stored, and the flat keys each field is kept under.
MUTABLE_FIELDS = ("status", "metadata", "provenance", "last_accessed_at", "importance")
FLAT_KEYS = {
    "status": "status",
    "metadata": "meta",
    "provenance": "prov",
    "last_accessed_at": "last_accessed_at",
    "importance": "importance",
}


@runtime_checkable
class MemoryStore(Protocol):
    def put(self, records: Sequence[MemoryRecord], embeddings: np.ndarray) -> None:
        """Insert new records with their embeddings; durable when it returns."""
        ...

    def update(
        self, records: Sequence[MemoryRecord], fields: Sequence[str] = MUTABLE_FIELDS
    ) -> None:
        """Rewrite the named mutable fields of existing records, and only those: a process
        writing back last access must not undo a status another process set."""
        ...

    def load(
        self, batch_size: int = 5000, owner: str | None = None
    ) -> Iterator[tuple[list[MemoryRecord], np.ndarray]]:
        """Every record (of `owner` only, if given) with its embedding, in insertion order,
        in batches."""
        ...

    def taken(self, ids: Sequence[str]) -> set[str]:
        """Which of `ids` the store holds, whoever owns them (an import must not reuse one
        that belongs to an owner this process has not loaded)."""
        ...

    def nearest(self, owner: str, vector: np.ndarray, n: int) -> list[str]:
        """Ids of up to n active memories of `owner` nearest to `vector` (the ANN prefilter)."""
        ...

    def delete(self, ids: Sequence[str]) -> None:
        """Remove records for good (rolling back an interrupted step; forgetting keeps them)."""
        ...

    def close(self) -> None: ...


def to_flat(record: MemoryRecord, sequence: int | None) -> dict[str, str | int | float | bool]:
    """The record's fields as flat metadata (what chroma can store).

    `sequence` (the insertion counter) is set once, on insert; updates leave it out, and
    chroma keeps metadata keys an update does not mention.
    """
    flat: dict[str, str | int | float | bool] = {
        "owner": record.owner,
        "kind": record.kind.value,
        "created_at": record.created_at.isoformat(),
        "last_accessed_at": record.last_accessed_at.isoformat(),
        "importance": float(record.importance),
        "evidence": json.dumps(list(record.evidence)),
        "status": record.status.value,
        "meta": json.dumps(record.metadata),
        "prov": record.provenance.model_dump_json(exclude_defaults=True),
    }
    if sequence is not None:
        flat["seq"] = sequence
    return flat


def check_fields(fields: Sequence[str]) -> None:
    unknown = set(fields) - set(MUTABLE_FIELDS)
    if unknown:
        raise ValueError(f"fields {sorted(unknown)} cannot change after a memory is stored")


def changed_fields(
    record: MemoryRecord, fields: Sequence[str]
) -> dict[str, str | int | float | bool]:
    """The flat form of just `fields` of a record (for a partial update)."""
    check_fields(fields)
    flat = to_flat(record, None)
    return {FLAT_KEYS[name]: flat[FLAT_KEYS[name]] for name in fields}


def from_flat(memory_id: str, text: str, flat: dict[str, Any]) -> MemoryRecord:
    return MemoryRecord(
        id=memory_id,
        owner=str(flat["owner"]),
        kind=MemoryKind(flat["kind"]),
        text=text,
        created_at=datetime.fromisoformat(str(flat["created_at"])),
        last_accessed_at=datetime.fromisoformat(str(flat["last_accessed_at"])),
        importance=float(flat["importance"]),
        evidence=tuple(json.loads(str(flat["evidence"]))),
        status=MemoryStatus(flat["status"]),
        metadata=json.loads(str(flat["meta"])),
        provenance=json.loads(str(flat.get("prov") or "{}")),
    )
