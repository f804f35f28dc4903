"""The composition root: the one place that builds models, scorers, embedders, stores, streams
and the components on top of them from a `MindstreamConfig`.

Everything is built lazily and once: a command that only adds a memory with a given importance
never loads the chat model, and one that talks to a service imports none of it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from mindstream.config import MindstreamConfig, load_config

log = logging.getLogger(__name__)
ModelT = TypeVar("ModelT", bound=BaseModel)
T = TypeVar("T")

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from mindstream.agents.assistant import Assistant
    from mindstream.agents.generative import Minds
    from mindstream.agents.teachme import TeachableReasoner
    from mindstream.agents.teachme.config import TeachMeConfig
    from mindstream.lm import CallLedger, Scorer
    from mindstream.lm.judges.relation import ReactionJudge, RelationJudge
    from mindstream.lm.judges.verifier import Verifier
    from mindstream.lm.served.adapters import ServedYesNo
    from mindstream.memory import CachedRater, Clock, MemoryStore, MemoryStream, StreamConfig
    from mindstream.memory.embedder import ArrayEmbedder, Embedder
    from mindstream.reflection import ReflectionConfig, Reflector
    from mindstream.reflection.refeed import ReFeed, Retrieve
    from mindstream.reflection.self_refine import Feedback, SelfRefine, Stop
    from mindstream.sim.checkpoint import RunFolder
    from mindstream.sim.runner import RunParts


class Parts:
    """What one configuration builds; every command, runner and experiment asks it.

    `flags` and `file` are what the configuration was loaded from, so a command that finds a
    saved configuration (a run folder's) can load it beneath the same flags.
    """

    def __init__(
        self,
        config: MindstreamConfig,
        ledger: CallLedger | None = None,
        *,
        file: Path | None = None,
        flags: dict[str, Any] | None = None,
    ) -> None:
        self.config = config
        self._ledger = ledger
        self.file = file
        self.flags = dict(flags or {})

    @cached_property
    def ledger(self) -> CallLedger:
        """Model calls per component, of everything these parts build."""
        from mindstream.lm import CallLedger

        return self._ledger or CallLedger()

    @classmethod
    def load(cls, file: Path | None = None, flags: dict[str, Any] | None = None) -> Parts:
        """Parts of the configuration in `file`, the environment and `flags` (dotted keys)."""
        return cls(load_config(file, flags=flags), file=file, flags=flags)

    def override(self, **built: Any) -> Parts:
        """These parts with some already built (a test's fakes, a caller's own model): any
        of `model`, `scorer`, `embedder`, `judge`, `verifier`, `reactions` and
        `change_judge` (what change detection asks)."""
        allowed = {"model", "scorer", "embedder", "judge", "verifier", "reactions"}
        unknown = set(built) - allowed - {"change_judge"}
        if unknown:
            raise ValueError(f"override: no part named {sorted(unknown)[0]!r}")
        for name, value in built.items():
            self.__dict__[name] = value  # a cached_property reads its value from here
        return self

    def rebuilt(self, flags: dict[str, Any]) -> Parts:
        """These parts with more flags on top (a second model for a judge, say)."""
        if not flags:
            return self
        return Parts.load(self.file, {**self.flags, **flags})

    def under(self, saved: Path | None) -> Parts:
        """These parts with a saved configuration as the file layer, unless a file was given."""
        if saved is None or self.file is not None:
            return self
        return Parts.load(saved, self.flags)

    # ---- models ------------------------------------------------------------------------
    @cached_property
    def model(self) -> BaseChatModel:
        """The chat model, uncounted (`chat_for` gives a counted view; `Minds` counts its own)."""
        from mindstream.lm import resolve_model

        return resolve_model(self.config.model.spec, config=self.config.model)

    def chat_for(self, component: str) -> BaseChatModel:
        """The chat model with its generation counted in `ledger` under `component`."""
        from mindstream.lm.accounting import counted_chat

        return counted_chat(self.model, component, self.ledger)

    @cached_property
    def scorer(self) -> Scorer:
        """The model's scorer (a served model's endpoint is probed once, here)."""
        from mindstream.lm import resolve_scorer

        return resolve_scorer(self.model, self.config.model, self.ledger)

    def scorer_for(self, component: str) -> Scorer:
        from mindstream.lm.accounting import counted

        return counted(self.scorer, component, self.ledger)

    @cached_property
    def served_adapters(self) -> set[str]:
        """mindstream's adapters the configured server serves (vLLM with LoRA modules)."""
        if not self.config.model.is_served:
            return set()
        from mindstream.lm.resolve import endpoint_of
        from mindstream.lm.served.adapters import served_adapters

        return served_adapters(endpoint_of(self.config.model))

    def _served_yes_no(self, adapter: str) -> ServedYesNo:
        from mindstream.lm.resolve import endpoint_of
        from mindstream.lm.served.adapters import served_yes_no

        return served_yes_no(endpoint_of(self.config.model), adapter)

    @cached_property
    def verifier(self) -> Verifier:
        """TeachMe's proof checker: the trained adapter on the embedded model, or served as a
        LoRA module by the server; another model answers the same yes/no question itself."""
        from mindstream.lm import DEFAULT_MODEL_SPEC
        from mindstream.lm.judges.verifier import ScorerVerifier, load_adapter_verifier

        if self.config.model.spec == DEFAULT_MODEL_SPEC:
            from mindstream.lm.backends.loading import cached_smollm2_dir

            local = self.config.model.local
            return load_adapter_verifier(cached_smollm2_dir(local.cache_dir), threads=local.threads)
        if self.config.model.is_served:
            return DeferredVerifier(self._served_verifier)  # asks the server on first use
        return ScorerVerifier(self.scorer_for("teachme-verifier"))

    def _served_verifier(self) -> Verifier:
        from mindstream.lm.judges.verifier import AdapterVerifier, ScorerVerifier

        if "mindstream-verifier" in self.served_adapters:
            return AdapterVerifier(self._served_yes_no("mindstream-verifier"))
        return ScorerVerifier(self.scorer_for("teachme-verifier"))

    @cached_property
    def judge(self) -> RelationJudge:
        """How two statements relate (replaces, contradicts): the trained adapter on the
        embedded model; a served (or other local) model answers the same questions itself."""
        from mindstream.lm import DEFAULT_MODEL_SPEC
        from mindstream.lm.judges.relation import ScorerJudge, load_adapter_judge

        if self.config.model.spec == DEFAULT_MODEL_SPEC:
            from mindstream.lm.backends.loading import cached_smollm2_dir

            local = self.config.model.local
            return load_adapter_judge(cached_smollm2_dir(local.cache_dir), threads=local.threads)
        if self.config.model.is_served:
            return DeferredJudge(self._served_judge)  # asks the server on first use
        return ScorerJudge(self.scorer_for("judge"))

    @cached_property
    def reactions(self) -> ReactionJudge | None:
        """Must an agent stop for an object's new state: the trained adapter on the embedded
        model or a server that serves it, else a served model's few-shot answer; another
        local model answers the town's own reaction prompt (None)."""
        from mindstream.lm import DEFAULT_MODEL_SPEC
        from mindstream.lm.judges.relation import load_adapter_reactions

        if self.config.model.spec == DEFAULT_MODEL_SPEC:
            from mindstream.lm.backends.loading import cached_smollm2_dir

            local = self.config.model.local
            base = cached_smollm2_dir(local.cache_dir)
            return DeferredReactions(lambda: load_adapter_reactions(base, threads=local.threads))
        if self.config.model.is_served:
            return DeferredReactions(self._served_reactions)
        return None

    def _served_reactions(self) -> ReactionJudge:
        from mindstream.lm.judges.relation import AdapterReactions, ScorerReactions

        if "mindstream-judge-reacts" in self.served_adapters:
            return AdapterReactions(
                functools.partial(self._served_yes_no, "mindstream-judge-reacts")
            )
        return ScorerReactions(self.scorer_for("react"))

    def _served_judge(self) -> RelationJudge:
        from mindstream.lm.judges.relation import AdapterJudge, ScorerJudge

        judges = {"mindstream-judge-replaces", "mindstream-judge-contradicts"}
        if judges <= self.served_adapters:
            return AdapterJudge(
                functools.partial(self._served_yes_no, "mindstream-judge-replaces"),
                functools.partial(self._served_yes_no, "mindstream-judge-contradicts"),
            )
        return ScorerJudge(self.scorer_for("judge"))

    def judge_for(self, policy: StreamConfig) -> DeferredJudge | DeferredPairJudge | None:
        """The change judge for a stream whose change policy asks for one, built on its first
        use (a command that never writes never loads it): the trained pair model by default,
        whatever the chat model; the chat model's own yes/no with `judge: model`."""
        changes = policy.changes
        if not (changes.enabled and changes.use_judge):
            return None
        if "change_judge" in self.__dict__:
            return DeferredPairJudge(lambda: self.__dict__["change_judge"])
        if changes.judge == "pair":
            return DeferredPairJudge(self._pair_judge)
        return DeferredJudge(lambda: self.judge)

    def _pair_judge(self) -> Any:
        """The shipped change judge; without it (a trimmed install), the model's, said once."""
        from mindstream.lm.judges.change_judge import load_change_judge

        local = self.config.model.local
        try:
            return load_change_judge(cache_dir=local.cache_dir, threads=local.threads)
        except FileNotFoundError as missing:
            log.warning("%s; change detection asks the chat model instead", missing)
            return self.judge

    @cached_property
    def embedder(self) -> ArrayEmbedder:
        from mindstream.lm.backends.embeddings import MiniLMEmbeddings

        return MiniLMEmbeddings(
            batch_size=self.config.embedder.batch_size,
            threads=self.config.model.local.threads,
            backend=self.config.embedder.backend,
            cache_dir=self.config.model.local.cache_dir,
        )

    # ---- memory ------------------------------------------------------------------------
    def store(
        self, path: Path | None = None, *, create: bool = True, collection: str | None = None
    ) -> MemoryStore:
        """The configured store; a chroma folder at `path` (refused if missing and not
        `create`). On a chroma server, `collection` names another collection than the
        memories' (TeachMe's taught facts)."""
        from mindstream.memory import ChromaStore, InMemoryStore, StorePathError

        kind = self.config.store.kind
        if kind == "memory":
            return InMemoryStore()
        if kind == "chroma-server":
            host, port = self.config.store.host, self.config.store.port
            if collection is not None:
                return ChromaStore.http(host, port, collection=collection)
            return ChromaStore.http(host, port)
        if path is None:
            raise StorePathError("store path: none given (use --store FOLDER)")
        if not create and not path.exists():
            raise StorePathError(f"store path {path} does not exist (nothing to read there)")
        return ChromaStore.persistent(path)

    def stream(
        self,
        path: Path | None = None,
        *,
        create: bool = True,
        clock: Clock | None = None,
        store: MemoryStore | None = None,
        policy: StreamConfig | None = None,
        rater: CachedRater | None = None,
        embedder: Embedder | None = None,
    ) -> MemoryStream:
        """A memory stream with `policy` (default: the configured retrieval policy) and its
        change judge; importance is rated by `rater` (default: the scorer, built only when a
        memory without importance arrives). `embedder` replaces the configured one where the
        embeddings are computed up front (an experiment's fixed set)."""
        from mindstream.memory import MemoryStream

        policy = policy or self.config.stream
        return MemoryStream(
            store or self.store(path, create=create),
            embedder or self.embedder,
            clock=clock,
            rater=rater or self.rater(),
            config=policy,
            judge=self.judge_for(policy),
        )

    def run_memories(self, folder: RunFolder) -> MemoryStream:
        """A town run's memories with the town's policy, read whole and its store closed at
        once: a page or a report never holds the folder (`--resume` and `sim interview` go on)."""
        stream = self.stream(store=folder.store(), policy=self.config.sim.stream)
        stream.close()
        return stream

    def rater(self) -> CachedRater:
        from mindstream.lm import rate_importance
        from mindstream.memory import CachedRater

        return CachedRater(lambda texts: rate_importance(self.scorer_for("importance"), texts))

    # ---- components --------------------------------------------------------------------
    def reflector(
        self,
        stream: MemoryStream,
        *,
        model: BaseChatModel | None = None,
        config: ReflectionConfig | None = None,
    ) -> Reflector:
        """Reflection on `stream` with the configured model and settings, or `model` (a run's
        counted view) and `config` (a scenario's threshold)."""
        from mindstream.reflection import Reflector

        chat = model or self.chat_for("reflection")
        return Reflector(stream, chat, config or self.config.reflection)

    def self_refine(
        self, *, feedback: Feedback | None = None, stop: Stop | None = None, **changes: Any
    ) -> SelfRefine:
        """Self-Refine with the configured settings, `changes` applied (and validated)."""
        from mindstream.reflection.self_refine import SelfRefine, stop_when_satisfied

        config = _changed(self.config.refine, changes)
        model = self.chat_for("self-refine")
        return SelfRefine(model, feedback=feedback, stop=stop or stop_when_satisfied, config=config)

    def refeed(self, retrieve: Retrieve, **changes: Any) -> ReFeed:
        from mindstream.reflection.refeed import ReFeed

        config = _changed(self.config.refeed, changes)
        return ReFeed(self.chat_for("refeed"), self.scorer_for("refeed"), retrieve, config)

    def reasoner(
        self,
        stream: MemoryStream,
        user: str = "user",
        *,
        scorer: Scorer | None = None,
        checkers: tuple[Verifier | None, RelationJudge | None] | None = None,
        writes: bool = True,
        config: TeachMeConfig | None = None,
        **changes: Any,
    ) -> TeachableReasoner:
        """TeachMe on `stream` with the configured settings (`config` instead, `changes`
        applied and validated). An experiment passes its memoised `scorer` and `checkers`;
        `writes=False` leaves out the chat model (hypotheses by rule, no written premises)."""
        from mindstream.agents.teachme import TeachableReasoner

        config = _changed(config or self.config.teachme, changes)
        verifier, judge = checkers if checkers is not None else self.teachme_checkers(config)
        model = self.chat_for("teachme") if writes else None
        return TeachableReasoner(
            stream,
            scorer or self.scorer_for("teachme"),
            model,
            user=user,
            config=config,
            verifier=verifier,
            judge=judge,
        )

    def teachme_checkers(
        self, config: TeachMeConfig
    ) -> tuple[Verifier | None, RelationJudge | None]:
        """The verifier and the judge TeachMe proves and vetoes with: both with `verifier`
        "auto", neither (the model's own scoring) otherwise."""
        if config.verifier != "auto":
            return None, None
        return self.verifier, self.judge

    def assistant(self, path: Path | None = None, *, store: MemoryStore | None = None) -> Assistant:
        """The personal assistant on its own stream (the assistant's retrieval policy)."""
        from mindstream.agents.assistant import Assistant
        from mindstream.memory import MemoryStream

        policy = self.config.assistant.stream
        stream = MemoryStream(
            store or self.store(path),
            self.embedder,
            rater=self.rater(),
            config=policy,
            judge=self.judge_for(policy),
        )
        return Assistant(
            stream,
            self.chat_for("assistant"),
            self.config.assistant,
            lambda serialised: self.reflector(serialised).reflect,
        )

    def minds(self, *, batched: bool = True) -> Minds:
        from mindstream.agents.generative import Minds
        from mindstream.lm import MODEL_BUSY

        served = self.config.model.is_served
        return Minds(
            self.model,
            self.scorer,
            batched=batched,
            concurrent=batched and served,
            ledger=self.ledger,
            clock=MODEL_BUSY if served else None,
            reactions=self.reactions,
        )

    def run_parts(self, *, batched: bool = True, keep_config: bool = True) -> RunParts:
        """Everything a sandbox run is built from, and the effective configuration the run
        folder keeps (not kept by a reader of the run, such as an interview)."""
        from mindstream.sim.runner import RunParts

        return RunParts(
            minds=self.minds(batched=batched),
            build=self,
            sim=self.config.sim,
            stream=self.config.sim.stream,
            reflection=self.config.reflection,
            config_text=self.config.to_yaml() if keep_config else None,
        )


