"""What the stream's helpers (corrections, change detection) need of it: its records by id and
owner, and rewriting them. The stream is one; the helpers name these protocols instead of the
stream, so they do not import it back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from mindstream.memory.clock import Clock
from mindstream.memory.records import MemoryRecord, NewMemory


class RecordBook(Protocol):
    """Records by id and by owner, rewritten in batches."""

    clock: Clock

    def get(self, memory_id: str) -> MemoryRecord: ...

    def find(self, memory_id: str) -> MemoryRecord | None: ...

    def records(self, owner: str | None = None) -> list[MemoryRecord]: ...

    def replace_many(
        self, changes: Sequence[tuple[MemoryRecord, dict[str, Any]]]
    ) -> list[MemoryRecord]: ...


class EditableBook(RecordBook, Protocol):
    """... to which corrections add memories and whose citations they follow."""

    def replace(self, record: MemoryRecord, **changes: Any) -> MemoryRecord: ...

    def add_many(
        self, items: Sequence[NewMemory], *, detect: bool = True
    ) -> list[MemoryRecord]: ...

    def dependents_of(self, memory_id: str) -> list[MemoryRecord]: ...
