"""The onnxruntime embedder gives sentence-transformers' vectors, padded batches included."""

from __future__ import annotations

import numpy as np
import pytest

from mindstream.lm.backends.embeddings import MiniLMEmbeddings

pytestmark = pytest.mark.real_model


def test_onnx_and_torch_backends_agree_on_mixed_lengths(tmp_path) -> None:  # type: ignore[no-untyped-def]
    texts = [
        "tea",
        "Isabella is planning a Valentine's Day party at Hobbs Cafe.",
        " ".join(["Klaus read about gentrification in the library for hours."] * 20),
        "",
        "A magnet does not attract copper.",
    ] * 7
    onnx = MiniLMEmbeddings(backend="onnx", batch_size=8, cache_dir=tmp_path).embed_array(texts)
    torch = MiniLMEmbeddings(backend="torch", batch_size=8).embed_array(texts)
    assert onnx.shape == torch.shape == (35, 384)
    cosine = (onnx * torch).sum(axis=1)
    assert cosine.min() > 0.9999, cosine.min()
    assert np.allclose(np.linalg.norm(onnx, axis=1), 1.0, atol=1e-5)
