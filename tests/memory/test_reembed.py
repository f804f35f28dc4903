"""A store says which embedder made its vectors; opened with another, it is re-embedded once
from its texts, so vectors of two models never meet in one index."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import ChromaStore, MemoryStream, RetrievalWeights, StreamConfig
from mindstream.memory.stores.chroma import EMBEDDER_KEY


class Named(HashEmbeddings):
    """Hash vectors under a name; `salt` makes another model's (different) vectors."""

    def __init__(self, name: str, salt: str = "") -> None:
        super().__init__()
        self.name, self.salt = name, salt
        self.calls = 0

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        return super().embed_array([f"{t} {self.salt}" for t in texts])


def _open(path: Path, embedder: HashEmbeddings) -> MemoryStream:
    only = StreamConfig(weights=RetrievalWeights.relevance_only())
    return MemoryStream(ChromaStore.persistent(path), embedder, config=only)


def _stored_vectors(path: Path) -> np.ndarray:
    store = ChromaStore.persistent(path)
    try:
        return np.concatenate([vectors for _, vectors in store.load()])
    finally:
        store.close()


def test_a_store_opened_with_another_embedder_is_reembedded_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _open(tmp_path, Named("a", salt="alpha"))
    first.add("I live in Leeds", owner="ana", importance=5)
    first.add("my cat is called Pepper", owner="ana", importance=5)
    first.close()
    before = _stored_vectors(tmp_path)

    other = Named("b", salt="beta")
    second = _open(tmp_path, other)
    assert "re-embedding" in capsys.readouterr().err
    found = second.retrieve("where do I live", 1, owner="ana")
    assert found[0].record.text == "I live in Leeds"
    second.close()
    after = _stored_vectors(tmp_path)
    assert not np.allclose(before, after)  # the other model's vectors replaced them
    assert np.allclose(after, other.embed_array(["I live in Leeds", "my cat is called Pepper"]))

    again = Named("b", salt="beta")
    _open(tmp_path, again).close()
    assert again.calls == 0  # labelled: nothing re-embedded the second time
    assert "re-embedding" not in capsys.readouterr().err


def test_a_store_written_before_stores_said_so_is_the_stock_models(tmp_path: Path) -> None:
    store = ChromaStore.persistent(tmp_path)
    assert store.embedded_by() is None  # empty: nothing to say yet
    store._collection.add(ids=["m1"], embeddings=[[1.0] + [0.0] * 383], documents=["x"])
    assert store.embedded_by() == "minilm"
    store.close()


def test_an_embedder_without_a_name_leaves_the_store_alone(tmp_path: Path) -> None:
    stream = MemoryStream(ChromaStore.persistent(tmp_path), HashEmbeddings(), config=StreamConfig())
    stream.add("hello there", owner="ana", importance=5)
    store = stream.store
    assert isinstance(store, ChromaStore)
    assert EMBEDDER_KEY not in (store._collection.metadata or {})  # not labelled
    stream.close()
