"""Plug-in for `shared/bench/retrieval_anchors.py` (`--project memory.anchors`).

It runs the stream's own hot path, `OwnerIndex`, on the harness's arrays: the same
vectorised scoring every `MemoryStream.retrieve` uses. `MINDSTREAM_BENCH_PRECISION` sets the
index's precision (auto, float32 or int8).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from mindstream.memory.index import OwnerIndex
from mindstream.memory.records import (
    KIND_CODES,
    STATUS_CODES,
    MemoryKind,
    MemoryStatus,
    RetrievalWeights,
)


def project_build(
    embeddings: np.ndarray,
    importance: np.ndarray,
    last_access_hours: np.ndarray,
    texts: Sequence[str],
    params: dict[str, Any],
) -> OwnerIndex:
    precision = os.environ.get("MINDSTREAM_BENCH_PRECISION", "auto")
    index = OwnerIndex(embeddings.shape[1], float(params["decay"]), precision)
    count = len(embeddings)
    index.append(
        [str(i) for i in range(count)],
        embeddings,
        importance,
        last_access_hours,
        last_access_hours,
        np.full(count, KIND_CODES[MemoryKind.OBSERVATION], dtype=np.int8),
        np.full(count, STATUS_CODES[MemoryStatus.ACTIVE], dtype=np.int8),
    )
    return index


def project_retrieve(
    store: OwnerIndex,
    query_text: str,
    query_embedding: np.ndarray,
    now_hours: float,
    k: int,
    params: dict[str, Any],
) -> list[int]:
    weights = _weights(float(params["w_rec"]), float(params["w_imp"]), float(params["w_rel"]))
    top = store.search(query_embedding, weights, k)
    store.touch(top.rows, now_hours)
    return [int(row) for row in top.rows]


@cache
def _weights(recency: float, importance: float, relevance: float) -> RetrievalWeights:
    """Built once per setting: the harness times each query, not the weights' validation."""
    return RetrievalWeights(recency=recency, importance=importance, relevance=relevance)
