"""One owner's part of a stream: its vector index, its BM25 index, and which rows a query may
see (status, kind, time, and the memories kept out of recall)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from mindstream.memory.clock import to_hours
from mindstream.memory.errors import InvalidMemoryError
from mindstream.memory.index import OwnerIndex
from mindstream.memory.lexical import LexicalIndex
from mindstream.memory.records import KIND_CODES, STATUS_CODES, MemoryKind, MemoryStatus

_ACTIVE = STATUS_CODES[MemoryStatus.ACTIVE]
_FORGOTTEN = STATUS_CODES[MemoryStatus.FORGOTTEN]


@dataclass
class OwnerState:
    index: OwnerIndex
    lexical: LexicalIndex = field(default_factory=LexicalIndex)
    inactive: int = 0
    hidden: list[int] = field(default_factory=list)  # rows kept out of recall

    def candidates(
        self,
        kinds: Iterable[MemoryKind | str] | None,
        since: datetime | None,
        until: datetime | None,
        include_inactive: bool,
        include_hidden: bool = True,
        include_superseded: bool = False,
    ) -> np.ndarray | None:
        """The rows a query may see; None when that is every row."""
        index, n = self.index, self.index.size
        masks = []
        if not include_inactive and self.inactive:
            if include_superseded:
                masks.append(index.status[:n] != _FORGOTTEN)
            else:
                masks.append(index.status[:n] == _ACTIVE)
        if not include_hidden and self.hidden:
            shown = np.ones(n, dtype=bool)
            shown[self.hidden] = False
            masks.append(shown)
        if kinds is not None:
            try:
                codes = [KIND_CODES[MemoryKind(k)] for k in kinds]
            except ValueError as error:
                raise InvalidMemoryError(f"kinds: {error}") from None
            masks.append(np.isin(index.kind[:n], codes))
        if since is not None:
            masks.append(index.created[:n] >= to_hours(since))
        if until is not None:
            masks.append(index.created[:n] <= to_hours(until))
        if not masks:
            return None
        return np.flatnonzero(np.logical_and.reduce(masks))

    def before(self, row: int, created_hours: float, kinds: Iterable[MemoryKind]) -> np.ndarray:
        """Active, recalled rows of `kinds` that came before `row` (created earlier, or at the
        same moment and added before it)."""
        rows = self.candidates(kinds, None, None, False, False)
        rows = np.arange(self.index.size) if rows is None else rows
        created = self.index.created[rows]
        return rows[(created < created_hours) | ((created == created_hours) & (rows < row))]
