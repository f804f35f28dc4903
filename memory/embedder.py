"""What the memory stream needs of an embedder: langchain-core's `Embeddings` methods, and
optionally one call that returns a float32 matrix (no list of lists in between)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


@runtime_checkable
class ArrayEmbedder(Embedder, Protocol):
    def embed_array(self, texts: Sequence[str]) -> np.ndarray: ...
