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
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from lm.timing import time_rounds
from memory.certified import Prior, certified_top_k, int8_search
from memory.chooser import Chooser
from memory.errors import EmbeddingShapeError
from memory.quantized import (
    Int8Codes,
    Scratch,
    simsimd_available,
    thread_choices,
)
from memory.ranking import Scored, minmax
from memory.ranking import bounds as _bounds
from memory.records import RetrievalWeights
from memory.sevenbit import grown_codes

Column = Sequence[float] | Sequence[int] | np.ndarray
# Growing copies every row, so capacity grows geometrically (amortised O(1) appends) and
# always leaves headroom: an index built in one go takes its next appends without a copy.
_GROWTH = 1.5
_HEADROOM = 1.25
_MIN_CAPACITY = 1024
_REBASE_LIMIT = 1e30
_NO_BLAS_ROWS = 4096
# Largest |error| of a float16 matrix-vector product over unit vectors with float32
# accumulation is ~2^-10 (storage rounding of both sides); 1.1e-4 was observed on 200k rows.
HALF_SCAN_ERROR = 2e-3  # growth is float32 (max 3e38): rebase long before it overflows
# "auto" measures the int8 pass against the float32 one from this size on, again at each
# doubling; below it a float32 pass takes well under a millisecond anyway.
AUTO_MIN_ROWS = 20_000


