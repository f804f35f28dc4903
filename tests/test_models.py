"""The models of a configuration: each judge chosen once, the same way for every judge, and
nothing loaded or contacted until a part is used; one call swaps any part."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindstream.compose import Parts
from mindstream.config import load_config
from mindstream.lm import CallLedger
from mindstream.lm.config import DEFAULT_MODEL_SPEC
from mindstream.lm.fakes import FakeJudge, FakeScorer, HashEmbeddings, ScriptedChatModel
from mindstream.lm.judges.poignancy import AdapterPoignancy, ScorerPoignancy
from mindstream.lm.judges.relation import AdapterJudge, AdapterReactions, ScorerJudge
from mindstream.lm.judges.verifier import ScorerVerifier
from mindstream.memory.confirmation import ConfirmedJudge
from mindstream.models import (
    DeferredJudge,
    DeferredPairJudge,
    DeferredPoignancy,
    DeferredReactions,
    DeferredVerifier,
    Models,
)


def models_for(spec: str) -> Models:
    config = load_config(None, {}, {"model.spec": spec})
    return Models(config.model, config.embedder, CallLedger())


def test_the_embedded_model_gets_its_adapters_on_first_use_only() -> None:
    models = models_for(DEFAULT_MODEL_SPEC)
    judges = [
        models.verifier,
        models.judge,
        models.reactions,
        models.poignancy,
        models.change_judge,
    ]
    kinds = [
        DeferredVerifier,
        DeferredJudge,
        DeferredReactions,
        DeferredPoignancy,
        DeferredPairJudge,
    ]
    assert [type(j) for j in judges] == kinds
    assert all(j._built is None for j in judges)  # type: ignore[attr-defined]  # nothing loaded
    assert not models.built("chat") and not models.built("scorer")


def test_a_server_without_the_adapters_answers_itself_and_one_with_them_serves_them() -> None:
    bare = models_for("openai:some-model").override(scorer=FakeScorer())
    bare.__dict__["served_adapters"] = set()  # what the server lists, asked on first use
    assert isinstance(bare.judge, DeferredJudge)
    assert isinstance(bare.judge.built, ScorerJudge)
    assert isinstance(bare.verifier.built, ScorerVerifier)  # type: ignore[attr-defined]
    assert isinstance(bare.poignancy.built, ScorerPoignancy)  # type: ignore[union-attr]
    served = models_for("openai:some-model")
    served.__dict__["served_adapters"] = {
        "mindstream-judge-replaces",
        "mindstream-judge-contradicts",
        "mindstream-judge-reacts",
        "mindstream-judge-poignant",
    }
    assert isinstance(served.judge.built, AdapterJudge)  # type: ignore[attr-defined]
    assert isinstance(served.reactions.built, AdapterReactions)  # type: ignore[union-attr]
    assert isinstance(served.poignancy.built, AdapterPoignancy)  # type: ignore[union-attr]
    assert not served.built("scorer")  # the served adapters need no scorer


def test_another_local_model_answers_itself_and_has_no_reaction_judge() -> None:
    models = models_for("hf:/models/another-causal-lm").override(scorer=FakeScorer())
    assert isinstance(models.judge, ScorerJudge)
    assert isinstance(models.verifier, ScorerVerifier)
    assert models.reactions is None and models.poignancy is None


def test_one_call_swaps_a_part_and_an_unknown_name_is_refused(tmp_path: Path) -> None:
    parts = Parts(load_config(None, {}, {"store.kind": "memory"}))
    chat, judge = ScriptedChatModel(default="ok"), FakeJudge(replaces=lambda old, new: 0.9)
    parts.override(chat=chat, embedder=HashEmbeddings(), change_judge=judge)
    assert parts.models.chat is chat
    stream_judge = parts.judge_for(parts.config.assistant.stream)
    assert isinstance(stream_judge, DeferredPairJudge)  # the pair judges alone, as configured
    assert stream_judge.replaces_batch([("I live in Leeds", "I live in York")]) == [0.9]
    confirming = parts.config.assistant.stream.with_changes(confirm_from=0.9)
    confirmed = parts.judge_for(confirming)
    assert isinstance(confirmed, ConfirmedJudge)  # the chat model confirms when asked to
    assert isinstance(confirmed.judge, DeferredPairJudge)
    with pytest.raises(ValueError, match=r"no part named 'model'.*chat"):
        parts.override(model=chat)
    saved = tmp_path / "saved.yaml"
    saved.write_text("reflection:\n  threshold: 7\n")
    again = parts.under(saved)
    assert again.config.reflection.threshold == 7 and again.models.chat is chat


def test_a_benchmark_can_load_a_part_before_timing() -> None:
    models = models_for("openai:some-model").override(scorer=FakeScorer())
    models.__dict__["served_adapters"] = set()
    assert isinstance(models.ready("judge"), ScorerJudge)
    assert models.ready("scorer") is models.scorer


def test_the_embedder_is_the_dialogue_retriever_unless_the_stock_model_is_asked_for() -> None:
    from mindstream.lm.backends.embeddings import RETRIEVER_DIR, MiniLMEmbeddings

    tuned = models_for(DEFAULT_MODEL_SPEC).embedder
    assert isinstance(tuned, MiniLMEmbeddings) and tuned.adapter == RETRIEVER_DIR
    assert tuned.name.startswith("minilm-dialogue-")
    config = load_config(None, {}, {"embedder.name": "minilm"})
    stock = Models(config.model, config.embedder, CallLedger()).embedder
    assert isinstance(stock, MiniLMEmbeddings) and stock.adapter is None and stock.name == "minilm"


def test_the_reranker_is_built_on_first_query_and_a_missing_one_leaves_relevance_alone(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from mindstream.lm.judges import reranker as module
    from mindstream.models import DeferredReranker

    models = models_for(DEFAULT_MODEL_SPEC)
    deferred = models.reranker
    assert isinstance(deferred, DeferredReranker) and deferred._built is None

    def missing(**_: object) -> object:
        raise FileNotFoundError("adapters/reranker: no reranker here")

    monkeypatch.setattr(module, "load_reranker", missing)
    assert list(deferred.scores("q", ["a", "b"])) == [0.0, 0.0]
    assert "retrieval ranks by relevance alone" in caplog.text
