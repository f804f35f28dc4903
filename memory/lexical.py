"""BM25 over memory text, per owner (TeachMe indexed facts by their own words).

The scores are bm25s's (Lucene variant, k1 = 1.5, b = 0.75, its tokenizer and English stop
words), but the index grows with every memory instead of being rebuilt: each term keeps its
postings (memory rows and term counts) in compact arrays, and a query adds up its terms' exact
contributions at the index's current size. An assistant that adds a memory between every two
searches over 100k memories would otherwise rebuild the whole index each time.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import Counter

import numpy as np

K1, B = 1.5, 0.75
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


class LexicalIndex:
    """BM25 scores of every memory of one owner, aligned with the owner's index rows."""

    def __init__(self) -> None:
        self.stopwords = _stopwords()
        self.size = 0
        self.total_length = 0
        self.lengths = array("f")
        self.vocab: dict[str, int] = {}
        self.rows: list[array[int]] = []  # per term: the rows it occurs in
        self.counts: list[array[float]] = []  # per term: how often, in each of those rows

    def tokens(self, text: str) -> list[str]:
        return [t for t in _TOKEN.findall(text.lower()) if t not in self.stopwords]

    def append(self, texts: list[str]) -> None:
        for text in texts:
            tokens = self.tokens(text)
            for term, count in Counter(tokens).items():
                term_id = self.vocab.get(term)
                if term_id is None:
                    term_id = self.vocab[term] = len(self.rows)
                    self.rows.append(array("i"))
                    self.counts.append(array("f"))
                self.rows[term_id].append(self.size)
                self.counts[term_id].append(float(count))
            self.lengths.append(float(len(tokens)))
            self.total_length += len(tokens)
            self.size += 1

    def scores(self, query: str) -> np.ndarray:
        """BM25 of the query (repeated words count again, as in bm25s) for every row."""
        scores = np.zeros(self.size, dtype=np.float32)
        if not self.size:
            return scores
        lengths = np.frombuffer(self.lengths, dtype=np.float32)
        norm = K1 * ((1 - B) + B * lengths / (self.total_length / self.size or 1.0))
        for term in self.tokens(query):
            term_id = self.vocab.get(term)
            if term_id is None:
                continue
            rows = np.frombuffer(self.rows[term_id], dtype=np.int32)
            counts = np.frombuffer(self.counts[term_id], dtype=np.float32)
            df = len(rows)
            idf = math.log(1 + (self.size - df + 0.5) / (df + 0.5))
            scores[rows] += idf * counts / (norm[rows] + counts)
        return scores
