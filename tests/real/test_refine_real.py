"""Self-Refine and ReFeed on the real embedded model (small, so the suite stays fast)."""

from __future__ import annotations

import pytest

from lm.config import LocalModelConfig
from memory import InMemoryStore, MemoryStream, new_memory
from reflection.refeed import ReFeed, ReFeedConfig, stream_retriever
from reflection.self_refine import SelfRefine, SelfRefineConfig

pytestmark = pytest.mark.real_model


def test_self_refine_runs_generate_feedback_refine(real_chat_model) -> None:  # type: ignore[no-untyped-def]
    model = real_chat_model.model_copy(update={"settings": LocalModelConfig(max_new_tokens=40)})
    history = SelfRefine(model, config=SelfRefineConfig(max_iters=1)).run(
        "Write one sentence that uses all of these words: magnet, iron, attract."
    )
    assert history.steps[0].output and history.steps[0].feedback
    assert len(history.steps) in (1, 2)
    print([s.model_dump() for s in history.steps])


def test_refeed_retrieves_with_answers_and_scores_both(real_chat_model, real_embedder) -> None:  # type: ignore[no-untyped-def]
    stream = MemoryStream(InMemoryStore(), real_embedder)
    facts = [
        "a magnet attracts magnetic metals such as iron",
        "copper is not a magnetic metal",
        "plants need sunlight to grow",
        "the moon orbits the earth",
    ]
    stream.add_many([new_memory(text=f, owner="book", kind="fact", importance=1) for f in facts])
    model = real_chat_model.model_copy(update={"settings": LocalModelConfig(max_new_tokens=24)})
    result = ReFeed(
        model,
        real_chat_model,
        stream_retriever(stream, "book", "embedding"),
        ReFeedConfig(samples=2, keep=2),
    ).run("Can a magnet attract a copper penny?")
    print(result.model_dump())
    assert len(result.samples) == 2 and result.refined
    assert set(result.documents) <= set(facts) and len(result.documents) == 2
    assert "copper is not a magnetic metal" in result.documents
    assert result.initial_score < 0 and result.refined_score < 0
    assert result.answer in (result.initial, result.refined)
