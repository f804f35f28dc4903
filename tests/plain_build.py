"""A `Builder` for tests that run the sim or the lab without a configuration: streams on the
given embedder, reflectors and reasoners on what the test passes (what `Parts` builds from a
configuration)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from mindstream.agents.teachme import TeachableReasoner, TeachMeConfig
from mindstream.lm import Scorer
from mindstream.lm.judges.relation import RelationJudge
from mindstream.lm.judges.verifier import Verifier
from mindstream.memory import CachedRater, MemoryStore, MemoryStream, StreamConfig
from mindstream.memory.embedder import Embedder
from mindstream.reflection import ReflectionConfig, Reflector


class PlainBuild:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def stream(
        self, *, store: MemoryStore, policy: StreamConfig, rater: CachedRater | None = None
    ) -> MemoryStream:
        return MemoryStream(store, self.embedder, rater=rater, config=policy)

    def reflector(
        self, stream: MemoryStream, *, model: BaseChatModel, config: ReflectionConfig
    ) -> Reflector:
        return Reflector(stream, model, config)

    def reasoner(
        self,
        stream: MemoryStream,
        *,
        scorer: Scorer,
        checkers: tuple[Verifier | None, RelationJudge | None],
        writes: bool,
        config: TeachMeConfig,
    ) -> TeachableReasoner:
        assert not writes, "a plain build has no chat model"
        verifier, judge = checkers
        return TeachableReasoner(stream, scorer, config=config, verifier=verifier, judge=judge)
