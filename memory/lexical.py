"""BM25 over memory text, per owner (TeachMe indexed facts by their own words).

The index is rebuilt lazily on the first lexical query after new memories arrive, so adding
stays O(1) and a stream that never asks for BM25 never pays for it.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np


class LexicalIndex:
    """BM25 scores of every memory of one owner, aligned with the owner's index rows."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._retriever: Any = None
        self._indexed = 0

    def append(self, texts: list[str]) -> None:
        self.texts.extend(texts)

    def scores(self, query: str) -> np.ndarray:
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build
        if not self.texts:
            return np.zeros(0, dtype=np.float32)
        if self._retriever is None or self._indexed != len(self.texts):
            tokens = bm25s.tokenize(self.texts, stopwords="en", show_progress=False)
            retriever = bm25s.BM25()
            retriever.index(tokens, show_progress=False)
            self._retriever, self._indexed = retriever, len(self.texts)
        query_tokens = bm25s.tokenize(
            [query], stopwords="en", show_progress=False, return_ids=False
        )
        scores = self._retriever.get_scores(query_tokens[0])
        return np.asarray(scores, dtype=np.float32)
