"""Parts for tests that run the sim or the lab without a configuration file: an in-memory
store and the given embedder in place of the configured one, the rest as configured (and
built only if used)."""

from __future__ import annotations

from mindstream.compose import Parts
from mindstream.config import load_config
from mindstream.memory.embedder import ArrayEmbedder


def plain_parts(embedder: ArrayEmbedder) -> Parts:
    return Parts(load_config(None, {}, {"store.kind": "memory"})).override(embedder=embedder)
