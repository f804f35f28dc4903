"""The stream as a LangChain retriever, so it drops into any chain."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from mindstream.memory.records import MemoryKind, RelevanceMode
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
        found = self.memory_stream.retrieve(
            query, self.k, owner=self.owner, kinds=self.kinds, mode=self.mode
        )
        return [
            Document(
                page_content=m.record.text,
                id=m.record.id,
                metadata={
                    "id": m.record.id,
                    "kind": m.record.kind.value,
                    "created_at": m.record.created_at.isoformat(),
                    "importance_rating": m.record.importance,
                    "score": m.score,
                    "recency": m.recency,
                    "importance": m.importance,
                    "relevance": m.relevance,
                },
            )
            for m in found
        ]
