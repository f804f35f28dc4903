"""A per-owner, contiguous, vectorised index of memories: the retrieval hot path.

Embeddings live in one growable matrix (float32, or float16 for half the memory traffic),
beside arrays of importance, last access, creation time, kind and status. Appends are
amortised O(1) (capacity doubles); scoring is a handful of numpy passes, no Python loop over
memories.

Recency is kept as g = decay^-(last_access - ref): min-max normalisation of decay^(now - last)
cancels the factor decay^(now - ref), so a query needs no exponential over all memories.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memory.errors import EmbeddingShapeError

Column = Sequence[float] | Sequence[int] | np.ndarray
_GROWTH = 2
_MIN_CAPACITY = 1024
_REBASE_LIMIT = 1e250


@dataclass(frozen=True)
class Scored:
    rows: np.ndarray
    score: np.ndarray
    recency: np.ndarray
    importance: np.ndarray
    relevance: np.ndarray


def minmax(values: np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; a constant part becomes 0.5 (as the original code does)."""
    if values.size == 0:
        return values
    low, high = values.min(), values.max()
    if high - low <= 1e-12 * max(1.0, abs(float(high))):
        return np.full(values.shape, 0.5, dtype=np.float32)
    return ((values - low) / (high - low)).astype(np.float32, copy=False)


class OwnerIndex:
    """Arrays for one owner's memories; row i is the i-th memory added."""

    def __init__(self, dimension: int, decay: float, precision: str = "float32") -> None:
        self.dimension = dimension
        self.log_decay = math.log(decay)
        self.dtype = np.dtype(precision)
        self.size = 0
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.ref_hours: float | None = None
        self._alloc(_MIN_CAPACITY)
        self._torch_view: Any = None

    _ARRAYS = ("embeddings", "importance", "last_access", "growth", "created", "kind", "status")

    def _alloc(self, capacity: int) -> None:
        """(Re)allocate every array with room for `capacity` rows, keeping the filled ones."""
        previous = {name: getattr(self, name) for name in self._ARRAYS if hasattr(self, name)}
        self.embeddings: np.ndarray = np.zeros((capacity, self.dimension), dtype=self.dtype)
        self.importance: np.ndarray = np.zeros(capacity, dtype=np.float32)
        self.last_access: np.ndarray = np.zeros(capacity, dtype=np.float64)
        self.growth: np.ndarray = np.zeros(capacity, dtype=np.float64)
        self.created: np.ndarray = np.zeros(capacity, dtype=np.float64)
        self.kind: np.ndarray = np.zeros(capacity, dtype=np.int8)
        self.status: np.ndarray = np.zeros(capacity, dtype=np.int8)
        for name, array in previous.items():
            getattr(self, name)[: self.size] = array[: self.size]
        self.capacity = capacity
        self._torch_view = None

    def append(
        self,
        ids: Sequence[str],
        embeddings: np.ndarray,
        importance: Column,
        last_access_hours: Column,
        created_hours: Column,
        kinds: Column,
        statuses: Column,
    ) -> None:
        count = len(ids)
        if embeddings.shape != (count, self.dimension):
            raise EmbeddingShapeError(
                f"embeddings have shape {embeddings.shape}, expected ({count}, {self.dimension})"
            )
        if self.size + count > self.capacity:
            self._alloc(max(self.capacity * _GROWTH, self.size + count))
        start, end = self.size, self.size + count
        last = np.asarray(last_access_hours, dtype=np.float64)
        if self.ref_hours is None:
            self.ref_hours = float(last.max()) if count else 0.0
        self.embeddings[start:end] = embeddings
        self.importance[start:end] = importance
        self.last_access[start:end] = last
        self.growth[start:end] = self._growth(last)
        self.created[start:end] = created_hours
        self.kind[start:end] = kinds
        self.status[start:end] = statuses
        self.row_of.update((memory_id, start + i) for i, memory_id in enumerate(ids))
        self.ids.extend(ids)
        self.size = end

    def _growth(self, last_hours: np.ndarray) -> np.ndarray:
        assert self.ref_hours is not None
        return np.exp(-self.log_decay * (last_hours - self.ref_hours))

    def touch(self, rows: np.ndarray, now_hours: float) -> None:
        """Set last access of `rows` to now (what every retrieval does to its results)."""
        self.last_access[rows] = now_hours
        self.growth[rows] = self._growth(np.full(len(rows), now_hours))
        if self.growth[rows].max(initial=0.0) > _REBASE_LIMIT:
            self.ref_hours = now_hours
            self.growth[: self.size] = self._growth(self.last_access[: self.size])

    def relevance(self, query: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        matrix = self.embeddings[: self.size] if rows is None else self.embeddings[rows]
        if self.dtype == np.float16 and rows is None:
            return self._relevance_half(query)
        return np.asarray(matrix @ query.astype(self.dtype), dtype=np.float32)

    def _relevance_half(self, query: np.ndarray) -> np.ndarray:
        # numpy has no fast float16 matrix-vector product; torch's runs at memory bandwidth.
        import torch

        if self._torch_view is None:
            self._torch_view = torch.from_numpy(self.embeddings)
        matrix = self._torch_view[: self.size]
        vector = torch.from_numpy(query.astype(np.float16))
        return torch.mv(matrix, vector).float().numpy()

    def score(
        self,
        relevance: np.ndarray,
        weights: tuple[float, float, float],
        k: int,
        rows: np.ndarray | None = None,
    ) -> Scored:
        """Top-k rows by w_rec·recency + w_imp·importance + w_rel·relevance, each min-max
        normalised over the candidates (`rows`, or every memory); `relevance` is aligned
        with the candidates."""
        growth = self.growth[: self.size] if rows is None else self.growth[rows]
        importance = self.importance[: self.size] if rows is None else self.importance[rows]
        w_rec, w_imp, w_rel = weights
        rec, imp, rel = minmax(growth), minmax(importance), minmax(relevance)
        total = w_rec * rec + w_imp * imp + w_rel * rel
        k = min(k, total.size)
        if k == 0:
            empty = np.zeros(0, dtype=np.float32)
            return Scored(np.zeros(0, dtype=np.int64), empty, empty, empty, empty)
        top = np.argpartition(-total, k - 1)[:k] if k < total.size else np.arange(total.size)
        top = top[np.argsort(-total[top], kind="stable")]
        chosen = top if rows is None else rows[top]
        return Scored(chosen, total[top], rec[top], imp[top], rel[top])

    def recency_raw(self, rows: np.ndarray, now_hours: float) -> np.ndarray:
        return np.exp(self.log_decay * (now_hours - self.last_access[rows]))
