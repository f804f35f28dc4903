"""Exact top-k from a first pass whose relevance is known only to within eps per row.

At a million memories the int8 scan reads 384 MB and everything after it must stay far below
that: the query-independent part of the score (recency and importance) is cached between
queries (`Prior`), the growth bounds are kept up to date instead of re-read, and the rest is a
few passes over cache-resident float32 arrays.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

import numpy as np

from mindstream.memory.quantized import Codes, Scratch, scale_add_into
from mindstream.memory.ranking import (
    BlockSummary,
    contenders,
    contenders_by_summary,
    near_extremes,
    ranking_at,
)
from mindstream.memory.scoring import Columns, Scored, bounds, prior_into, score_rows, top_k

if TYPE_CHECKING:
    from mindstream.memory.records import RetrievalWeights


class OwnerIndex(Protocol):
    """What certification reads of an owner's index (`memory.index.OwnerIndex` is one): its
    rows' columns and caches, and exact relevance of some rows."""

    size: int
    version: int
    codes: Codes | None
    growth32: np.ndarray
    importance: np.ndarray
    scratch: Scratch
    prior: Prior
    relevance_span_hint: float

    def growth_bounds(self) -> tuple[float, float]: ...

    def importance_norm(self) -> np.ndarray: ...

    def exact_relevance(
        self, query: np.ndarray, rows: np.ndarray | None, subset: np.ndarray | None
    ) -> np.ndarray: ...

    def columns(self, rows: np.ndarray | None) -> Columns: ...


# Rows re-scored first, nearest each approximate extreme: their exact values rule out most of
# the rest.
_FIRST_LOOK = 4
# Float32 rounding in the approximate ranking (relative to the sum of the weights).
RANKING_ROUNDING = 1e-5
# A cached prior is rebuilt once the recency span has moved this much (relative): staleness
# is paid for in the margin, so a small one only widens it a little.
_PRIOR_DRIFT_LIMIT = 1e-4


class Prior:
    """w_rec·recency + w_imp·importance of every row, min-max normalised, in float32.

    Built with the growth bounds of its time; they change a little with every retrieval
    (touched rows become the most recent), which moves a row's recency term by at most
    w_rec·(|span/span_built − 1| + |low − low_built|/span_built), so a slightly stale prior
    stays usable with that much more margin. Appends and rebases rebuild it; touches update
    their rows.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._array: np.ndarray | None = None
        self._key: tuple[float, float, int, int] | None = None
        self._g_low = 0.0
        self._g_span = 0.0
        self.builds = 0

    def get(self, index: OwnerIndex, w_rec: float, w_imp: float) -> tuple[np.ndarray, float]:
        """The prior and how far, at most, staleness moves a row's value."""
        g_low, g_span = index.growth_bounds()
        with self._lock:
            key = (w_rec, w_imp, index.size, index.version)
            drift = self._drift(w_rec, g_low, g_span)
            if self._array is None or self._key != key or drift > abs(w_rec) * _PRIOR_DRIFT_LIMIT:
                self._build(index, w_rec, w_imp, g_low, g_span)
                self._key, drift = key, 0.0
            assert self._array is not None
            return self._array, drift

    def _drift(self, w_rec: float, g_low: float, g_span: float) -> float:
        if not w_rec or (g_span, g_low) == (self._g_span, self._g_low):
            return 0.0
        if not g_span or not self._g_span:
            return float("inf")
        moved = abs(g_span / self._g_span - 1.0) + abs(g_low - self._g_low) / self._g_span
        return abs(w_rec) * moved

    def _build(
        self, index: OwnerIndex, w_rec: float, w_imp: float, g_low: float, g_span: float
    ) -> None:
        self._g_low, self._g_span = g_low, g_span
        self._array = self._values(index, slice(0, index.size), w_rec, w_imp)
        self.builds += 1

    def touched(self, index: OwnerIndex, rows: np.ndarray) -> None:
        """Re-derive the prior of rows whose last access just changed."""
        with self._lock:
            if self._array is None or self._key is None:
                return
            w_rec, w_imp, size, version = self._key
            if (size, version) == (index.size, index.version):  # else rebuilt by the next query
                self._array[rows] = self._values(index, rows, w_rec, w_imp)

    def _values(
        self, index: OwnerIndex, rows: slice | np.ndarray, w_rec: float, w_imp: float
    ) -> np.ndarray:
        """The prior of `rows` against the growth bounds it was built with."""
        growth = index.growth32[rows]
        out = np.empty(len(growth), dtype=np.float32)
        importance_norm = index.importance_norm()[rows]
        return prior_into(out, growth, self._g_low, self._g_span, importance_norm, w_rec, w_imp)


