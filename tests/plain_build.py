"""A run's `Builder` for tests that run the sim without a configuration: a stream on the given
embedder and a reflector on the given model (what `Parts` builds from a configuration)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from memory import CachedRater, MemoryStore, MemoryStream, StreamConfig
from memory.embedder import Embedder
from reflection import ReflectionConfig, Reflector


class PlainBuild:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def stream(
        self, *, store: MemoryStore, policy: StreamConfig, rater: CachedRater
    ) -> MemoryStream:
        return MemoryStream(store, self.embedder, rater=rater, config=policy)

    def reflector(
        self, stream: MemoryStream, *, model: BaseChatModel, config: ReflectionConfig
    ) -> Reflector:
        return Reflector(stream, model, config)
