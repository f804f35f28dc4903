"""The onnxruntime embedder gives sentence-transformers' vectors, padded batches included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mindstream.lm.backends.embeddings import RETRIEVER_DIR, MiniLMEmbeddings, usable_adapter

pytestmark = pytest.mark.real_model


@pytest.mark.parametrize("adapter", [None, RETRIEVER_DIR], ids=["stock", "dialogue"])
def test_onnx_and_torch_backends_agree_on_mixed_lengths(tmp_path, adapter) -> None:  # type: ignore[no-untyped-def]
    texts = [
        "tea",
        "Isabella is planning a Valentine's Day party at Hobbs Cafe.",
        " ".join(["Klaus read about gentrification in the library for hours."] * 20),
        "",
        "A magnet does not attract copper.",
    ] * 7
    onnx = MiniLMEmbeddings(backend="onnx", batch_size=8, cache_dir=tmp_path, adapter=adapter)
    torch = MiniLMEmbeddings(backend="torch", batch_size=8, adapter=adapter)
    onnx, torch = onnx.embed_array(texts), torch.embed_array(texts)
    assert onnx.shape == torch.shape == (35, 384)
    cosine = (onnx * torch).sum(axis=1)
    assert cosine.min() > 0.9999, cosine.min()
    assert np.allclose(np.linalg.norm(onnx, axis=1), 1.0, atol=1e-5)


def test_the_dialogue_retriever_finds_the_turn_the_stock_model_misses() -> None:
    """The shipped adapter is loaded (not silently the stock model): a question against chat
    turns where the stock model ranks the answer below a turn that only shares words."""
    turns = [
        "sitting on a mattress on the floor in paisley, first night in our place",
        "i live for the weekends honestly, work is killing me",
    ]
    question = ["Where do I live now?"]
    for adapter, expected in ((None, 1), (RETRIEVER_DIR, 0)):
        model = MiniLMEmbeddings(adapter=adapter)
        scores = model.embed_array(question) @ model.embed_array(turns).T
        assert int(np.argmax(scores[0])) == expected, (adapter, scores)


def test_a_missing_adapter_falls_back_to_the_stock_model_with_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert usable_adapter(tmp_path) is None
    assert usable_adapter(tmp_path) is None
    err = capsys.readouterr().err
    assert err.count("no retriever adapter here") == 1 and str(tmp_path) in err
    assert MiniLMEmbeddings(adapter=tmp_path).name == "minilm"
