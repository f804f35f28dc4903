"""The shipped reranker on the real models: its onnxruntime graph scores as the merged
torch model does (float32); re-scoring the tuned retriever's top candidates (as many as it
was trained for) on the dev chats finds more answering turns in the top 5 than the
retriever alone (int8, as shipped); a policy with `rerank` asks it through the composition
root."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from mindstream.compose import Parts
from mindstream.lab.experiments import truth_data
from mindstream.lab.training import retriever_data
from mindstream.lab.training.reranker import RerankerTraining, recall_reranked
from mindstream.lm.backends.embeddings import RETRIEVER_DIR, MiniLMEmbeddings
from mindstream.lm.backends.loading import minilm_model_dir
from mindstream.lm.judges.reranker import (
    RERANKER_DIR,
    load_reranker,
    merged_reranker,
    trained_candidates,
)
from mindstream.memory import ManualClock
from mindstream.memory.records import ChangePolicy

pytestmark = pytest.mark.real_model

QUESTION = "what hours am I working these days?"
TURNS = [
    "monday to friday, 8 till 4, and every other saturday morning",
    "working on the garden this weekend, the hedge is a jungle",
    "these days I'm so tired, the baby wakes up every two hours",
    "my brother is working in Denver now",
    "I am working on my Spanish, 20 minutes a day",
]


def test_the_exported_reranker_scores_as_the_merged_model() -> None:
    import torch
    from transformers import AutoTokenizer

    got = load_reranker(threads=1, quantized=False).scores(QUESTION, TURNS)
    base = minilm_model_dir()
    batch = AutoTokenizer.from_pretrained(str(base))(
        [QUESTION] * len(TURNS), TURNS, padding=True, return_tensors="pt"
    )
    with torch.no_grad():
        expected = merged_reranker(RERANKER_DIR, base)(**batch).logits.squeeze(-1).numpy()
    assert np.abs(got - expected).max() < 1e-3  # the int8 default is measured on dev below


def test_reranking_the_retrievers_top_candidates_finds_more_answers_in_the_top_5_on_dev() -> None:
    dev = retriever_data.from_chats(truth_data.split("dev"))
    embed = MiniLMEmbeddings(threads=1, adapter=RETRIEVER_DIR).embed_array
    config = RerankerTraining(candidates=trained_candidates(), weight=0.5)
    alone = recall_reranked(dev, embed, None, config, 5)
    reranked = recall_reranked(dev, embed, load_reranker(threads=1).scores, config, 5)
    print(f"\ndev R@5: retriever {alone:.3f}, reranked {reranked:.3f}")
    assert reranked > alone


class Counted:
    def __init__(self, reranker: object) -> None:
        self.reranker, self.texts = reranker, 0

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.reranker.scores(query, texts)  # type: ignore[attr-defined,no-any-return]


def test_a_policy_that_asks_for_it_reranks_with_the_shipped_model(tmp_path) -> None:  # type: ignore[no-untyped-def]
    parts = Parts.load(None)
    policy = parts.config.assistant.stream.model_copy(
        update={"rerank": 20, "changes": ChangePolicy()}  # the query path only
    )
    stream = parts.stream(tmp_path / "store", policy=policy, clock=ManualClock())
    stream.reranker = counted = Counted(stream.reranker)
    for text in TURNS:
        stream.add(text, owner="ann", kind="dialogue", importance=5)
    found = stream.retrieve(QUESTION, 3, owner="ann")
    assert len(found) == 3 and counted.texts == len(TURNS)