class OwnerIndex:
    """Arrays for one owner's memories; row i is the i-th memory added."""

    def __init__(self, dimension: int, decay: float, precision: str = "float32") -> None:
        """`precision`: float32 (exact scan), float16 (half the bytes, certified re-rank),
        int8 (an int8 first pass, certified re-rank from float32 rows) or auto (int8 where a
        measurement on this machine says it is faster)."""
        self.dimension = dimension
        self.log_decay = math.log(decay)
        self.precision = precision
        self.dtype = np.dtype("float16" if precision == "float16" else "float32")
        quantized = precision in ("int8", "auto") and simsimd_available()
        self.codes: Int8Codes | None = Int8Codes(dimension, 0) if quantized else None
        self._chooser: Chooser | None = None
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
        self._torch_view: Any = None

    _ARRAYS = (
        "embeddings",
        "exact",
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
        self.embeddings: np.ndarray = np.zeros((capacity, self.dimension), dtype=self.dtype)
        self.importance: np.ndarray = np.zeros(capacity, dtype=np.float32)
        self.last_access: np.ndarray = np.zeros(capacity, dtype=np.float64)
        self.growth: np.ndarray = np.zeros(capacity, dtype=np.float64)
        self.growth32: np.ndarray = np.zeros(capacity, dtype=np.float32)
        self.created: np.ndarray = np.zeros(capacity, dtype=np.float64)
        self.kind: np.ndarray = np.zeros(capacity, dtype=np.int8)
        self.status: np.ndarray = np.zeros(capacity, dtype=np.int8)
        # float16 scans are re-ranked exactly from float32 rows (see `search`).
        exact_width = self.dimension if self.dtype == np.float16 else 0
        self.exact: np.ndarray = np.zeros((capacity, exact_width), dtype=np.float32)
        for name, array in previous.items():
            getattr(self, name)[: self.size] = array[: self.size]
        if getattr(self, "codes", None) is not None:
            assert self.codes is not None
            self.codes = grown_codes(self.codes, capacity, self.size, self.embeddings)
        self.capacity = capacity
        self._torch_view = None
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
        if self.exact.shape[1]:
            self.exact[start:end] = embeddings
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
        return _bounds(np.array(self._growth_bounds))

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
        if self.dtype != np.float16:
            # Gathering most rows copies the matrix; scoring all and picking is cheaper.
            if rows is None or len(rows) * 4 >= self.size:
                every = self.embeddings[: self.size] @ query.astype(np.float32)
                return np.asarray(every if rows is None else every[rows], dtype=np.float32)
            return np.asarray(self.embeddings[rows] @ query.astype(np.float32), dtype=np.float32)
        # numpy's float16 matrix product is ~50x slower than float32: small candidate sets
        # are widened after the gather, large ones use torch's full scan and then index.
        if rows is not None and len(rows) * 4 < self.size:
            return np.asarray(self.embeddings[rows].astype(np.float32) @ query, dtype=np.float32)
        every = self._relevance_half(query)
        return every if rows is None else every[rows]

    def _relevance_half(self, query: np.ndarray) -> np.ndarray:
        # numpy has no fast float16 matrix-vector product; torch's runs at memory bandwidth.
        import torch

        if self._torch_view is None:
            self._torch_view = torch.from_numpy(self.embeddings)
        matrix = self._torch_view[: self.size]
        vector = torch.from_numpy(query.astype(np.float16))
        return torch.mv(matrix, vector).float().numpy()

    def search(
        self,
        query: np.ndarray,
        weights: RetrievalWeights,
        k: int,
        rows: np.ndarray | None = None,
    ) -> Scored:
        """Exact top-k by embedding relevance, whatever the storage precision.

        A float16 or int8 first pass has a certified per-row error eps; rows that could still
        reach the top k are re-scored from float32 rows (`certified_top_k`).
        """
        if not weights.relevance:
            return self.score(self.relevance(query, rows), weights, k, rows)
        option = self._scan_choice(query, weights, k, rows)
        start = time.perf_counter()
        result = self._search_with(option, query, weights, k, rows)
        if rows is None and self._chooser is not None:
            self._chooser.record(option, time.perf_counter() - start)
        return result

    def _search_with(
        self,
        option: str,
        query: np.ndarray,
        weights: RetrievalWeights,
        k: int,
        rows: np.ndarray | None,
    ) -> Scored:
        """Search by a float pass ("float32") or an int8 pass on `option` threads."""
        if option != "float32":
            return int8_search(self, query, int(option), weights, k, rows)
        relevance = self.relevance(query, rows)
        if self.dtype != np.float16:
            return self.score(relevance, weights, k, rows)
        return certified_top_k(self, query, relevance, 1.0, HALF_SCAN_ERROR, weights, k, rows)

    def _scan_choice(
        self,
        query: np.ndarray,
        weights: RetrievalWeights,
        k: int,
        rows: np.ndarray | None,
    ) -> str:
        """Either "float32" or the thread count of an int8 pass. "int8" always scans codes; "auto"
        chooses by timings on this machine from AUTO_MIN_ROWS on, taken when the index first
        reaches that size and at each doubling, then kept current by a `Chooser`."""
        codes = self.codes
        if codes is None or (rows is not None and len(rows) * 4 < self.size):
            return "float32"
        if self.size < AUTO_MIN_ROWS:
            return "float32" if self.precision == "auto" else "1"
        if self._chooser is None or self.size >= 2 * self._measured_at:
            self._measured_at = self.size
            calls: dict[str, Callable[[], object]] = {
                str(threads): partial(self._search_with, str(threads), query, weights, k, None)
                for threads in thread_choices()
            }
            timings = time_rounds(calls)
            if self.precision == "auto":
                # Timed after the scans: a float pass leaves OpenBLAS threads spinning on the
                # other core, which would slow a two-thread scan timed right after it.
                float_pass = partial(self._search_with, "float32", query, weights, k, None)
                timings |= time_rounds({"float32": float_pass})
            # One scan thread is steady: nothing on the other core slows it (OpenBLAS threads
            # left spinning by any float pass in the process stall two-thread scans by a
            # scheduler tick, 4 ms, and one thread is then the better choice).
            self._chooser = Chooser(timings, costly=frozenset({"float32"}), steady=frozenset({"1"}))
        return self._chooser.pick() if rows is None else self._chooser.best()

    def exact_relevance(
        self, query: np.ndarray, rows: np.ndarray | None, subset: np.ndarray | None
    ) -> np.ndarray:
        picked = rows if subset is None else (subset if rows is None else rows[subset])
        source = self.exact if self.dtype == np.float16 else self.embeddings
        matrix = source[: self.size] if picked is None else source[picked]
        vector = query.astype(np.float32)
        if len(matrix) <= _NO_BLAS_ROWS:
            # OpenBLAS runs a few hundred rows on both cores, then spins its threads for a
            # while: the next query's int8 scan then shares a core with a spinning thread.
            return np.einsum("ij,j->i", matrix, vector)
        return np.asarray(matrix @ vector, dtype=np.float32)

    def score_subset(
        self,
        subset: np.ndarray,
        relevance: np.ndarray,
        extremes: np.ndarray,
        weights: RetrievalWeights,
        k: int,
        rows: np.ndarray | None,
    ) -> Scored:
        """Score candidates (positions among `rows`) with exact relevance bounds."""
        growth = self.growth[: self.size] if rows is None else self.growth[rows]
        importance_norm = self.importance_norm() if rows is None else minmax(self.importance[rows])
        g_low, g_span = self.growth_bounds() if rows is None else _bounds(growth)
        r_low, r_span = _bounds(extremes)
        rec = (growth[subset] - g_low) / g_span if g_span else np.full(subset.size, 0.5, np.float32)
        rel = (relevance - r_low) / r_span if r_span else np.full(subset.size, 0.5, np.float32)
        imp = importance_norm[subset]
        total = weights.recency * rec + weights.importance * imp + weights.relevance * rel
        order = np.argsort(-total, kind="stable")[:k]
        chosen = subset[order] if rows is None else rows[subset[order]]
        return Scored(chosen, total[order], rec[order], imp[order], rel[order])

    def _ranking(
        self, relevance: np.ndarray, weights: RetrievalWeights, rows: np.ndarray | None
    ) -> tuple[np.ndarray, float]:
        """The score up to a constant, and that constant (the offset to subtract).

        Columns are centred before scaling: near-equal relevance times a large 1/span would
        otherwise lose the differences to float32 rounding.
        """
        growth = self.growth[: self.size] if rows is None else self.growth[rows]
        importance_norm = self.importance_norm() if rows is None else minmax(self.importance[rows])
        w_rec, w_imp, w_rel = weights.recency, weights.importance, weights.relevance
        g_low, g_span = self.growth_bounds() if rows is None else _bounds(growth)
        r_low, r_span = _bounds(relevance)
        ranking = np.subtract(relevance, np.float32(r_low), dtype=np.float32)
        ranking *= np.float32(w_rel / r_span if r_span else 0.0)
        offset = 0.0 if r_span else -0.5 * w_rel
        if w_rec and g_span:
            np.add(ranking, (growth - g_low) * (w_rec / g_span), out=ranking, casting="unsafe")
        elif w_rec:
            offset -= 0.5 * w_rec
        if w_imp:
            ranking += w_imp * importance_norm
        return ranking, offset

    def score(
        self,
        relevance: np.ndarray,
        weights: RetrievalWeights,
        k: int,
        rows: np.ndarray | None = None,
    ) -> Scored:
        """Top-k rows by w_rec·recency + w_imp·importance + w_rel·relevance, each min-max
        normalised over the candidates (`rows`, or every memory); `relevance` is aligned
        with the candidates.

        Ranking uses the score minus a constant, so no normalised copy of a whole column is
        made; the exact parts are computed for the k winners only.
        """
        k = min(k, relevance.size)
        if k == 0:
            empty = np.zeros(0, dtype=np.float32)
            return Scored(np.zeros(0, dtype=np.int64), empty, empty, empty, empty)
        ranking, _ = self._ranking(relevance, weights, rows)
        n = ranking.size
        top = np.argpartition(ranking, n - k)[n - k :] if k < n else np.arange(n)
        extremes = np.array([relevance.min(), relevance.max()], dtype=np.float32)
        return self.score_subset(top, relevance[top], extremes, weights, k, rows)

    def importance_norm(self) -> np.ndarray:
        if self._importance_cache is None:
            self._importance_cache = minmax(self.importance[: self.size])
        return self._importance_cache

    def recency_raw(self, rows: np.ndarray, now_hours: float) -> np.ndarray:
        return np.exp(self.log_decay * (now_hours - self.last_access[rows]))
