"""The citation graph: which memories a memory cites, and which cite it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable


class CitationGraph:
    """Evidence edges, both ways; walks are breadth-first and cycle-safe."""

    def __init__(self) -> None:
        self._cites: dict[str, tuple[str, ...]] = {}
        self._cited_by: dict[str, set[str]] = defaultdict(set)

    def add(self, memory_id: str, evidence: Iterable[str]) -> None:
        cited = tuple(evidence)
        self._cites[memory_id] = cited
        for source in cited:
            self._cited_by[source].add(memory_id)

    def remove(self, memory_ids: Iterable[str]) -> None:
        """Forget the nodes and every edge touching them."""
        for memory_id in memory_ids:
            for source in self._cites.pop(memory_id, ()):
                self._cited_by.get(source, set()).discard(memory_id)
            for citing in self._cited_by.pop(memory_id, set()):
                self._cites[citing] = tuple(
                    s for s in self._cites.get(citing, ()) if s != memory_id
                )

    def evidence_of(self, memory_id: str) -> list[str]:
        """Everything `memory_id` rests on, nearest first."""
        return self._walk(memory_id, lambda node: self._cites.get(node, ()))

    def dependents_of(self, memory_id: str) -> list[str]:
        """Everything that rests on `memory_id` (reflections, reflections on reflections)."""
        return self._walk(memory_id, lambda node: sorted(self._cited_by.get(node, ())))

    @staticmethod
    def _walk(start: str, step: object) -> list[str]:
        seen, order, frontier = {start}, [], [start]
        while frontier:
            nxt = []
            for node in frontier:
                for neighbour in step(node):  # type: ignore[operator]
                    if neighbour not in seen:
                        seen.add(neighbour)
                        order.append(neighbour)
                        nxt.append(neighbour)
            frontier = nxt
        return order
