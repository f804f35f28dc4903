"""The Park score, written once: w_rec·recency + w_imp·importance + w_rel·relevance, each part
min-max normalised over the candidates; a flat part counts 0.5, as in the original code.

Every search path ends here: the exact float32 pass scores all candidates (`top_k`), and a
certified first pass scores the rows it could not rule out (`score_rows`). Recency enters as
growth = decay^-(last_access - ref), which min-max normalises to the same values as
decay^(now - last_access) without an exponential per query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from mindstream.memory.records import RetrievalWeights

FLAT = 0.5  # the normalised value of a part that does not vary over the candidates


@dataclass(frozen=True)
class Scored:
    """The top rows of a search and their score with its three normalised parts."""

    rows: np.ndarray
    score: np.ndarray
    recency: np.ndarray
    importance: np.ndarray
    relevance: np.ndarray


@dataclass(frozen=True)
class Columns:
    """The query-independent columns of the candidates (`rows` of the index, or all when
    None): growth, normalised importance, and growth's low end and span."""

    growth: np.ndarray
    importance_norm: np.ndarray
    growth_low: float
    growth_span: float
    rows: np.ndarray | None


def bounds(values: np.ndarray) -> tuple[float, float]:
    """Low end and span of the values; span 0 when they are (numerically) constant."""
    low, high = float(values.min()), float(values.max())
    span = high - low
    return low, (span if span > 1e-12 * max(1.0, abs(high)) else 0.0)


def normalised(values: np.ndarray, low: float, span: float) -> np.ndarray:
    """(values − low)/span, or FLAT everywhere when the span is 0."""
    if not span:
        return np.full(values.shape, FLAT, dtype=np.float32)
    return (values - low) / span


def minmax(values: np.ndarray) -> np.ndarray:
    """Scale to [0, 1] in float32 (FLAT when constant)."""
    if values.size == 0:
        return values
    return np.asarray(normalised(values, *bounds(values)), dtype=np.float32)


def columns_of(
    growth: np.ndarray, importance: np.ndarray, rows: np.ndarray | None = None
) -> Columns:
    """The columns of candidates read fresh (the index caches those of all rows)."""
    low, span = bounds(growth) if growth.size else (0.0, 0.0)
    return Columns(growth, minmax(importance), low, span, rows)


def prior_into(
    out: np.ndarray,
    growth: np.ndarray,
    g_low: float,
    g_span: float,
    importance_norm: np.ndarray,
    w_rec: float,
    w_imp: float,
) -> np.ndarray:
    """out = w_rec·recency + w_imp·importance, the query-independent part of the score, in
    float32."""
    out[:] = 0.0 if g_span else FLAT * w_rec
    if w_rec and g_span:
        np.subtract(growth, np.float32(g_low), out=out)
        out *= np.float32(w_rec / g_span)
    if w_imp:
        out += np.float32(w_imp) * importance_norm
    return out


def score_rows(
    columns: Columns,
    subset: np.ndarray,
    relevance: np.ndarray,
    extremes: np.ndarray,
    weights: RetrievalWeights,
    k: int,
) -> Scored:
    """The top k of `subset` (positions among the candidates) by the exact score, given their
    exact relevance and its extremes over all candidates."""
    rec = normalised(columns.growth[subset], columns.growth_low, columns.growth_span)
    rel = normalised(relevance, *bounds(extremes))
    imp = columns.importance_norm[subset]
    total = weights.recency * rec + weights.importance * imp + weights.relevance * rel
    order = np.argsort(-total, kind="stable")[:k]
    chosen = subset[order] if columns.rows is None else columns.rows[subset[order]]
    return Scored(chosen, total[order], rec[order], imp[order], rel[order])


def top_k(columns: Columns, relevance: np.ndarray, weights: RetrievalWeights, k: int) -> Scored:
    """Top k candidates given every candidate's relevance (aligned with them).

    Ranks by the score up to a constant, so no normalised copy of a whole column is made;
    the exact parts are computed for the k winners only.
    """
    k = min(k, relevance.size)
    if k == 0:
        empty = np.zeros(0, dtype=np.float32)
        return Scored(np.zeros(0, dtype=np.int64), empty, empty, empty, empty)
    ranking = _ranking(columns, relevance, weights)
    n = ranking.size
    top = np.argpartition(ranking, n - k)[n - k :] if k < n else np.arange(n)
    extremes = np.array([relevance.min(), relevance.max()], dtype=np.float32)
    return score_rows(columns, top, relevance[top], extremes, weights, k)


def _ranking(columns: Columns, relevance: np.ndarray, weights: RetrievalWeights) -> np.ndarray:
    """The score less a constant (flat parts add the same to every row and are left out).

    Columns are centred before scaling: near-equal relevance times a large 1/span would
    otherwise lose the differences to float32 rounding.
    """
    w_rec, w_imp, w_rel = weights.recency, weights.importance, weights.relevance
    r_low, r_span = bounds(relevance)
    ranking = np.subtract(relevance, np.float32(r_low), dtype=np.float32)
    ranking *= np.float32(w_rel / r_span if r_span else 0.0)
    g_low, g_span = columns.growth_low, columns.growth_span
    if w_rec and g_span:
        np.add(ranking, (columns.growth - g_low) * (w_rec / g_span), out=ranking, casting="unsafe")
    if w_imp:
        ranking += w_imp * columns.importance_norm
    return ranking
