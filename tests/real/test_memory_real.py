"""The memory stream on real MiniLM embeddings and real model importance ratings."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mindstream.memory import (
    ChromaStore,
    ManualClock,
    MemoryStream,
    RetrievalWeights,
    new_memory,
    scorer_rater,
)
from mindstream.memory.retriever import MemoryStreamRetriever
from tests.conftest import DATA

pytestmark = pytest.mark.real_model

START = datetime(2023, 2, 6, tzinfo=UTC)
# query -> (memories expected in the top 5, how many of them must be there).
# Measured with hybrid relevance and the original code's weights (0.5/2/3): 11 of 12 found.
# "Who is coming..." finds one of its two invitations. With the paper's equal weights and
# embedding relevance only 3 of 6 queries are fully answered: over 30 memories, min-max
# normalised recency and importance pull the newest and most "important" memories into
# every top 5.
EXPECTED = {
    "What does Isabella think about the party?": ({"w04", "w15", "w29"}, 3),
    "Who is coming to the Valentine's Day party?": ({"w07", "w08"}, 1),
    "What does Isabella know about Sam Moore's election?": ({"w10", "w20"}, 2),
    "What did Isabella eat for breakfast?": ({"w06", "w22"}, 2),
    "What is wrong with the espresso machine?": ({"w23", "w24"}, 2),
    "Who is helping Isabella decorate?": ({"w18"}, 1),
}


@pytest.fixture(scope="module")
def week_stream(real_chat_model, real_embedder, tmp_path_factory):  # type: ignore[no-untyped-def]
    items = [json.loads(line) for line in (DATA / "isabella_week.jsonl").read_text().splitlines()]
    clock = ManualClock(START)
    store = ChromaStore.persistent(Path(tmp_path_factory.mktemp("week")) / "store")
    stream = MemoryStream(store, real_embedder, clock=clock, rater=scorer_rater(real_chat_model))
    memories = [
        new_memory(
            text=item["text"],
            owner="isabella",
            kind=item["kind"],
            created_at=START + timedelta(days=item["day"], hours=item["hour"]),
            metadata={"label": item["id"]},
        )
        for item in items
    ]
    stream.add_many(memories)
    clock.set(START + timedelta(days=7))
    return stream


@pytest.mark.parametrize("query", list(EXPECTED))
def test_queries_find_the_expected_memories_in_the_top_five(week_stream, query: str) -> None:  # type: ignore[no-untyped-def]
    expected, needed = EXPECTED[query]
    found = week_stream.retrieve(
        query,
        5,
        owner="isabella",
        touch=False,
        mode="hybrid",
        weights=RetrievalWeights.original_code(),
    )
    labels = {m.record.metadata["label"] for m in found}
    assert len(expected & labels) >= needed, [m.record.text for m in found]


def test_model_rated_importance_separates_party_news_from_chores(week_stream) -> None:  # type: ignore[no-untyped-def]
    by_label = {r.metadata["label"]: r.importance for r in week_stream.records("isabella")}
    chores = [by_label[k] for k in ("w09", "w19", "w26", "w28")]
    events = [by_label[k] for k in ("w03", "w10", "w15", "w27")]
    assert min(events) > max(chores) or sum(events) / 4 > sum(chores) / 4 + 0.5, by_label


def test_langchain_retriever_on_real_embeddings(week_stream) -> None:  # type: ignore[no-untyped-def]
    retriever = MemoryStreamRetriever(
        memory_stream=week_stream, owner="isabella", k=3, mode="hybrid"
    )
    docs = retriever.invoke("espresso machine repair")
    assert any("espresso" in d.page_content for d in docs)


SHARED_BOOK = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "openbookqa"


@pytest.mark.skipif(not SHARED_BOOK.is_dir(), reason="shared data not beside the repository")
@pytest.mark.parametrize("scan", ["kernel", "seven", "simsimd"])
def test_int8_search_equals_float32_on_real_embeddings(
    real_embedder, scan: str, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The OpenBookQA book embedded by MiniLM, dev questions as queries: the first pass
    (compiled kernel with its block summary and ranking guess on int8 or, here from the first
    row, seven-bit codes; or SimSIMD's int8 scan) returns the float32 top 10 and scores,
    query after query with touches in between."""
    import numpy as np

    from mindstream.lab.experiments.openbookqa import load_book, load_split
    from mindstream.memory.index import OwnerIndex
    from mindstream.memory.kernels import seven_bit_kernels

    monkeypatch.setenv("MINDSTREAM_KERNELS", "0" if scan == "simsimd" else "1")
    if scan == "seven":
        if seven_bit_kernels() is None:
            pytest.skip("this CPU cannot run the seven-bit scan")
        monkeypatch.setattr("mindstream.memory.sevenbit.SEVEN_BIT_FROM", 0)
    book = load_book(SHARED_BOOK)
    vectors = real_embedder.embed_array(book).astype(np.float32)
    queries = real_embedder.embed_array([q.stem for q in load_split("dev", SHARED_BOOK)[:20]])
    rng = np.random.default_rng(0)
    n = len(book)
    importance, last = rng.integers(1, 11, n).astype(np.float32), rng.uniform(0, 720, n)
    indexes = [OwnerIndex(vectors.shape[1], 0.99, precision) for precision in ("float32", "int8")]
    for index in indexes:
        ids = [str(i) for i in range(n)]
        index.append(ids, vectors, importance, last, last, np.zeros(n), np.zeros(n))
    kind = type(indexes[1].codes).__name__
    assert kind == ("SevenBitCodes" if scan == "seven" else "Int8Codes")
    for step, query in enumerate(queries.astype(np.float32)):
        exact, first_pass = (
            index.search(query, RetrievalWeights.original_code(), 10) for index in indexes
        )
        assert first_pass.rows.tolist() == exact.rows.tolist()
        assert np.allclose(first_pass.score, exact.score, atol=1e-5)
        for index in indexes:
            index.touch(exact.rows, 720.0 + step)
