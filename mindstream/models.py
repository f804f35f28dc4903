"""The models one configuration runs on, chosen once: chat, scorer, embedder and the small
judges (relation, verifier, reaction, change).

Each judge has the same three-way choice, written once in `Models._trained`: the trained
adapter on the embedded model; on a server, the adapter served as a LoRA module if the server
lists it, else the served model's own answer; another local model's own answer. Nothing is
loaded or contacted until a part is first used, and a test swaps any part with one call
(`Models.override`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from mindstream.config import EmbedderConfig
from mindstream.lm.config import DEFAULT_MODEL_SPEC, ModelConfig

if TYPE_CHECKING:
    import numpy as np
    from langchain_core.language_models import BaseChatModel

    from mindstream.lm import CallLedger, Scorer
    from mindstream.lm.judges.poignancy import PoignancyJudge
    from mindstream.lm.judges.relation import ReactionJudge, RelationJudge
    from mindstream.lm.judges.verifier import Verifier
    from mindstream.lm.served.adapters import ServedYesNo
    from mindstream.memory.changes import ReplacementJudge
    from mindstream.memory.embedder import ArrayEmbedder
    from mindstream.memory.relevance import Reranker

log = logging.getLogger(__name__)
T = TypeVar("T")
PARTS = ("chat", "scorer", "embedder", "judge", "verifier", "reactions", "change_judge")
Ask = Callable[[str], "ServedYesNo"]


@dataclass(frozen=True)
class Trained(Generic[T]):
    """How one judge is built on each kind of model (the choice itself is `Models._trained`)."""

    load: Callable[[Path, int | None], T]  # the embedded model's adapter, from its folder
    adapters: tuple[str, ...]  # the LoRA modules a server must list to serve it
    from_server: Callable[[Ask], T]  # built on those modules
    own_answer: Callable[[], T]  # another model answering the question itself


class Models:
    """The chat model, scorer, embedder and judges of one model configuration."""

    def __init__(self, model: ModelConfig, embedder: EmbedderConfig, ledger: CallLedger) -> None:
        self.config = model
        self.embedder_config = embedder
        self.ledger = ledger
        self.given: dict[str, object] = {}

    def override(self, **parts: object) -> Models:
        """These models with some parts already built (a test's fakes, a caller's own model):
        any of `PARTS`; an unknown name is refused."""
        unknown = sorted(set(parts) - set(PARTS))
        if unknown:
            raise ValueError(f"override: no part named {unknown[0]!r} (parts: {', '.join(PARTS)})")
        self.given.update(parts)
        self.__dict__.update(parts)  # a cached_property reads its value from here
        return self

    def ready(self, part: str) -> object:
        """`part` built now rather than on first use (a benchmark loads it before timing)."""
        value = getattr(self, part)
        return value.built if isinstance(value, _OnFirstUse) else value

    def built(self, part: str) -> bool:
        """Whether `part` was built or given (a command can report without building it)."""
        return part in self.__dict__

    @cached_property
    def chat(self) -> BaseChatModel:
        """The chat model, uncounted (`Parts.chat_for` counts a component's calls)."""
        from mindstream.lm import resolve_model

        return resolve_model(self.config.spec, config=self.config)

    @cached_property
    def scorer(self) -> Scorer:
        """The model's scorer (a served model's endpoint is probed once, here)."""
        from mindstream.lm import resolve_scorer

        return resolve_scorer(self.chat, self.config, self.ledger)

    def scorer_for(self, component: str) -> Scorer:
        """The scorer with its calls counted under `component`."""
        from mindstream.lm.accounting import counted

        return counted(self.scorer, component, self.ledger)

    @cached_property
    def embedder(self) -> ArrayEmbedder:
        from mindstream.lm.backends.embeddings import RETRIEVER_DIR, MiniLMEmbeddings

        tuned = self.embedder_config.name == "minilm-dialogue"
        return MiniLMEmbeddings(
            batch_size=self.embedder_config.batch_size,
            threads=self.config.local.threads,
            backend=self.embedder_config.backend,
            cache_dir=self.config.local.cache_dir,
            adapter=RETRIEVER_DIR if tuned else None,
        )

    @cached_property
    def verifier(self) -> Verifier:
        """TeachMe's proof checker: does a set of premises entail a hypothesis?"""
        from mindstream.lm.judges import verifier as v

        return self._trained(
            Trained["Verifier"](
                load=lambda base, threads: v.load_adapter_verifier(base, threads=threads),
                adapters=("mindstream-verifier",),
                from_server=lambda ask: v.AdapterVerifier(ask("mindstream-verifier")),
                own_answer=lambda: v.ScorerVerifier(self.scorer_for("teachme-verifier")),
            ),
            DeferredVerifier,
        )

    @cached_property
    def judge(self) -> RelationJudge:
        """How two statements relate (replaces, contradicts)."""
        from mindstream.lm.judges import relation as r

        names = ("mindstream-judge-replaces", "mindstream-judge-contradicts")
        return self._trained(
            Trained["RelationJudge"](
                load=lambda base, threads: r.load_adapter_judge(base, threads=threads),
                adapters=names,
                from_server=lambda ask: r.AdapterJudge(*(functools.partial(ask, n) for n in names)),
                own_answer=lambda: r.ScorerJudge(self.scorer_for("judge")),
            ),
            DeferredJudge,
        )

    @cached_property
    def reactions(self) -> ReactionJudge | None:
        """Must an agent stop for an object's new state; another local model answers the
        town's own reaction prompt instead (None)."""
        from mindstream.lm.judges import relation as r

        name = "mindstream-judge-reacts"
        if not self._adapter_or_server():
            return None
        return self._trained(
            Trained["ReactionJudge"](
                load=lambda base, threads: r.load_adapter_reactions(base, threads=threads),
                adapters=(name,),
                from_server=lambda ask: r.AdapterReactions(functools.partial(ask, name)),
                own_answer=lambda: r.ScorerReactions(self.scorer_for("react")),
            ),
            DeferredReactions,
        )

    @cached_property
    def poignancy(self) -> PoignancyJudge | None:
        """How poignant a town's memory is; another local model, or an install without the
        adapter, rates with the model's own 1-10 (None)."""
        from mindstream.lm.judges import poignancy as p

        name = "mindstream-judge-poignant"
        if not self._adapter_or_server((p.ADAPTER / "adapter_config.json").is_file()):
            return None
        return self._trained(
            Trained["PoignancyJudge"](
                load=lambda base, threads: p.load_adapter_poignancy(base, threads=threads),
                adapters=(name,),
                from_server=lambda ask: p.AdapterPoignancy(functools.partial(ask, name)),
                own_answer=lambda: p.ScorerPoignancy(self.scorer_for("importance")),
            ),
            DeferredPoignancy,
        )

    @cached_property
    def change_judge(self) -> ReplacementJudge:
        """Does a later statement make an earlier one out of date: the shipped pair models (two,
        read as one) whatever the chat model; without them (a trimmed install), the relation
        judge, said once."""
        return DeferredPairJudge(self._pair_judge)

    @cached_property
    def reranker(self) -> Reranker:
        """The shipped cross-encoder reranker, built on first use; without it (a trimmed
        install), relevance alone, said once."""
        return DeferredReranker(self._reranker)

    def _reranker(self) -> Reranker:
        from mindstream.lm.judges.reranker import StaleReranker, load_reranker

        local = self.config.local
        try:
            return load_reranker(cache_dir=local.cache_dir, threads=local.threads)
        except (FileNotFoundError, StaleReranker) as missing:
            log.warning("%s; retrieval ranks by relevance alone", missing)
            return NoReranker()

    def _pair_judge(self) -> ReplacementJudge:
        from mindstream.lm.judges.change_judge import load_pair_judges

        local = self.config.local
        try:
            return load_pair_judges(cache_dir=local.cache_dir, threads=local.threads)
        except FileNotFoundError as missing:
            log.warning("%s; change detection asks the chat model instead", missing)
            return self.judge

    @cached_property
    def served_adapters(self) -> set[str]:
        """mindstream's adapters the configured server serves (vLLM with LoRA modules)."""
        if not self.config.is_served:
            return set()
        from mindstream.lm.resolve import endpoint_of
        from mindstream.lm.served.adapters import served_adapters

        return served_adapters(endpoint_of(self.config))

    def _adapter_or_server(self, shipped: bool = True) -> bool:
        """Whether a town judge has a model to ask: a server, or the embedded model with its
        adapter shipped (another local model answers the town's own prompts instead)."""
        return self.config.is_served or (self.config.spec == DEFAULT_MODEL_SPEC and shipped)

    def _trained(self, how: Trained[T], defer: Callable[[Callable[[], T]], T]) -> T:
        """The one choice of a judge for this model, built on first use."""
        if self.config.spec == DEFAULT_MODEL_SPEC:
            from mindstream.lm.backends.loading import cached_smollm2_dir

            local = self.config.local
            return defer(lambda: how.load(cached_smollm2_dir(local.cache_dir), local.threads))
        if self.config.is_served:
            return defer(lambda: self._from_server(how))
        return how.own_answer()

    def _from_server(self, how: Trained[T]) -> T:
        if set(how.adapters) <= self.served_adapters:
            return how.from_server(self._served_yes_no)
        return how.own_answer()

    def _served_yes_no(self, adapter: str) -> ServedYesNo:
        from mindstream.lm.resolve import endpoint_of
        from mindstream.lm.served.adapters import served_yes_no

        return served_yes_no(endpoint_of(self.config), adapter)


class _OnFirstUse(Generic[T]):
    """What `build` makes, built when it is first asked for, so choosing models loads and
    contacts nothing (a write that needs the judge, a served model's adapters looked up)."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._built: T | None = None

    @property
    def built(self) -> T:
        if self._built is None:
            self._built = self._build()
        return self._built


class DeferredJudge(_OnFirstUse["RelationJudge"]):
    """A relation judge built on first use."""

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self.built.replaces_batch(pairs)

    def contradicts_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self.built.contradicts_batch(pairs)


class DeferredPairJudge(_OnFirstUse["ReplacementJudge"]):
    """A change judge built on first use; it tells the slot too when the built one does."""

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return list(self.built.replaces_batch(pairs))

    def relate_batch(self, pairs: Sequence[tuple[str, str]]) -> list[object]:
        from mindstream.memory.changes import SlotJudge

        built = self.built
        if isinstance(built, SlotJudge):
            return list(built.relate_batch(pairs))
        return [Replaces(p) for p in built.replaces_batch(pairs)]


@dataclass(frozen=True)
class Replaces:
    """A plain P(replaces), read as a relation that does not tell the slot."""

    replaces: float
    about_the_same: float = 1.0


class DeferredReranker(_OnFirstUse["Reranker"]):
    """A reranker built on the first query that asks for it."""

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        return self.built.scores(query, texts)


class NoReranker:
    """No opinion: every memory scored alike, so relevance alone orders them."""

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        return np.zeros(len(texts), dtype=np.float32)


class DeferredReactions(_OnFirstUse["ReactionJudge"]):
    """A reaction judge built on first use."""

    def reacts_batch(self, sights: Sequence[tuple[str, str, str]]) -> list[float]:
        return self.built.reacts_batch(sights)


class DeferredPoignancy(_OnFirstUse["PoignancyJudge"]):
    """A poignancy judge built on first use."""

    def poignant_batch(self, memories: Sequence[str]) -> list[float]:
        return self.built.poignant_batch(memories)


class DeferredVerifier(_OnFirstUse["Verifier"]):
    """A verifier built on first use."""

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        return self.built.entailment_batch(requests)
