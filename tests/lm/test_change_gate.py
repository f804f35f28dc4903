"""The change gate's arithmetic and loading: a pair scores by its weights; a gate trained on
another embedder's vectors is not used (said once); vectors of another size are refused."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from mindstream.lm.judges.change_gate import ChangeGate, features, load_change_gate, save

DIM = 4


def _gate(threshold: float = 0.5) -> ChangeGate:
    weights = [0.0] * (3 * DIM) + [10.0]  # the cosine alone decides
    return ChangeGate(embedder="minilm-x", weights=tuple(weights), bias=-5.0, threshold=threshold)


def _unit(*rows: list[float]) -> np.ndarray:
    a = np.array(rows, dtype=np.float32)
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def test_features_hold_products_differences_the_new_vector_and_the_cosine() -> None:
    old, new = _unit([1, 0, 0, 0]), _unit([0, 1, 0, 0])
    x = features(old, new, np.array([0.0]))
    assert x.shape == (1, 3 * DIM + 1)
    assert x[0, :DIM].tolist() == [0, 0, 0, 0]
    assert x[0, DIM : 2 * DIM].tolist() == [1, 1, 0, 0]
    assert x[0, 2 * DIM : 3 * DIM].tolist() == [0, 1, 0, 0]


def test_keep_follows_the_score_and_the_threshold() -> None:
    old = _unit([1, 0, 0, 0], [1, 0, 0, 0])
    new = _unit([1, 0, 0, 0], [0, 1, 0, 0])
    similarity = np.array([1.0, 0.0])
    assert _gate().keep(old, new, similarity).tolist() == [True, False]
    assert _gate(threshold=0.0).keep(old, new, similarity).tolist() == [True, True]
    assert _gate().keep(old[:0], new[:0], similarity[:0]).tolist() == []


def test_vectors_of_another_size_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="13 weights for 7 features"):
        _gate().keep(np.zeros((1, 2)), np.zeros((1, 2)), np.array([0.5]))


def test_a_gate_of_another_embedder_is_not_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    save(_gate(), tmp_path)
    assert load_change_gate("minilm-x", tmp_path) == _gate()
    with caplog.at_level(logging.WARNING):
        assert load_change_gate("minilm", tmp_path) is None
    assert "trained on minilm-x's vectors" in caplog.text
    assert load_change_gate("minilm-x", tmp_path / "nothing") is None


def test_the_shipped_gate_is_for_the_shipped_embedder() -> None:
    from mindstream.lm.backends.embeddings import RETRIEVER_DIR, MiniLMEmbeddings
    from mindstream.lm.judges.change_gate import CHANGE_GATE_DIR, GATE_FILE

    name = MiniLMEmbeddings(adapter=RETRIEVER_DIR).name
    gate = ChangeGate.model_validate_json((CHANGE_GATE_DIR / GATE_FILE).read_text())
    assert gate.embedder == name, "retrain it: mindstream train change-gate"
    assert len(gate.weights) == 3 * 384 + 1 and 0.0 < gate.threshold < 1.0
