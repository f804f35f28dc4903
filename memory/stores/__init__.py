"""Stores: the system of record of a memory stream (text, metadata, embeddings)."""

from mindstream.memory.stores.base import MemoryStore
from mindstream.memory.stores.chroma import ChromaStore
from mindstream.memory.stores.inmemory import InMemoryStore

__all__ = ["ChromaStore", "InMemoryStore", "MemoryStore"]
