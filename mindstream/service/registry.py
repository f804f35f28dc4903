"""The user registry every replica reads: one row per user in a collection of the chroma
server that holds the memories (id: the name; document: the user's keys' hashes as JSON)."""

from __future__ import annotations

import json
from typing import Any

from memory.stores.chroma import http_client, refusing_embedder

COLLECTION = "mindstream_users"


class ChromaRegistry:
    def __init__(self, host: str, port: int, collection: str = COLLECTION) -> None:
        self._collection = http_client(host, port).get_or_create_collection(
            collection, embedding_function=refusing_embedder()
        )

    def load(self) -> dict[str, dict[str, Any]]:
        rows = self._collection.get(include=["documents"])
        return {i: json.loads(d) for i, d in zip(rows["ids"], rows["documents"], strict=True)}

    def save(self, name: str, entry: dict[str, Any]) -> None:
        self._collection.upsert(ids=[name], documents=[json.dumps(entry)], embeddings=[[1.0]])

    def delete(self, name: str) -> None:
        self._collection.delete(ids=[name])
