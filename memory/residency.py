"""Which owners' memories a stream holds in this process, when it holds only some.

A service replica serves a share of the users, and a store can hold far more memories than
one process should keep in RAM. A stream made with a `Residency` loads an owner's memories
from the store the first time that owner is used, and past its budget unloads the least
recently used owners (their memories stay in the store, and come back on their next use).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable


class Residency:
    """The owners loaded, least recently used first, and the budget in memories (None: keep
    every owner once loaded)."""

    def __init__(self, budget: int | None = None) -> None:
        if budget is not None and budget < 1:
            raise ValueError(f"resident memories: {budget} (must be at least 1, or none)")
        self.budget = budget
        self._loaded: OrderedDict[str, None] = OrderedDict()
        self.loads = 0
        self.unloads = 0

    def __contains__(self, owner: object) -> bool:
        return owner in self._loaded

    def used(self, owner: str) -> bool:
        """Mark `owner` as just used; whether it was already loaded."""
        if owner in self._loaded:
            self._loaded.move_to_end(owner)
            return True
        return False

    def loaded(self, owner: str) -> None:
        self._loaded[owner] = None
        self.loads += 1

    def unloaded(self, owner: str) -> None:
        self._loaded.pop(owner, None)
        self.unloads += 1

    def to_unload(
        self, total: int, size: Callable[[str], int], keep: Callable[[str], bool]
    ) -> list[str]:
        """Owners to unload, least recently used first, until `total` memories fit the
        budget; an owner `keep` says to keep (just used, detection under way) stays."""
        if self.budget is None or total <= self.budget:
            return []
        chosen = []
        for owner in self._loaded:
            if total <= self.budget:
                break
            if keep(owner):
                continue
            chosen.append(owner)
            total -= size(owner)
        return chosen

    def owners(self) -> list[str]:
        return list(self._loaded)
