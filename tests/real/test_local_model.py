"""The embedded SmolLM2-135M and MiniLM on the real weights (loaded once per session)."""

from __future__ import annotations

import json
import statistics

import numpy as np
import pytest
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.lm import CallLedger, belief, choose, rate_importance
from tests.conftest import DATA

pytestmark = pytest.mark.real_model

# Measured on this machine (mean over 10 each): mundane ≈ 3.6, poignant ≈ 5.0.
POIGNANCY_MARGIN = 0.8


def _jsonl(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line]


def test_chat_answers_through_the_chat_template(real_chat_model) -> None:  # type: ignore[no-untyped-def]
    assert "Paris" in real_chat_model.invoke("What is the capital of France?").text


def test_batch_generates_every_input_in_one_call(real_chat_model) -> None:  # type: ignore[no-untyped-def]
    ledger = CallLedger()
    model = real_chat_model.model_copy(update={"callbacks": [ledger.callback()]})
    prompts = ["Name a fruit.", "Name a colour.", "Name an animal."]
    replies = model.batch(prompts, max_new_tokens=12)
    assert len(replies) == 3 and all(r.text.strip() for r in replies)
    assert ledger.usage()["chat"].calls == 3
    # Greedy decoding of one prompt alone matches its batched, left-padded decoding.
    alone = model.invoke(prompts[2], max_new_tokens=12).text
    assert alone.split()[:3] == replies[2].text.split()[:3]


def test_poignant_memories_rate_above_mundane_ones(real_chat_model) -> None:  # type: ignore[no-untyped-def]
    items = _jsonl("poignancy.jsonl")
    ratings = rate_importance(real_chat_model, [item["memory"] for item in items])
    by_group: dict[str, list[float]] = {"mundane": [], "poignant": []}
    for item, rating in zip(items, ratings, strict=True):
        assert 1.0 <= rating <= 10.0
        by_group[item["group"]].append(rating)
    margin = statistics.mean(by_group["poignant"]) - statistics.mean(by_group["mundane"])
    assert margin >= POIGNANCY_MARGIN, by_group


def test_batched_rating_equals_one_at_a_time(real_chat_model) -> None:  # type: ignore[no-untyped-def]
    memories = ["I tied my shoelaces", "My house burned down in a fire"]
    together = rate_importance(real_chat_model, memories)
    alone = [rate_importance(real_chat_model, [m])[0] for m in memories]
    assert together == pytest.approx(alone, abs=1e-3)


def test_cli_rate_orders_the_issue_examples() -> None:
    runner = CliRunner()
    sad = runner.invoke(app, ["lm", "rate", "I broke up with my partner of five years"])
    dull = runner.invoke(app, ["lm", "rate", "I brushed my teeth"])
    assert sad.exit_code == 0 and dull.exit_code == 0, sad.output + dull.output
    assert float(sad.output) > float(dull.output)


def test_loglik_prefers_sensible_continuations(real_chat_model) -> None:  # type: ignore[no-untyped-def]
    items = _jsonl("loglik_items.jsonl")
    assert len(items) >= 10
    wrong = []
    for item in items:
        sensible, nonsense = real_chat_model.loglik(
            item["prompt"], [item["sensible"], item["nonsense"]]
        )
        assert sensible.tokens >= 1 and sensible.mean == pytest.approx(
            sensible.total / sensible.tokens
        )
        if choose(real_chat_model, item["prompt"], [item["nonsense"], item["sensible"]]).index != 1:
            wrong.append(item["prompt"])
        assert sensible.total > nonsense.total, item
    assert not wrong


def test_belief_is_higher_for_true_statements(real_chat_model) -> None:  # type: ignore[no-untyped-def]
    true = ["Water freezes at 0 degrees Celsius.", "Birds have feathers.", "Dogs are mammals."]
    false = ["Water freezes at 90 degrees Celsius.", "Birds have fur.", "Dogs are reptiles."]
    p_true, p_false = belief(real_chat_model, true), belief(real_chat_model, false)
    assert all(0.0 < p < 1.0 for p in p_true + p_false)
    assert statistics.mean(p_true) > statistics.mean(p_false)


def test_embeddings_are_normalised_and_semantic(real_embedder) -> None:  # type: ignore[no-untyped-def]
    vectors = real_embedder.embed_array(
        ["a party at the cafe", "a celebration at the coffee shop", "corporate tax law"]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3
    assert len(real_embedder.embed_query("hello")) == 384


def test_cli_embed_prints_dimension() -> None:
    result = CliRunner().invoke(app, ["lm", "embed", "hello world"])
    assert result.exit_code == 0 and "dimension: 384" in result.output
