"""The memory stream on fakes: scoring, filters, last access, importance, provenance, errors."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import (
    CachedRater,
    ChromaStore,
    EmbeddingShapeError,
    InMemoryStore,
    InvalidMemoryError,
    ManualClock,
    MemoryKind,
    MemoryNotFoundError,
    MemoryStatus,
    MemoryStream,
    RetrievalWeights,
    StorePathError,
    StreamConfig,
    new_memory,
)
from mindstream.memory.retriever import MemoryStreamRetriever


def test_a_memory_touched_an_hour_ago_outranks_one_touched_a_week_ago(
    stream: MemoryStream, clock: ManualClock
) -> None:
    old = stream.add(
        "coffee at Hobbs Cafe",
        owner="ana",
        importance=5,
        created_at=clock.now() - timedelta(days=7),
    )
    new = stream.add(
        "coffee at Hobbs Cafe",
        owner="ana",
        importance=5,
        created_at=clock.now() - timedelta(hours=1),
    )
    found = stream.retrieve("coffee", 2, owner="ana")
    assert [m.record.id for m in found] == [new.id, old.id]
    assert found[0].recency == 1.0 and found[1].recency == 0.0
    assert found[0].recency_raw == pytest.approx(0.995**1)
    assert found[1].recency_raw == pytest.approx(0.995 ** (7 * 24))


def test_score_is_the_weighted_sum_of_normalised_parts(stream: MemoryStream) -> None:
    for i, text in enumerate(
        ["the party is on Friday", "I like tea", "party planning at the cafe"]
    ):
        stream.add(text, owner="ana", importance=2 + 3 * i)
    weights = RetrievalWeights(recency=0.5, importance=2.0, relevance=3.0)
    for m in stream.retrieve("party", 3, owner="ana", weights=weights):
        assert (
            0.0
            <= min(m.recency, m.importance, m.relevance)
            <= max(m.recency, m.importance, m.relevance)
            <= 1.0
        )
        assert m.score == pytest.approx(
            0.5 * m.recency + 2 * m.importance + 3 * m.relevance, abs=1e-5
        )


def test_weights_change_the_ranking(stream: MemoryStream) -> None:
    stream.add("talked about the weather", owner="ana", importance=9)
    stream.add("the party is at the cafe", owner="ana", importance=2)
    by_importance = stream.retrieve(
        "party cafe", 1, owner="ana", weights=RetrievalWeights(recency=0, importance=1, relevance=0)
    )
    by_relevance = stream.retrieve(
        "party cafe", 1, owner="ana", weights=RetrievalWeights(recency=0, importance=0, relevance=1)
    )
    assert by_importance[0].record.text == "talked about the weather"
    assert by_relevance[0].record.text == "the party is at the cafe"


def test_retrieval_updates_last_access_and_writes_it_back(
    tmp_path: Path, clock: ManualClock
) -> None:
    stream = MemoryStream.open(tmp_path / "s", HashEmbeddings(), clock=clock)
    first = stream.add("walk in the park", owner="ana", importance=3)
    stream.add("read a book", owner="ana", importance=3)
    clock.advance(hours=5)
    stream.retrieve("park", 1, owner="ana")
    assert stream.get(first.id).last_accessed_at == clock.now()
    stream.close()
    reopened = MemoryStream(ChromaStore.persistent(tmp_path / "s"), HashEmbeddings(), clock=clock)
    assert reopened.get(first.id).last_accessed_at == clock.now()
    before = [
        (m.record.id, round(m.score, 6))
        for m in stream.retrieve("book", 2, owner="ana", touch=False)
    ]
    after = [
        (m.record.id, round(m.score, 6))
        for m in reopened.retrieve("book", 2, owner="ana", touch=False)
    ]
    assert before == after


def test_filters_by_kind_time_owner_and_status(stream: MemoryStream, clock: ManualClock) -> None:
    early = stream.add("plan: bake bread", owner="ana", kind="plan", importance=4)
    clock.advance(hours=3)
    talk = stream.add("talked with Ben about bread", owner="ana", kind="dialogue", importance=4)
    stream.add("bread for Ben", owner="ben", importance=4)
    assert {m.record.id for m in stream.retrieve("bread", 5, owner="ana", kinds=["plan"])} == {
        early.id
    }
    assert {
        m.record.id
        for m in stream.retrieve("bread", 5, owner="ana", since=clock.now() - timedelta(hours=1))
    } == {talk.id}
    assert {
        m.record.id
        for m in stream.retrieve("bread", 5, owner="ana", until=clock.now() - timedelta(hours=1))
    } == {early.id}
    stream.forget(talk.id)
    assert {m.record.id for m in stream.retrieve("bread", 5, owner="ana")} == {early.id}
    assert len(stream.retrieve("bread", 5, owner="ana", include_inactive=True)) == 2
    assert stream.retrieve("bread", 5, owner="nobody") == []


def test_bm25_and_hybrid_modes(stream: MemoryStream) -> None:
    stream.add("A magnet can attract iron nails", owner="u", kind="fact", importance=5)
    stream.add("Copper is not attracted by magnets", owner="u", kind="fact", importance=5)
    stream.add("The cafe opens at eight", owner="u", kind="fact", importance=5)
    top = stream.retrieve(
        "copper pan", 1, owner="u", mode="bm25", weights=RetrievalWeights(recency=0, importance=0)
    )
    assert top[0].record.text.startswith("Copper")
    hybrid = stream.retrieve("magnet iron", 3, owner="u", mode="hybrid")
    assert hybrid[0].record.text.startswith("A magnet")
    with pytest.raises(InvalidMemoryError, match="mode"):
        stream.retrieve("x", 1, owner="u", mode="telepathy")  # type: ignore[arg-type]


def test_importance_is_rated_once_per_text_in_one_batch(clock: ManualClock) -> None:
    calls: list[list[str]] = []

    def rate(texts):  # type: ignore[no-untyped-def]
        calls.append(list(texts))
        return [9.0 if "fire" in t else 2.0 for t in texts]

    stream = MemoryStream(InMemoryStore(), HashEmbeddings(), clock=clock, rater=CachedRater(rate))
    records = stream.add_many(
        [new_memory(text=t, owner="ana") for t in ["the house is on fire", "made tea", "made tea"]]
        + [new_memory(text="you were wrong about copper", owner="ana", kind="correction")]
    )
    assert [r.importance for r in records] == [9.0, 2.0, 2.0, 8.0]
    stream.add("made tea", owner="ana")
    assert calls == [["the house is on fire", "made tea"]]


def test_missing_importance_without_rater_is_refused(stream: MemoryStream) -> None:
    with pytest.raises(InvalidMemoryError, match="importance"):
        stream.add("no rating", owner="ana")
    assert len(stream) == 0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"text": "   "}, "text"),
        ({"kind": "dream"}, "kind"),
        ({"importance": 11}, "importance"),
        ({"owner": ""}, "owner"),
    ],
)
def test_bad_memories_get_clear_errors_and_nothing_is_stored(
    stream: MemoryStream, fields: dict, message: str
) -> None:
    args = {"text": "hello", "owner": "ana", "importance": 3, **fields}
    with pytest.raises(InvalidMemoryError, match=message):
        stream.add(args.pop("text"), owner=args.pop("owner"), **args)
    assert len(stream) == 0


def test_wrong_embedding_size_is_refused(stream: MemoryStream) -> None:
    with pytest.raises(EmbeddingShapeError, match="384"):
        stream.add_many(
            [new_memory(text="x", owner="a", importance=2)], np.ones((1, 12), dtype=np.float32)
        )
    assert len(stream) == 0


def test_a_store_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "not-a-folder"
    path.write_text("x")
    with pytest.raises(StorePathError, match="is a file"):
        ChromaStore.persistent(path)


def test_provenance_trees_and_stale_reflections(stream: MemoryStream) -> None:
    a = stream.add("Klaus reads about gentrification", owner="k", importance=4)
    b = stream.add("Klaus writes his paper at the library", owner="k", importance=5)
    insight = stream.add(
        "Klaus is dedicated to research",
        owner="k",
        kind="reflection",
        importance=7,
        evidence=(a.id, b.id),
    )
    higher = stream.add(
        "Klaus cares about his community",
        owner="k",
        kind="reflection",
        importance=8,
        evidence=(insight.id,),
    )
    assert [r.id for r in stream.evidence_of(higher.id)] == [insight.id, a.id, b.id]
    assert [r.id for r in stream.dependents_of(a.id)] == [insight.id, higher.id]
    with pytest.raises(InvalidMemoryError, match="evidence"):
        stream.add("invented", owner="k", kind="reflection", importance=5, evidence=("nope",))
    stream.forget(a.id)
    assert {r.id for r in stream.stale("k")} == {insight.id, higher.id}
    assert stream.get(a.id).status is MemoryStatus.FORGOTTEN


def test_supersede_keeps_the_old_memory_marked(stream: MemoryStream) -> None:
    old = stream.add("A magnet can attract copper", owner="u", kind="fact", importance=5)
    new = stream.supersede(old.id, "A magnet cannot attract copper")
    assert stream.get(old.id).status is MemoryStatus.SUPERSEDED
    assert stream.get(old.id).replaced_by == new.id
    assert new.provenance.supersedes == (old.id,) and new.kind is MemoryKind.FACT
    assert [m.record.id for m in stream.retrieve("magnet copper", 5, owner="u")] == [new.id]


def test_forget_all_and_unknown_ids(stream: MemoryStream) -> None:
    for i in range(3):
        stream.add(f"note {i}", owner="u", importance=2)
    assert stream.forget_all("u") == 3
    assert stream.retrieve("note", 5, owner="u") == []
    with pytest.raises(MemoryNotFoundError):
        stream.get("missing")


def test_recent_returns_the_latest_active_in_order(stream: MemoryStream) -> None:
    ids = [stream.add(f"event {i}", owner="u", importance=2).id for i in range(5)]
    stream.forget(ids[4])
    assert [r.id for r in stream.recent(2, owner="u")] == ids[2:4]


def test_index_grows_past_its_first_capacity(stream: MemoryStream) -> None:
    items = [new_memory(text=f"memory {i}", owner="u", importance=1 + i % 9) for i in range(2500)]
    items.append(new_memory(text="the lighthouse keeper's diary", owner="u", importance=3))
    stream.add_many(items)
    weights = RetrievalWeights(recency=0, importance=0)
    found = stream.retrieve("lighthouse keeper diary", 1, owner="u", weights=weights)
    assert found[0].record.text == "the lighthouse keeper's diary"
    assert len(stream.recent(3000, owner="u")) == 2501


def test_ann_prefilter_rescores_candidates_from_the_store(clock: ManualClock) -> None:
    config = StreamConfig(ann_threshold=10, ann_candidates=5)
    stream = MemoryStream(InMemoryStore(), HashEmbeddings(), clock=clock, config=config)
    for i in range(30):
        stream.add(f"topic{i} detail", owner="u", importance=2)
    found = stream.retrieve("topic7", 10, owner="u")
    assert len(found) == 5 and found[0].record.text == "topic7 detail"


def test_langchain_retriever_returns_documents_with_score_parts(stream: MemoryStream) -> None:
    stream.add("Isabella is planning a party", owner="isabella", importance=6)
    retriever = MemoryStreamRetriever(memory_stream=stream, owner="isabella", k=1)
    docs = retriever.invoke("party")
    assert docs[0].page_content == "Isabella is planning a party"
    assert {"score", "recency", "importance", "relevance", "kind"} <= set(docs[0].metadata)


def test_recency_decays_per_configured_unit(clock: ManualClock) -> None:
    daily = StreamConfig(decay=0.5, recency_unit_hours=24)
    stream = MemoryStream(InMemoryStore(), HashEmbeddings(), clock=clock, config=daily)
    stream.add("tea", owner="ana", importance=5, created_at=clock.now() - timedelta(days=2))
    (found,) = stream.retrieve("tea", 1, owner="ana")
    assert found.recency_raw == pytest.approx(0.25)  # two days at 0.5 per day


def test_the_gate_lets_recency_order_only_relevant_memories(clock: ManualClock) -> None:
    """Months of chatter: without a gate, recency fills the top with the last session; with
    it, recency only decides between the relevant memories (the newer address first)."""
    weights = RetrievalWeights(recency=1, importance=0, relevance=1)
    config = StreamConfig(mode="hybrid", weights=weights)
    streams = [
        MemoryStream(InMemoryStore(), HashEmbeddings(), clock=clock, config=c)
        for c in (config, config.model_copy(update={"gate": 2}))
    ]
    now = clock.now()
    items = [("Maya lives in Porto", now - timedelta(days=120))]
    items.append(("Maya lives in Lisbon", now - timedelta(days=10)))
    items += [(f"we talked about lunch {n}", now - timedelta(hours=n)) for n in range(20)]
    for stream in streams:
        stream.add_many(
            [new_memory(text=t, owner="u", importance=5, created_at=at) for t, at in items]
        )
    plain, gated = (
        [m.record.text for m in s.retrieve("Where does Maya live?", 2, owner="u", touch=False)]
        for s in streams
    )
    assert any("lunch" in text for text in plain)
    assert gated == ["Maya lives in Lisbon", "Maya lives in Porto"]
