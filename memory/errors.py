"""Typed errors of the memory layer; each message names the offending field or path."""

from __future__ import annotations


class MemoryStreamError(Exception):
    """Base class of the memory layer's errors."""


class InvalidMemoryError(MemoryStreamError, ValueError):
    """A memory cannot be stored as given (empty text, unknown kind, bad importance)."""


class EmbeddingShapeError(MemoryStreamError, ValueError):
    """An embedding has the wrong size for the stream."""


class StorePathError(MemoryStreamError, ValueError):
    """A store path cannot be used (it is a file, or cannot be created)."""


class StoreBusyError(StorePathError):
    """Another process has the on-disk store open (chroma's on-disk mode is one process at a
    time); share it through `mindstream serve` or a chroma server instead."""


class MemoryNotFoundError(MemoryStreamError, KeyError):
    """No memory with that id."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "memory not found"


class MemoryStateError(MemoryStreamError, ValueError):
    """A correction that the memory's status does not allow (a forgotten memory stays
    forgotten; only a superseded memory can be restored)."""
