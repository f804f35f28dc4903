"""What a write turns into before it is stored: unit-length embeddings (checked against the
stream's dimension), importance (given, the kind's default, or rated in one batch), and the
records themselves with their provenance."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import uuid4

import numpy as np

from mindstream.memory.embedder import ArrayEmbedder, Embedder
from mindstream.memory.errors import EmbeddingShapeError, InvalidMemoryError
from mindstream.memory.importance import RateTexts
from mindstream.memory.records import MemoryRecord, NewMemory, Provenance, StreamConfig


class Intake:
    """Embeds, rates and builds records for one stream's configuration."""

    def __init__(self, embedder: Embedder, rater: RateTexts | None, config: StreamConfig) -> None:
        self.embedder = embedder
        self.rater = rater
        self.config = config

    def embed(self, texts: list[str]) -> np.ndarray:
        if isinstance(self.embedder, ArrayEmbedder):
            vectors = np.asarray(self.embedder.embed_array(texts), dtype=np.float32)
        else:
            vectors = np.asarray(self.embedder.embed_documents(texts), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def vectors(self, items: Sequence[NewMemory], given: np.ndarray | None) -> np.ndarray:
        vectors = self.embed([i.text for i in items]) if given is None else given
        vectors = np.asarray(vectors, dtype=np.float32)
        expected = (len(items), self.config.dimension)
        if vectors.shape != expected:
            raise EmbeddingShapeError(
                f"embeddings have shape {vectors.shape}, expected {expected} "
                f"(the stream's dimension is {self.config.dimension})"
            )
        return vectors

    def importance(self, items: Sequence[NewMemory]) -> list[float]:
        values = [
            i.importance if i.importance is not None else self.config.default_importance.get(i.kind)
            for i in items
        ]
        missing = [n for n, v in enumerate(values) if v is None]
        if missing and self.rater is None:
            raise InvalidMemoryError(
                f"importance: missing for {items[missing[0]].text[:60]!r} "
                "and the stream has no rater"
            )
        if missing and self.rater is not None:
            for n, rating in zip(
                missing, self.rater([items[n].text for n in missing]), strict=True
            ):
                values[n] = min(max(float(rating), 1.0), 10.0)
        return [float(v) for v in values if v is not None]


def records_of(
    items: Sequence[NewMemory], importance: Sequence[float], now: datetime
) -> list[MemoryRecord]:
    return [
        MemoryRecord(
            id=uuid4().hex,
            owner=item.owner,
            kind=item.kind,
            text=item.text,
            created_at=item.created_at or now,
            last_accessed_at=item.created_at or now,
            importance=value,
            evidence=item.evidence,
            metadata=item.metadata,
            provenance=Provenance(recall=item.recall, subject=item.subject),
        )
        for item, value in zip(items, importance, strict=True)
    ]
