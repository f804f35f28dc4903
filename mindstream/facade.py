"""The memory API people switch from (mem0's `Memory`), on mindstream's assistant.

    from mindstream.facade import Memory

    memory = Memory.open("./memories")              # a chroma folder; Memory(assistant) too
    memory.add([{"role": "user", "content": "I moved to York"}], user_id="maya")
    memory.search("where do I live?", user_id="maya", limit=3)

Same method names and result shapes (`{"results": [...]}` with `id`, `memory`, `score`,
`metadata`, `created_at`, `user_id`); what differs: `add` stores what is said (change
detection decides what it replaces) instead of extracting facts with an LLM, `update` keeps
the old text as history (a supersede) and `history` reads that chain.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mindstream.memory import MemoryNotFoundError, MemoryRecord, MemoryStatus

if TYPE_CHECKING:
    from mindstream.agents.assistant import Assistant
    from mindstream.memory import ScoredMemory


class Memory:
    """mem0's `Memory` methods on one `Assistant` (many users, each `user_id` its own)."""

    def __init__(self, assistant: Assistant) -> None:
        self.assistant = assistant

    @classmethod
    def open(cls, path: str | Path, config: Path | None = None) -> Memory:
        """The assistant on a chroma folder, with the configuration in `config` (a YAML file)
        or the environment's."""
        from mindstream.compose import Parts

        return cls(Parts.load(config).assistant(Path(path)))

    def add(
        self,
        messages: str | list[dict[str, str]],
        user_id: str,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Remember text or a chat's messages (`metadata` is accepted and not stored)."""
        if isinstance(messages, str):
            stored = [self.assistant.remember(user_id, messages)]
        else:
            stored = self.assistant.remember_chat(user_id, messages)
        return {"results": [{**_item(r), "event": "ADD"} for r in stored]}

    def search(
        self,
        query: str,
        user_id: str,
        limit: int = 10,
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """What is true now first; `filters` by `kind` and `status` ("any": history too)."""
        filters = dict(filters or {})
        unknown = sorted(set(filters) - {"kind", "status"})
        if unknown:
            raise ValueError(f"filters: {unknown[0]!r} is not a filter (kind, status)")
        history = filters.get("status") == "any"
        found = self.assistant.search(
            user_id, query, limit * 2 if "kind" in filters else limit, history
        )
        if "kind" in filters:
            found = [m for m in found if m.record.kind.value == filters["kind"]][:limit]
        return {"results": [_scored(m) for m in found]}

    def get(self, memory_id: str) -> dict[str, Any]:
        return _item(self._record(memory_id))

    def get_all(self, user_id: str, limit: int = 100) -> dict[str, Any]:
        records = self.assistant.memories(user_id, status="active")
        records.sort(key=lambda r: r.created_at, reverse=True)
        return {"results": [_item(r) for r in records[:limit]]}

    def update(self, memory_id: str, data: str) -> dict[str, Any]:
        """`data` replaces the memory's text; the old text stays as history."""
        record = self._record(memory_id)
        newer = self.assistant.supersede(record.owner, memory_id, data)
        return {"message": "Memory updated successfully!", "id": newer.id}

    def delete(self, memory_id: str) -> dict[str, Any]:
        record = self._record(memory_id)
        self.assistant.forget(record.owner, memory_id)
        return {"message": "Memory deleted successfully!"}

    def delete_all(self, user_id: str) -> dict[str, Any]:
        removed = self.assistant.delete_user(user_id)
        return {"message": f"Memories deleted successfully! ({removed})"}

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """Every version of the memory, oldest first: ADD, then UPDATE per replacement,
        DELETE if it was forgotten."""
        record = self._record(memory_id)
        chain = _chain(self.assistant, record)
        events = []
        for n, version in enumerate(chain):
            event = "ADD" if n == 0 else "UPDATE"
            events.append(
                {**_item(version), "event": event, "previous": chain[n - 1].text if n else None}
            )
        if chain[-1].status is MemoryStatus.FORGOTTEN:
            events.append({**_item(chain[-1]), "event": "DELETE", "previous": chain[-1].text})
        return events

    def reset(self) -> None:
        """Remove every user's memories for good."""
        for owner in self.assistant.stream.owners():
            self.assistant.delete_user(owner)

    def _record(self, memory_id: str) -> MemoryRecord:
        record = self.assistant.stream.find(memory_id)
        if record is None:
            raise MemoryNotFoundError(f"no memory with id {memory_id!r}")
        return record


def _chain(assistant: Assistant, record: MemoryRecord) -> list[MemoryRecord]:
    """The memory's versions, oldest first: what it superseded, itself, what superseded it."""
    stream = assistant.stream
    older = list(reversed(stream.replaced_by(record, limit=100)))
    newer: list[MemoryRecord] = []
    current = record
    while current.replaced_by and (following := stream.find(current.replaced_by)) is not None:
        if following.owner != record.owner or following in newer:
            break
        newer.append(following)
        current = following
    return [*older, record, *newer]


def _item(record: MemoryRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "memory": record.text,
        "user_id": record.owner,
        "metadata": {**record.metadata, "kind": record.kind.value, "status": record.status.value},
        "created_at": record.created_at.isoformat(),
    }


def _scored(found: ScoredMemory) -> dict[str, Any]:
    return {**_item(found.record), "score": round(found.score, 4)}
