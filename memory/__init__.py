"""Memory layer: records, the scored memory stream, stores, lexical retrieval, provenance.

Importing `memory` does not import torch: embedders and raters are injected."""

from typing import TYPE_CHECKING

from mindstream.lm.lazy import attach_declared

if TYPE_CHECKING:
    from mindstream.memory.clock import Clock, ManualClock, SystemClock
    from mindstream.memory.errors import (
        EmbeddingShapeError,
        InvalidMemoryError,
        MemoryNotFoundError,
        MemoryStateError,
        MemoryStreamError,
        StoreBusyError,
        StorePathError,
    )
    from mindstream.memory.importance import CachedRater, scorer_rater
    from mindstream.memory.records import (
        MemoryKind,
        MemoryRecord,
        MemoryStatus,
        NewMemory,
        Provenance,
        RetrievalWeights,
        ScoredMemory,
        StreamConfig,
        new_memory,
    )
    from mindstream.memory.stores import ChromaStore, InMemoryStore, MemoryStore
    from mindstream.memory.stream import MemoryStream, Written

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
