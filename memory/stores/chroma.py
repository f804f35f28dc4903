"""chromadb as the system of record: on disk by default, or a chroma server over HTTP.

Embeddings are always passed in: chroma's default embedder would try to download a model, so
the collection is given an embedding function that refuses to run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import StorePathError
from memory.records import MemoryRecord, MemoryStatus
from memory.stores.base import from_flat, to_flat

COLLECTION = "memories"


def _chroma() -> Any:
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    import chromadb

    return chromadb


def _refusing_embedder() -> Any:
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

    class RefuseToEmbed(EmbeddingFunction[Documents]):
        """Chroma must never embed: mindstream always passes its own embeddings."""

        def __init__(self) -> None:
            pass

        def __call__(self, input: Documents) -> Embeddings:
            raise RuntimeError("mindstream passes embeddings explicitly; chroma must not embed")

        @staticmethod
        def name() -> str:
            return "mindstream-refuse"

        def get_config(self) -> dict[str, Any]:
            return {}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> RefuseToEmbed:
            return RefuseToEmbed()

    return RefuseToEmbed()


class ChromaStore:
    """A chroma collection holding text, flat metadata and embeddings of every memory."""

    def __init__(self, client: Any, collection: str = COLLECTION) -> None:
        self._client = client
        self._collection = client.get_or_create_collection(
            collection,
            embedding_function=_refusing_embedder(),
            configuration={"hnsw": {"space": "cosine"}},
        )
        self._next_seq = self._collection.count()

    @classmethod
    def persistent(cls, path: str | Path, collection: str = COLLECTION) -> ChromaStore:
        folder = Path(path)
        if folder.exists() and not folder.is_dir():
            raise StorePathError(f"store path {folder} is a file, not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StorePathError(f"store path {folder} cannot be created: {error}") from None
        chromadb = _chroma()
        settings = chromadb.Settings(anonymized_telemetry=False, allow_reset=False)
        return cls(chromadb.PersistentClient(path=str(folder), settings=settings), collection)

    @classmethod
    def http(
        cls, host: str = "127.0.0.1", port: int = 8000, collection: str = COLLECTION
    ) -> ChromaStore:
        chromadb = _chroma()
        settings = chromadb.Settings(anonymized_telemetry=False)
        return cls(chromadb.HttpClient(host=host, port=port, settings=settings), collection)

    def put(self, records: Sequence[MemoryRecord], embeddings: np.ndarray) -> None:
        if not records:
            return
        metadatas = [to_flat(r, self._next_seq + i) for i, r in enumerate(records)]
        self._collection.add(
            ids=[r.id for r in records],
            embeddings=np.asarray(embeddings, dtype=np.float32),
            documents=[r.text for r in records],
            metadatas=metadatas,
        )
        self._next_seq += len(records)

    def update(self, records: Sequence[MemoryRecord]) -> None:
        if not records:
            return
        # Without "seq": chroma merges metadata, so the insertion order is kept.
        self._collection.update(
            ids=[r.id for r in records], metadatas=[to_flat(r, None) for r in records]
        )

    def load(self, batch_size: int = 5000) -> Iterator[tuple[list[MemoryRecord], np.ndarray]]:
        total = self._collection.count()
        rows: list[tuple[int, MemoryRecord, np.ndarray]] = []
        for offset in range(0, total, batch_size):
            page = self._collection.get(
                include=["embeddings", "metadatas", "documents"], limit=batch_size, offset=offset
            )
            for memory_id, text, meta, vector in zip(
                page["ids"], page["documents"], page["metadatas"], page["embeddings"], strict=True
            ):
                rows.append((int(meta["seq"]), from_flat(memory_id, text, meta), vector))
        rows.sort(key=lambda row: row[0])
        for start in range(0, len(rows), batch_size):
            chunk = rows[start : start + batch_size]
            yield [r for _, r, _ in chunk], np.asarray([v for _, _, v in chunk], dtype=np.float32)

    def nearest(self, owner: str, vector: np.ndarray, n: int) -> list[str]:
        where = {"$and": [{"owner": owner}, {"status": MemoryStatus.ACTIVE.value}]}
        result = self._collection.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)],
            n_results=n,
            where=where,
            include=[],
        )
        return list(result["ids"][0])

    def delete(self, ids: Sequence[str]) -> None:
        """Meant for the newest records (a rolled-back step): insertion numbers restart from
        the count on reopen, so deleting older ones could give two records the same number."""
        if ids:
            self._collection.delete(ids=list(ids))

    def count(self) -> int:
        return int(self._collection.count())

    def close(self) -> None:
        """chroma clients hold no handle that needs closing here."""
