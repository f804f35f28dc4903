"""The stream as a LangChain retriever, so it drops into any chain."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from mindstream.memory.records import MemoryKind, RelevanceMode, ScoredMemory
from mindstream.memory.stream import MemoryStream


class MemoryStreamRetriever(BaseRetriever):
    """Retrieves one owner's memories; each Document's metadata carries the score parts."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory_stream: MemoryStream
    owner: str
    k: int = 10
    kinds: list[MemoryKind] | None = None
    mode: RelevanceMode = "embedding"

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        """Per call: `k`, `kinds`, `status` ("active", or "any" to include superseded and
        forgotten), `since` / `until` (datetimes) and `mode` override the retriever's own; any
        other keyword is refused, naming it."""
        unknown = sorted(set(kwargs) - CALL_OPTIONS)
        if unknown:
            raise TypeError(f"MemoryStreamRetriever: unknown option {unknown[0]!r}")
        status = kwargs.get("status", "active")
        if status not in ("active", "any"):
            raise ValueError(f"status: expected 'active' or 'any', got {status!r}")
        found = self.memory_stream.retrieve(
            query,
            int(kwargs.get("k", self.k)),
            owner=self.owner,
            kinds=kwargs.get("kinds", self.kinds),
            mode=kwargs.get("mode", self.mode),
            since=kwargs.get("since"),
            until=kwargs.get("until"),
            include_inactive=status == "any",
        )
        return [_document(m) for m in found]


CALL_OPTIONS = frozenset({"k", "kinds", "status", "since", "until", "mode"})


def _document(m: ScoredMemory) -> Document:
    return Document(
        page_content=m.record.text,
        id=m.record.id,
        metadata={
            "id": m.record.id,
            "kind": m.record.kind.value,
            "status": m.record.status.value,
            "created_at": m.record.created_at.isoformat(),
            "importance_rating": m.record.importance,
            "score": m.score,
            "recency": m.recency,
            "importance": m.importance,
            "relevance": m.relevance,
        },
    )