class _OnFirstUse(Generic[T]):
    """What `build` makes, built when it is first asked for, so building parts loads and
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

    def replaces_batch(self, pairs: Any) -> list[float]:
        return self.built.replaces_batch(pairs)

    def contradicts_batch(self, pairs: Any) -> list[float]:
        return self.built.contradicts_batch(pairs)


class DeferredPairJudge(_OnFirstUse[Any]):
    """The change judge built on first use; it tells the slot too when the built one does."""

    def replaces_batch(self, pairs: Any) -> list[float]:
        return list(self.built.replaces_batch(pairs))

    def relate_batch(self, pairs: Any) -> list[Any]:
        built = self.built
        if hasattr(built, "relate_batch"):
            return list(built.relate_batch(pairs))
        return [_Replaces(p) for p in built.replaces_batch(pairs)]


class _Replaces:
    """A plain P(replaces) read as a relation that does not tell the slot."""

    def __init__(self, p: float) -> None:
        self.replaces = p
        self.about_the_same = 1.0


class DeferredReactions(_OnFirstUse["ReactionJudge"]):
    """A reaction judge built on first use."""

    def reacts_batch(self, sights: Any) -> list[float]:
        return self.built.reacts_batch(sights)


class DeferredVerifier(_OnFirstUse["Verifier"]):
    """A verifier built on first use."""

    def entailment_batch(self, requests: Any) -> list[float]:
        return self.built.entailment_batch(requests)


def _changed(config: ModelT, changes: dict[str, Any]) -> ModelT:
    """A copy of a frozen configuration with `changes`, validated like the original."""
    return type(config).model_validate({**config.model_dump(), **changes})
