"""Memory layer: records, the scored memory stream, stores, lexical retrieval, provenance.

Importing `memory` does not import torch: embedders and raters are injected."""

from typing import TYPE_CHECKING

from lm.lazy import attach_declared

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

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
