"""What the memory stream needs of an embedder: langchain-core's `Embeddings` methods, and
optionally one call that returns a float32 matrix (no list of lists in between)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


@runtime_checkable
class ArrayEmbedder(Embedder, Protocol):
    def embed_array(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class EmbeddedBy(Protocol):
    """A store that says which embedder made its vectors and can make them again."""

    def embedded_by(self) -> str | None: ...

    def reembed(self, name: str, embed: Callable[[list[str]], np.ndarray]) -> int: ...


def align(store: object, embedder: Embedder) -> None:
    """Vectors of two models never meet in one index: a store another embedder filled is
    re-embedded once from its texts (said on stderr), an empty one is labelled."""
    if not isinstance(store, EmbeddedBy):
        return
    name = getattr(embedder, "name", None)
    if not isinstance(name, str):
        return
    found = store.embedded_by()
    if found == name:
        return
    if found is not None:
        print(
            f"re-embedding this store's memories with {name} (made by {found}) ...",
            file=sys.stderr,
            flush=True,
        )
    store.reembed(name, lambda texts: as_array(embedder, texts))


def as_array(embedder: Embedder, texts: list[str]) -> np.ndarray:
    if isinstance(embedder, ArrayEmbedder):
        return embedder.embed_array(texts)
    return np.asarray(embedder.embed_documents(texts), dtype=np.float32)