def int8_search(
    index: OwnerIndex,
    query: np.ndarray,
    threads: int,
    weights: RetrievalWeights,
    k: int,
    rows: np.ndarray | None,
) -> Scored:
    """The certified top k after an int8 pass over every row.

    Over the whole index the scan also ranks rows by blocks with the cached prior and the
    last search's span of relevance (a guess: a wrong one costs time, never a row).
    """
    codes = index.codes
    assert codes is not None
    if rows is not None:
        scan = codes.scan(query, index.size, threads)
        picked = scan.approx[rows]
        return certified_top_k(index, query, picked, scan.factor, scan.eps, weights, k, rows)
    prior = _prior(index, weights, index.columns(None), index.size)
    hint = index.relevance_span_hint
    ranked = prior[0] if hint else None
    scan = codes.scan(query, index.size, threads, ranked, weights.relevance / hint if hint else 0.0)
    return certified_top_k(
        index, query, scan.approx, scan.factor, scan.eps, weights, k, None, scan.summary, prior
    )


def certified_top_k(
    index: OwnerIndex,
    query: np.ndarray,
    approx: np.ndarray,
    factor: float,
    eps: float,
    weights: RetrievalWeights,
    k: int,
    rows: np.ndarray | None,
    summary: BlockSummary | None = None,
    prior: tuple[np.ndarray, float] | None = None,
) -> Scored:
    """Top-k from relevance factor·approx known to within eps per row, re-scoring only rows
    that could still reach it (`summary`: of approx by blocks, when the scan kept one;
    `prior`: the one it ranked with, and its error).

    The true extremes lie within 2·eps of the approximate ones (`_exact_extremes` re-scores
    far fewer); then each row's normalised score is off by at most delta = w_rel·eps/span,
    and a row below the approximate k-th minus 2·delta cannot win (`_exact_top_k` re-scores
    far fewer).
    """
    columns = index.columns(rows)
    if approx.size == 0:
        return top_k(columns, approx, weights, k)
    exact_extremes = _exact_extremes(index, query, rows, approx, factor, eps, summary)
    r_low, r_span = bounds(exact_extremes)
    if r_span <= 2 * eps:  # relevance (nearly) flat: re-score everything exactly
        return top_k(columns, index.exact_relevance(query, rows, None), weights, k)
    if rows is None:
        index.relevance_span_hint = r_span
    prior_values, error = prior or _prior(index, weights, columns, approx.size)
    slope = weights.relevance * factor / r_span
    delta = weights.relevance * eps / r_span + error
    k = min(k, approx.size)
    if summary is not None and summary.ranks is not None:
        candidates = contenders_by_summary(approx, prior_values, slope, summary, k, 2 * delta)
        ranking = ranking_at(approx, prior_values, slope, candidates)
    else:
        scale_add_into(approx, slope, prior_values)  # in place: a new 4 MB array page-faults
        candidates = contenders(approx, k, 2 * delta)
        ranking = approx[candidates]
    # ranking − shift is each candidate's score to within delta
    shift = weights.relevance * r_low / r_span
    estimate = ranking - shift
    return _exact_top_k(
        index, query, columns, candidates, estimate, delta, exact_extremes, weights, k
    )


