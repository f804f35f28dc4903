"""Store updates gathered into one write.

A change-detection round changes a few records (the one it retires, the new memory's closest
call, every judged memory's detection state), each through its own `replace_many`. On chromadb
each update is a committed transaction of about 10 ms, taken under the stream's lock, so a
round held the lock for about 35 ms and a `remember` arriving meanwhile waited for it. Inside
`gathered()` the records change in memory at once and reach the store as one update on leaving.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from mindstream.memory.records import MemoryRecord
from mindstream.memory.stores.base import MemoryStore

Current = Callable[[str], MemoryRecord | None]


class GatheredWrites:
    """`update` writes through, except in the thread inside `gathered()`, whose updates wait
    for its end and go as one (each record as it is then, every field any update named)."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self._local = threading.local()

    def update(self, records: Sequence[MemoryRecord], fields: Sequence[str]) -> None:
        waiting: dict[str, set[str]] | None = getattr(self._local, "waiting", None)
        if waiting is None:
            self._store.update(records, fields=fields)
            return
        for record in records:
            waiting.setdefault(record.id, set()).update(fields)

    @contextmanager
    def gathered(self, current: Current) -> Iterator[None]:
        """The updates made inside, as one store write on leaving (also when it raises: the
        records already changed in memory, and the store must not fall behind them)."""
        if getattr(self._local, "waiting", None) is not None:
            yield  # already gathering: the outer one writes
            return
        self._local.waiting = {}
        try:
            yield
        finally:
            waiting, self._local.waiting = self._local.waiting, None
            records = [r for memory_id in waiting if (r := current(memory_id)) is not None]
            if records:
                fields = sorted(set().union(*waiting.values()))
                self._store.update(records, fields=fields)
