"""A per-owner, contiguous, vectorised index of memories: the retrieval hot path.

The index is storage: embeddings in one growable float32 matrix beside arrays of importance,
last access (and its growth, see `memory.scoring`), creation time, kind and status, plus the
first pass's codes. Appends are amortised O(1). A search takes one of two first passes, the
exact float32 scan or the certified codes (`memory.certified`), and both end in the one
score of `memory.scoring`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from mindstream.lm.timing import time_rounds
from mindstream.memory.certified import Prior, int8_search
from mindstream.memory.errors import EmbeddingShapeError
from mindstream.memory.quantized import Codes, Int8Codes, Scratch, simsimd_available, thread_choices
from mindstream.memory.records import RetrievalWeights
from mindstream.memory.scoring import Columns, Scored, bounds, columns_of, minmax, top_k
from mindstream.memory.sevenbit import grown_codes

Column = Sequence[float] | Sequence[int] | np.ndarray
# Growing copies every row, so capacity grows geometrically (amortised O(1) appends) and
# always leaves headroom: an index built in one go takes its next appends without a copy.
_GROWTH = 1.5
_HEADROOM = 1.25
_MIN_CAPACITY = 1024
_REBASE_LIMIT = 1e30  # growth is float32 (max 3e38): rebase long before it overflows
_NO_BLAS_ROWS = 4096
# "auto" times the codes' pass against the float32 one from this size on; below it a float32
# pass takes well under a millisecond anyway (bench: 10k rows, the two within noise).
AUTO_MIN_ROWS = 20_000
FLOAT_PASS = 0  # the scan choice meaning "no codes: the exact float32 pass"


class OwnerIndex:
    """Arrays for one owner's memories; row i is the i-th memory added."""

    def __init__(self, dimension: int, decay: float, precision: str = "float32") -> None:
        """`precision`: float32 (exact scan), int8 (a first pass over int8 codes, seven-bit
        from SEVEN_BIT_FROM rows, certified re-rank from float32 rows) or auto (the codes
        where a measurement on this machine says they are faster)."""
        self.dimension = dimension
        self.log_decay = math.log(decay)
        self.precision = precision
        quantized = precision in ("int8", "auto") and simsimd_available()
        self.codes: Codes | None = Int8Codes(dimension, 0) if quantized else None
        self._scan = FLOAT_PASS if precision == "auto" else 1
        self._settled = False
        self._measured_at = 0
        self.scratch = Scratch()
        self.prior = Prior()
        self.relevance_span_hint = 0.0  # the last search's: the next scan's ranking guess
        self.version = 0  # bumped when every growth value changes (a rebase)
        self._growth_bounds: tuple[float, float] | None = None
        self.size = 0
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.ref_hours: float | None = None
        self._alloc(_MIN_CAPACITY)

    _ARRAYS = (
        "embeddings",
        "importance",
        "last_access",
        "growth",
        "growth32",
        "created",
        "kind",
        "status",
    )

    def _alloc(self, capacity: int) -> None:
        """(Re)allocate every array with room for `capacity` rows, keeping the filled ones."""
        previous = {name: getattr(self, name) for name in self._ARRAYS if hasattr(self, name)}
        self.embeddings: np.ndarray = np.zeros((capacity, self.dimension), dtype=np.float32)
        self.importance: np.ndarray = np.zeros(capacity, dtype=np.float32)
        self.last_access: np.ndarray = np.zeros(capacity, dtype=np.float64)
        self.growth: np.ndarray = np.zeros(capacity, dtype=np.float64)
        self.growth32: np.ndarray = np.zeros(capacity, dtype=np.float32)
        self.created: np.ndarray = np.zeros(capacity, dtype=np.float64)
        self.kind: np.ndarray = np.zeros(capacity, dtype=np.int8)
        self.status: np.ndarray = np.zeros(capacity, dtype=np.int8)
        for name, array in previous.items():
            getattr(self, name)[: self.size] = array[: self.size]
        if getattr(self, "codes", None) is not None:
            assert self.codes is not None
            self.codes = grown_codes(self.codes, capacity, self.size, self.embeddings)
        self.capacity = capacity
        self._importance_cache: np.ndarray | None = None

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
            needed = self.size + count
            self._alloc(max(int(self.capacity * _GROWTH), int(needed * _HEADROOM)))
        start, end = self.size, self.size + count
        last = np.asarray(last_access_hours, dtype=np.float64)
        if self.ref_hours is None:
            self.ref_hours = float(last.max()) if count else 0.0
        self.embeddings[start:end] = embeddings
        if self.codes is not None:
            self.codes.encode(start, embeddings, self.embeddings)
        self.importance[start:end] = importance
        self.last_access[start:end] = last
        self.growth[start:end] = self._growth(last)
        if not self._rebase_if_needed(float(last.max()) if count else self.ref_hours, end):
            self.growth32[start:end] = self.growth[start:end]
            self._widen_growth_bounds(self.growth[start:end])
        self.created[start:end] = created_hours
        self.kind[start:end] = kinds
        self.status[start:end] = statuses
        self._importance_cache = None
        self.row_of.update((memory_id, start + i) for i, memory_id in enumerate(ids))
        self.ids.extend(ids)
        self.size = end

    def _growth(self, last_hours: np.ndarray) -> np.ndarray:
        assert self.ref_hours is not None
        return np.exp(-self.log_decay * (last_hours - self.ref_hours))

    def touch(self, rows: np.ndarray, now_hours: float) -> None:
        """Set last access of `rows` to now (what every retrieval does to its results)."""
        self.last_access[rows] = now_hours
        previous = self.growth[rows]
        self.growth[rows] = self._growth(np.full(len(rows), now_hours))
        if not self._rebase_if_needed(now_hours):
            self.growth32[rows] = self.growth[rows]
            if self._growth_bounds is not None and previous.size:
                if previous.min() <= self._growth_bounds[0]:
                    self._growth_bounds = None  # the lowest row may have moved up
                self._widen_growth_bounds(self.growth[rows])
        self.prior.touched(self, rows)

    def _widen_growth_bounds(self, values: np.ndarray) -> None:
        if self._growth_bounds is not None and values.size:
            low, high = self._growth_bounds
            self._growth_bounds = (min(low, float(values.min())), max(high, float(values.max())))

    def growth_bounds(self) -> tuple[float, float]:
        """Low end and span of every row's growth: kept up to date by appends and touches
        rather than re-read (8 MB at a million rows) by every query."""
        if self._growth_bounds is None:
            growth = self.growth[: self.size]
            self._growth_bounds = (
                (float(growth.min()), float(growth.max())) if self.size else (0.0, 0.0)
            )
        return bounds(np.array(self._growth_bounds))

    def _rebase_if_needed(self, latest_hours: float, rows: int | None = None) -> bool:
        """Move the reference time forward long before growth values could overflow, for the
        first `rows` rows (default: all; an append passes its new end). Float32 copies are
        included: callers refresh theirs only when no rebase did it for them."""
        assert self.ref_hours is not None
        if -self.log_decay * (latest_hours - self.ref_hours) <= np.log(_REBASE_LIMIT):
            return False
        self.ref_hours = latest_hours
        self.version += 1
        self._growth_bounds = None
        end = self.size if rows is None else rows
        self.growth[:end] = self._growth(self.last_access[:end])
        self.growth32[:end] = self.growth[:end]
        return True

    def relevance(self, query: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Cosine similarity (rows are unit vectors) of the query with every candidate."""
        # Gathering most rows copies the matrix; scoring all and picking is cheaper.
        if rows is None or len(rows) * 4 >= self.size:
            every = self.embeddings[: self.size] @ query.astype(np.float32)
            return np.asarray(every if rows is None else every[rows], dtype=np.float32)
        return np.asarray(self.embeddings[rows] @ query.astype(np.float32), dtype=np.float32)

    def columns(self, rows: np.ndarray | None = None) -> Columns:
        """The score's query-independent columns of the candidates (cached for all rows)."""
        if rows is not None:
            return columns_of(self.growth[rows], self.importance[rows], rows)
        low, span = self.growth_bounds()
        return Columns(self.growth[: self.size], self.importance_norm(), low, span, None)

    def search(
        self,
        query: np.ndarray,
        weights: RetrievalWeights,
        k: int,
        rows: np.ndarray | None = None,
    ) -> Scored:
        """Exact top-k by the Park score over the candidates (`rows`, or every memory), by
        the float32 pass or the codes' certified one (`memory.certified`)."""
        scan = self._scan_choice(query, weights, k, rows) if weights.relevance else FLOAT_PASS
        return self._search_with(scan, query, weights, k, rows)

    def _search_with(
        self,
        scan: int,
        query: np.ndarray,
        weights: RetrievalWeights,
        k: int,
        rows: np.ndarray | None,
    ) -> Scored:
        """Search by the float32 pass (FLOAT_PASS) or the codes' pass on `scan` threads."""
        if scan == FLOAT_PASS:
            return self.score(self.relevance(query, rows), weights, k, rows)
        return int8_search(self, query, scan, weights, k, rows)

    def _scan_choice(
        self,
        query: np.ndarray,
        weights: RetrievalWeights,
        k: int,
        rows: np.ndarray | None,
    ) -> int:
        """FLOAT_PASS or the codes' pass's thread count. "int8" always takes the codes, "auto"
        from AUTO_MIN_ROWS on. Which is faster is timed on this index's query when it first
        reaches that size and at each doubling, until the option that only gains with size
        (the codes on the most threads) has won; from then on the choice is settled. Searches
        are never re-timed in between."""
        if self.codes is None or (rows is not None and len(rows) * 4 < self.size):
            return FLOAT_PASS
        if self.size < AUTO_MIN_ROWS:
            return self._scan
        if not self._settled and self.size >= 2 * self._measured_at:
            self._measured_at = self.size
            self._scan = self._fastest_scan(query, weights, k)
            self._settled = self._scan == max(thread_choices())
        return self._scan

    def _fastest_scan(self, query: np.ndarray, weights: RetrievalWeights, k: int) -> int:
        timings = time_rounds(
            {
                str(threads): partial(self._search_with, threads, query, weights, k, None)
                for threads in thread_choices()
            }
        )
        if self.precision == "auto":
            # Timed after the scans: a float pass leaves OpenBLAS threads spinning on the
            # other core, which would slow a two-thread scan timed right after it.
            float_pass = partial(self._search_with, FLOAT_PASS, query, weights, k, None)
            timings |= time_rounds({str(FLOAT_PASS): float_pass})
        return int(min(timings, key=timings.__getitem__))

    def exact_relevance(
        self, query: np.ndarray, rows: np.ndarray | None, subset: np.ndarray | None
    ) -> np.ndarray:
        picked = rows if subset is None else (subset if rows is None else rows[subset])
        matrix = self.embeddings[: self.size] if picked is None else self.embeddings[picked]
        vector = query.astype(np.float32)
        if len(matrix) <= _NO_BLAS_ROWS:
            # OpenBLAS runs a few hundred rows on both cores, then spins its threads for a
            # while: the next query's int8 scan then shares a core with a spinning thread.
            return np.einsum("ij,j->i", matrix, vector)
        return np.asarray(matrix @ vector, dtype=np.float32)

    def score(
        self,
        relevance: np.ndarray,
        weights: RetrievalWeights,
        k: int,
        rows: np.ndarray | None = None,
    ) -> Scored:
        """Top-k candidates (`rows`, or every memory) given their relevance, aligned."""
        return top_k(self.columns(rows), relevance, weights, k)

    def importance_norm(self) -> np.ndarray:
        if self._importance_cache is None:
            self._importance_cache = minmax(self.importance[: self.size])
        return self._importance_cache

    def recency_raw(self, rows: np.ndarray, now_hours: float) -> np.ndarray:
        return np.exp(self.log_decay * (now_hours - self.last_access[rows]))
