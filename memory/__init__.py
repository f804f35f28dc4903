"""Memory layer: records, the scored memory stream, stores, lexical retrieval, provenance.

Importing `memory` does not import torch: embedders and raters are injected."""

from typing import TYPE_CHECKING

from lm.lazy import attach

if TYPE_CHECKING:
    from memory.clock import Clock, ManualClock, SystemClock
    from memory.errors import (
        EmbeddingShapeError,
        InvalidMemoryError,
        MemoryNotFoundError,
        MemoryStateError,
        MemoryStreamError,
        StoreBusyError,
        StorePathError,
    )
    from memory.importance import CachedRater, scorer_rater
    from memory.records import (
        MemoryKind,
        MemoryRecord,
        MemoryStatus,
        NewMemory,
        RetrievalWeights,
        ScoredMemory,
        StreamConfig,
        new_memory,
    )
    from memory.stores import ChromaStore, InMemoryStore, MemoryStore
    from memory.stream import MemoryStream

__getattr__, __dir__ = attach(
    __name__,
    {
        "memory.clock": (
            "Clock",
            "ManualClock",
            "SystemClock",
        ),
        "memory.errors": (
            "EmbeddingShapeError",
            "InvalidMemoryError",
            "MemoryNotFoundError",
            "MemoryStateError",
            "MemoryStreamError",
            "StoreBusyError",
            "StorePathError",
        ),
        "memory.importance": (
            "CachedRater",
            "scorer_rater",
        ),
        "memory.records": (
            "MemoryKind",
            "MemoryRecord",
            "MemoryStatus",
            "NewMemory",
            "RetrievalWeights",
            "ScoredMemory",
            "StreamConfig",
            "new_memory",
        ),
        "memory.stores": (
            "ChromaStore",
            "InMemoryStore",
            "MemoryStore",
        ),
        "memory.stream": ("MemoryStream",),
    },
)

__all__ = [
    "CachedRater",
    "ChromaStore",
    "Clock",
    "EmbeddingShapeError",
    "InMemoryStore",
    "InvalidMemoryError",
    "ManualClock",
    "MemoryKind",
    "MemoryNotFoundError",
    "MemoryRecord",
    "MemoryStateError",
    "MemoryStatus",
    "MemoryStore",
    "MemoryStream",
    "MemoryStreamError",
    "NewMemory",
    "RetrievalWeights",
    "ScoredMemory",
    "StoreBusyError",
    "StorePathError",
    "StreamConfig",
    "SystemClock",
    "new_memory",
    "scorer_rater",
]
