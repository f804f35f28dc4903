"""The memory stream as a LangGraph store (`BaseStore`), so a LangGraph agent keeps its
long-term memory here: namespaces are owners, each item one memory.

An item's value is kept whole with the memory (its text is the value's "text", or the value as
JSON); putting a key again supersedes the previous version, which stays as history; putting
None forgets it. `search` with a query ranks by the stream's score (recency, importance,
relevance); without one, newest first. Filters match the value's fields (`$eq`, `$ne`, `$gt`,
`$gte`, `$lt`, `$lte`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from mindstream.memory.records import MemoryKind, MemoryRecord, MemoryStatus, new_memory
from mindstream.memory.stream import MemoryStream

KEY, VALUE = "store_key", "store_value"
_SEPARATOR = "\x1f"


class StreamStore(BaseStore):
    """`BaseStore` on a `MemoryStream` (importance given per item: `importance`)."""

    def __init__(self, stream: MemoryStream, importance: float = 5.0) -> None:
        self.stream = stream
        self.importance = importance

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        with self.stream.lock:
            return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return self.batch(ops)

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            record = self._current(op.namespace, op.key)
            return None if record is None else _item(record, Item)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    def _current(self, namespace: tuple[str, ...], key: str) -> MemoryRecord | None:
        owner = _owner(namespace)
        found = [
            r
            for r in self.stream.records(owner)
            if r.metadata.get(KEY) == key and r.status is MemoryStatus.ACTIVE
        ]
        return max(found, key=lambda r: r.created_at, default=None)

    def _put(self, op: PutOp) -> None:
        current = self._current(op.namespace, op.key)
        if op.value is None:
            if current is not None:
                self.stream.forget(current.id)
            return
        text = op.value.get("text") if isinstance(op.value.get("text"), str) else None
        item = new_memory(
            text=text or json.dumps(op.value, sort_keys=True, default=str),
            owner=_owner(op.namespace),
            kind=MemoryKind.FACT,
            importance=self.importance,
            metadata={KEY: op.key, VALUE: json.dumps(op.value, default=str)},
        )
        if current is None:
            self.stream.add_many([item], detect=False)
        else:
            self.stream.supersede(current.id, item)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        owners = [
            o
            for o in self.stream.owners()
            if _namespace(o)[: len(op.namespace_prefix)] == op.namespace_prefix
        ]
        scored: list[tuple[float | None, MemoryRecord]] = []
        for owner in owners:
            if op.query:
                found = self.stream.retrieve(op.query, 10_000, owner=owner, touch=False)
                scored += [(m.score, m.record) for m in found if KEY in m.record.metadata]
            else:
                active = [r for r in self.stream.records(owner) if r.status is MemoryStatus.ACTIVE]
                scored += [(None, r) for r in active if KEY in r.metadata]
        scored = [(s, r) for s, r in scored if _matches(_value(r), op.filter or {})]
        scored.sort(
            key=lambda sr: (sr[0] if sr[0] is not None else 0.0, sr[1].created_at), reverse=True
        )
        chosen = scored[op.offset : op.offset + op.limit]
        return [_item(r, SearchItem, score=s) for s, r in chosen]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = {
            _namespace(o)
            for o in self.stream.owners()
            if any(
                KEY in r.metadata and r.status is MemoryStatus.ACTIVE
                for r in self.stream.records(o)
            )
        }
        for condition in op.match_conditions or ():
            size = len(condition.path)
            if condition.match_type == "prefix":
                found = {n for n in found if _fits(n[:size], condition.path)}
            else:
                found = {n for n in found if len(n) >= size and _fits(n[-size:], condition.path)}
        if op.max_depth is not None:
            found = {n[: op.max_depth] for n in found}
        return sorted(found)[op.offset : op.offset + op.limit]


def _owner(namespace: tuple[str, ...]) -> str:
    return _SEPARATOR.join(("store", *namespace))


def _namespace(owner: str) -> tuple[str, ...]:
    parts = owner.split(_SEPARATOR)
    return tuple(parts[1:]) if parts[0] == "store" else ()


def _fits(labels: tuple[str, ...], path: tuple[str, ...]) -> bool:
    return all(p == "*" or p == label for label, p in zip(labels, path, strict=True))


def _value(record: MemoryRecord) -> dict[str, Any]:
    return dict(json.loads(str(record.metadata[VALUE])))


def _item(record: MemoryRecord, kind: type[Any], **extra: Any) -> Any:
    first = record.created_at
    return kind(
        value=_value(record),
        key=str(record.metadata[KEY]),
        namespace=_namespace(record.owner),
        created_at=first,
        updated_at=record.created_at,
        **extra,
    )


_COMPARE = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def _matches(value: dict[str, Any], conditions: dict[str, Any]) -> bool:
    for field, wanted in conditions.items():
        have = value.get(field)
        tests = wanted.items() if isinstance(wanted, dict) else [("$eq", wanted)]
        for operator, operand in tests:
            if operator not in _COMPARE:
                raise ValueError(f"filter {field}: unknown operator {operator!r}")
            if not _COMPARE[operator](have, operand):
                return False
    return True
