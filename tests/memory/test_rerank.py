"""The reranker step of retrieval: it reads only the policy's `rerank` most relevant memories,
can lift one of them into the top k, never one from beyond them, and costs nothing when off."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import InMemoryStore, ManualClock, MemoryStream, StreamConfig
from mindstream.memory.relevance import reranked


class Prefers:
    """Scores a memory 1 when it holds `word`, else 0; remembers what it was shown."""

    def __init__(self, word: str) -> None:
        self.word = word
        self.shown: list[list[str]] = []

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        self.shown.append(list(texts))
        return np.array([float(self.word in t) for t in texts], dtype=np.float32)


TEXTS = [
    "the garage code is 5071",
    "the garage door squeaks",
    "garage sale on saturday",
    "we cleaned the garage",
    "the side gate padlock is 3318",  # what the question needs, least like it in words
]


def _stream(reranker: Prefers | None, rerank: int | None) -> MemoryStream:
    config = StreamConfig(mode="embedding", gate=2, rerank=rerank, rerank_weight=2.0)
    stream = MemoryStream(
        InMemoryStore(), HashEmbeddings(), clock=ManualClock(), config=config, reranker=reranker
    )
    for text in TEXTS:
        stream.add(text, owner="leo", importance=5)
    return stream


def _top(stream: MemoryStream, k: int = 2) -> list[str]:
    return [m.record.text for m in stream.retrieve("garage code", k, owner="leo")]


def test_the_reranker_lifts_a_candidate_it_read_into_the_top_k() -> None:
    plain = _top(_stream(None, None))
    assert TEXTS[4] not in plain
    judge = Prefers("padlock")
    assert TEXTS[4] in _top(_stream(judge, len(TEXTS)))
    assert sorted(judge.shown[0]) == sorted(TEXTS)


def test_it_reads_only_the_most_relevant_and_never_lifts_what_it_did_not_read() -> None:
    judge = Prefers("padlock")
    top = _top(_stream(judge, 3))
    assert TEXTS[4] not in top and len(judge.shown[0]) == 3 and TEXTS[4] not in judge.shown[0]


def test_off_the_reranker_is_never_asked() -> None:
    judge = Prefers("padlock")
    assert _top(_stream(judge, None)) == _top(_stream(None, None)) and judge.shown == []


def test_reranked_keeps_the_read_candidates_above_the_rest() -> None:
    scores = np.array([0.9, 0.1, 0.8, 0.7], dtype=np.float32)
    out = reranked(scores, None, "q", lambda text, rows: -rows.astype(np.float32), 2, 1.0)
    assert out[[0, 2]].min() > out[[1, 3]].max()
    assert out[0] > out[2]  # the reranker agrees with relevance here: row 0 scored higher
