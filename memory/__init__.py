"""Memory layer: records, the scored memory stream, stores, lexical retrieval, provenance.

Importing `memory` does not import torch: embedders and raters are injected.
"""

from memory.clock import Clock, ManualClock, SystemClock
from memory.errors import (
    EmbeddingShapeError,
    InvalidMemoryError,
    MemoryNotFoundError,
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
