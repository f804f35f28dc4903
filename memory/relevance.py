"""Relevance of a query to an owner's memories (embedding, BM25 or both), and the gate that
keeps only the most relevant candidates for the Park score to re-rank."""

from __future__ import annotations

import numpy as np

from memory.errors import InvalidMemoryError
from memory.index import OwnerIndex
from memory.lexical import LexicalIndex
from memory.records import RelevanceMode
from memory.scoring import minmax

MODES = ("embedding", "bm25", "hybrid")


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise InvalidMemoryError(f"mode: {mode!r} is not embedding, bm25 or hybrid")


def relevance(
    index: OwnerIndex,
    lexical: LexicalIndex,
    query: str,
    vector: np.ndarray | None,
    rows: np.ndarray | None,
    mode: RelevanceMode,
    alpha: float,
) -> np.ndarray:
    """Relevance of every candidate (`rows`, or every memory), aligned with them. Hybrid mixes
    min-max normalised BM25 (weight `alpha`) and cosine."""
    if mode == "bm25":
        scores = lexical.scores(query)
        return scores if rows is None else scores[rows]
    assert vector is not None
    cosine = index.relevance(vector, rows)
    if mode == "embedding":
        return cosine
    lexical_scores = lexical.scores(query)
    lexical_scores = lexical_scores if rows is None else lexical_scores[rows]
    return alpha * minmax(lexical_scores) + (1 - alpha) * minmax(cosine)


def gate(
    scores: np.ndarray, rows: np.ndarray | None, keep: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """The `keep` most relevant candidates: their relevance and their rows."""
    if scores.size <= keep:
        return scores, rows
    chosen = np.sort(np.argpartition(-scores, keep - 1)[:keep])
    return scores[chosen], (chosen if rows is None else rows[chosen])
