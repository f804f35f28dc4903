"""A store in a Python dict: fast, empty on every start. For tests and throwaway streams."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from mindstream.memory.errors import MemoryNotFoundError
from mindstream.memory.records import MemoryRecord, MemoryStatus
from mindstream.memory.stores.base import MUTABLE_FIELDS, check_fields


class InMemoryStore:
    """Keeps records and embeddings in insertion order; `nearest` is exact."""

    def __init__(self) -> None:
        self._records: dict[str, MemoryRecord] = {}
        self._vectors: dict[str, np.ndarray] = {}

    def put(self, records: Sequence[MemoryRecord], embeddings: np.ndarray) -> None:
        for record, vector in zip(records, embeddings, strict=True):
            self._records[record.id] = record
            self._vectors[record.id] = np.array(vector, dtype=np.float32)

    def update(
        self, records: Sequence[MemoryRecord], fields: Sequence[str] = MUTABLE_FIELDS
    ) -> None:
        missing = [r.id for r in records if r.id not in self._records]
        if missing:
            raise MemoryNotFoundError(f"cannot update unknown memories {missing[:3]}")
        check_fields(fields)
        for record in records:
            change = {name: getattr(record, name) for name in fields}
            self._records[record.id] = self._records[record.id].model_copy(update=change)

    def load(
        self, batch_size: int = 5000, owner: str | None = None
    ) -> Iterator[tuple[list[MemoryRecord], np.ndarray]]:
        ids = [i for i, r in self._records.items() if owner is None or r.owner == owner]
        for start in range(0, len(ids), batch_size):
            chunk = ids[start : start + batch_size]
            yield [self._records[i] for i in chunk], np.stack([self._vectors[i] for i in chunk])

    def taken(self, ids: Sequence[str]) -> set[str]:
        return {i for i in ids if i in self._records}

    def nearest(self, owner: str, vector: np.ndarray, n: int) -> list[str]:
        ids = [
            i
            for i, r in self._records.items()
            if r.owner == owner and r.status is MemoryStatus.ACTIVE
        ]
        if not ids:
            return []
        sims = np.stack([self._vectors[i] for i in ids]) @ vector
        return [ids[j] for j in np.argsort(-sims)[:n]]

    def delete(self, ids: Sequence[str]) -> None:
        for memory_id in ids:
            self._records.pop(memory_id, None)
            self._vectors.pop(memory_id, None)

    def close(self) -> None:
        """Nothing to release."""
