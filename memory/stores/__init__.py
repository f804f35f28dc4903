"""Stores: the system of record of a memory stream (text, metadata, embeddings)."""

from memory.stores.base import MemoryStore
from memory.stores.chroma import ChromaStore
from memory.stores.inmemory import InMemoryStore

__all__ = ["ChromaStore", "InMemoryStore", "MemoryStore"]