def _exact_extremes(
    index: OwnerIndex,
    query: np.ndarray,
    rows: np.ndarray | None,
    approx: np.ndarray,
    factor: float,
    eps: float,
    summary: BlockSummary | None,
) -> np.ndarray:
    """The exact minimum and maximum relevance.

    Every row within 2·eps of an approximate extreme could hold the true one, but once the
    few most extreme rows are re-scored, only rows whose bound reaches past the best exact
    value so far can: within about eps, a small part of the tail."""
    window = 2 * eps / factor if factor else np.inf
    near_low, near_high = near_extremes(approx, window, summary)
    low_side, high_side = approx[near_low] * factor, approx[near_high] * factor
    low_order = np.argsort(low_side, kind="stable")
    high_order = np.argsort(-high_side, kind="stable")
    first = np.concatenate([near_low[low_order[:_FIRST_LOOK]], near_high[high_order[:_FIRST_LOOK]]])
    exact = index.exact_relevance(query, rows, first)
    low, high = float(exact.min()), float(exact.max())
    low_rest = low_order[_FIRST_LOOK:][low_side[low_order[_FIRST_LOOK:]] - eps <= low]
    high_rest = high_order[_FIRST_LOOK:][high_side[high_order[_FIRST_LOOK:]] + eps >= high]
    if low_rest.size or high_rest.size:
        rest = np.concatenate([near_low[low_rest], near_high[high_rest]])
        more = index.exact_relevance(query, rows, rest)
        low, high = min(low, float(more.min())), max(high, float(more.max()))
    return np.array([low, high], dtype=np.float32)


def _exact_top_k(
    index: OwnerIndex,
    query: np.ndarray,
    columns: Columns,
    candidates: np.ndarray,
    estimate: np.ndarray,
    delta: float,
    exact_extremes: np.ndarray,
    weights: RetrievalWeights,
    k: int,
) -> Scored:
    """The top k among `candidates`, whose scores are `estimate` to within delta.

    The k best by estimate are scored exactly first; their k-th exact score is at most the
    true k-th, so only candidates whose estimate reaches it minus delta can still win."""
    rows = columns.rows
    order = np.argsort(-estimate, kind="stable")
    first, rest = order[:k], order[k:]
    exact = index.exact_relevance(query, rows, candidates[first])
    best = score_rows(columns, candidates[first], exact, exact_extremes, weights, k)
    rest = rest[estimate[rest] >= float(best.score.min()) - delta] if best.score.size else rest
    if rest.size == 0:
        return best
    picked = np.concatenate([first, rest])
    exact = np.concatenate([exact, index.exact_relevance(query, rows, candidates[rest])])
    return score_rows(columns, candidates[picked], exact, exact_extremes, weights, k)


def _prior(
    index: OwnerIndex,
    weights: RetrievalWeights,
    columns: Columns,
    size: int,
) -> tuple[np.ndarray, float]:
    """The ranking's query-independent part (recency and importance) of every candidate, and
    the most rounding and a stale prior can move a row's value beyond what eps covers."""
    rows = columns.rows
    w_rec, w_imp = weights.recency, weights.importance
    rounding = RANKING_ROUNDING * (weights.recency + weights.importance + weights.relevance)
    growth = None if rows is None else index.growth32[rows]  # gathered once
    g_low, g_span = index.growth_bounds() if growth is None else bounds(growth)
    if w_rec and g_span:
        # growth32 holds growth to 6e-8 relative; centred, that is this much of w_rec.
        rounding += 2.4e-7 * abs(w_rec) * (abs(g_low) + g_span) / g_span
    if growth is None:
        prior, drift = index.prior.get(index, w_rec, w_imp)
        return prior, rounding + drift
    (term,) = index.scratch.buffer(1, size)
    return prior_into(term, growth, g_low, g_span, columns.importance_norm, w_rec, w_imp), rounding
