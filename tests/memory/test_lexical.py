"""The incremental BM25 index gives bm25s's scores, whatever order the memories arrive in."""

from __future__ import annotations

import random

import bm25s
import numpy as np
import pytest

from mindstream.memory.lexical import LexicalIndex

WORDS = [
    "cat",
    "dog",
    "party",
    "cafe",
    "bread",
    "river",
    "lisbon",
    "porto",
    "rent",
    "job",
    "music",
    "the",
    "a",
    "of",
    "is",
    "and",
    "we",
]


def _corpus(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=rng.randint(0, 12))) for _ in range(n)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scores_equal_bm25s_after_any_appends(seed: int) -> None:
    corpus = _corpus(60, seed)
    index = LexicalIndex()
    for start in range(0, len(corpus), 7):  # arrives in pieces
        index.append(corpus[start : start + 7])
    reference = bm25s.BM25()
    reference.index(
        bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False
    )
    for query in ("cat party", "lisbon rent rent", "the a of", "unknown words", "Dog, CAFE!"):
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
        expected = reference.get_scores(tokens) if tokens else np.zeros(len(corpus))
        assert index.scores(query) == pytest.approx(expected, abs=1e-5), query


def test_an_empty_index_scores_nothing() -> None:
    index = LexicalIndex()
    assert index.scores("anything").size == 0
    index.append(["", "the of"])  # only stop words: length 0
    assert list(index.scores("cat")) == [0.0, 0.0]
