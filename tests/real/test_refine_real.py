"""Self-Refine and ReFeed on the real embedded model (small, so the suite stays fast)."""

from __future__ import annotations

import pytest

from mindstream.memory import InMemoryStore, MemoryStream, new_memory
from mindstream.reflection.prompts import REFEED_SCORE_CONTEXT
from mindstream.reflection.refeed import ReFeed, ReFeedConfig, _listed, stream_retriever
from mindstream.reflection.self_refine import SelfRefine, SelfRefineConfig, stop_when_satisfied

pytestmark = pytest.mark.real_model


def test_self_refine_runs_generate_feedback_refine(real_chat_model) -> None:  # type: ignore[no-untyped-def]
    config = SelfRefineConfig(max_iters=1, max_tokens=40)
    history = SelfRefine(real_chat_model, config=config).run(
        "Write one sentence that uses all of these words: magnet, iron, attract."
    )
    print([s.model_dump() for s in history.steps])
    first = history.steps[0]
    assert first.output and first.feedback
    # The model's feedback decides: a stop phrase ends it at y0, anything else is refined once.
    assert history.stopped_by == (
        "stop condition" if stop_when_satisfied(first.feedback, 0) else "max_iters"
    )
    assert len(history.steps) == (1 if history.stopped_by == "stop condition" else 2)


def test_refeed_retrieves_with_answers_and_scores_both(real_chat_model, real_embedder) -> None:  # type: ignore[no-untyped-def]
    stream = MemoryStream(InMemoryStore(), real_embedder)
    facts = [
        "a magnet attracts magnetic metals such as iron",
        "copper is not a magnetic metal",
        "plants need sunlight to grow",
        "the moon orbits the earth",
    ]
    stream.add_many([new_memory(text=f, owner="book", kind="fact", importance=1) for f in facts])
    result = ReFeed(
        real_chat_model,
        real_chat_model,
        stream_retriever(stream, "book", "embedding"),
        ReFeedConfig(samples=2, keep=2, max_tokens=24),
    ).run("Can a magnet attract a copper penny?")
    print(result.model_dump())
    assert len(result.samples) == 2 and result.refined
    assert set(result.documents) <= set(facts) and len(result.documents) == 2
    assert "copper is not a magnetic metal" in result.documents
    # Kept by the answers' mean log-likelihood given the documents, as the model scores them.
    context = REFEED_SCORE_CONTEXT.format(
        documents=_listed(result.documents), question=result.question
    )
    expected = real_chat_model.choose_batch(
        [(context, [" " + result.initial, " " + result.refined])]
    )[0]
    assert [result.initial_score, result.refined_score] == pytest.approx(expected, abs=1e-4)
    assert result.initial_score < 0 and result.refined_score < 0
    better = result.refined if expected[1] >= expected[0] else result.initial
    assert result.answer == better
