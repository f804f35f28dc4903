"""The composition root: the one place that builds models, scorers, embedders, stores, streams
and the components on top of them from a `MindstreamConfig`.

Everything is built lazily and once: a command that only adds a memory with a given importance
never loads the chat model, and one that talks to a service imports none of it.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from mindstream.config import MindstreamConfig, load_config

ModelT = TypeVar("ModelT", bound=BaseModel)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from mindstream.agents.assistant import Assistant
    from mindstream.agents.generative import Minds
    from mindstream.agents.teachme import TeachableReasoner
    from mindstream.agents.teachme.config import TeachMeConfig
    from mindstream.lm import CallLedger, Scorer
    from mindstream.lm.judges.relation import RelationJudge
    from mindstream.lm.judges.verifier import Verifier
    from mindstream.memory import CachedRater, Clock, MemoryStore, MemoryStream, StreamConfig
    from mindstream.memory.changes import CandidateGate, ReplacementJudge
    from mindstream.memory.embedder import Embedder
    from mindstream.memory.relevance import Reranker
    from mindstream.memory.residency import Residency
    from mindstream.models import Models
    from mindstream.reflection import ReflectionConfig, Reflector
    from mindstream.reflection.offers import InsightOffers
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

    def override(self, **built: object) -> Parts:
        """These parts with some models already built (a test's fakes, a caller's own model):
        any of `chat`, `scorer`, `embedder`, `judge`, `verifier`, `reactions` and
        `change_judge` (what change detection asks); see `Models.override`."""
        self.models.override(**built)
        return self

    def rebuilt(self, flags: dict[str, Any]) -> Parts:
        """These parts with more flags on top (a second model for a judge, say)."""
        if not flags:
            return self
        return Parts.load(self.file, {**self.flags, **flags})

    def under(self, saved: Path | None) -> Parts:
        """These parts with a saved configuration as the file layer, unless a file was given;
        models given to `override` stay."""
        if saved is None or self.file is not None:
            return self
        return Parts.load(saved, self.flags).override(**self.models.given)

    # ---- models ------------------------------------------------------------------------
    @cached_property
    def models(self) -> Models:
        """The models this configuration runs on, chosen once and built on first use."""
        from mindstream.models import Models

        return Models(self.config.model, self.config.embedder, self.ledger)

    def chat_for(self, component: str) -> BaseChatModel:
        """The chat model with its generation counted in `ledger` under `component`."""
        from mindstream.lm.accounting import counted_chat

        return counted_chat(self.models.chat, component, self.ledger)

    def scorer_for(self, component: str) -> Scorer:
        """The scorer with its calls counted in `ledger` under `component`."""
        return self.models.scorer_for(component)

    def judge_for(self, policy: StreamConfig) -> ReplacementJudge | None:
        """The change judge for a stream whose change policy asks for one, built on its first
        use (a command that never writes never loads it): the trained pair model by default,
        whatever the chat model; the relation judge (the chat model's own) with `judge: model`;
        with `confirm_from`, the pair model's likely replacements asked again of the relation
        judge (`memory.confirmation`)."""
        from mindstream.models import DeferredJudge, DeferredPairJudge

        changes = policy.changes
        if not (changes.enabled and changes.use_judge):
            return None
        if not (changes.judge == "pair" or self.models.built("change_judge")):
            return DeferredJudge(lambda: self.models.judge)
        judge = self.models.change_judge
        pair = judge if isinstance(judge, DeferredPairJudge) else DeferredPairJudge(lambda: judge)
        if changes.confirm_from is None:
            return pair
        from mindstream.memory.confirmation import ConfirmedJudge

        return ConfirmedJudge(pair, DeferredJudge(lambda: self.models.judge), changes.confirm_from)

    def gate_for(
        self, policy: StreamConfig, embedder: Embedder | None = None
    ) -> CandidateGate | None:
        """The shipped change gate for the pair judge of a policy that detects changes, where
        it was trained on the vectors of `embedder` (default: the configured one); the stream's
        detector leaves it unused where the policy turns `gate` off."""
        changes = policy.changes
        if not (changes.enabled and changes.use_judge and changes.judge == "pair"):
            return None
        from mindstream.lm.judges.change_gate import load_change_gate

        name = getattr(embedder or self.models.embedder, "name", None)
        return load_change_gate(name) if isinstance(name, str) else None

    def reranker_for(self, policy: StreamConfig) -> Reranker | None:
        """The shipped reranker for a policy that re-scores its candidates (`rerank`), built
        on its first query."""
        return self.models.reranker if policy.rerank is not None else None

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
            shared = self.config.store
            if collection is not None:
                return ChromaStore.http(shared.host, shared.port, collection=collection)
            host = shared.memory_host or shared.host
            return ChromaStore.http(host, shared.memory_port or shared.port)
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
            embedder or self.models.embedder,
            clock=clock,
            rater=rater or self.rater(),
            config=policy,
            judge=self.judge_for(policy),
            reranker=self.reranker_for(policy),
            gate=self.gate_for(policy, embedder),
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
        offers: InsightOffers | None = None,
    ) -> Reflector:
        """Reflection on `stream` with the configured model and settings, or `model` (a run's
        counted view), `config` (a scenario's threshold) and `offers` (a town's)."""
        from mindstream.reflection import Reflector

        chat = model or self.chat_for("reflection")
        return Reflector(stream, chat, config or self.config.reflection, offers)

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
        return self.models.verifier, self.models.judge

    def assistant(
        self,
        path: Path | None = None,
        *,
        store: MemoryStore | None = None,
        residency: Residency | None = None,
    ) -> Assistant:
        """The personal assistant on its own stream (the assistant's retrieval policy);
        with `residency`, holding only the users it serves (a service replica)."""
        from mindstream.agents.assistant import Assistant
        from mindstream.memory import MemoryStream

        policy = self.config.assistant.stream
        stream = MemoryStream(
            store or self.store(path),
            self.models.embedder,
            rater=self.rater(),
            config=policy,
            judge=self.judge_for(policy),
            residency=residency,
            reranker=self.reranker_for(policy),
            gate=self.gate_for(policy),
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
            self.models.chat,
            self.models.scorer,
            batched=batched,
            concurrent=batched and served,
            ledger=self.ledger,
            clock=MODEL_BUSY if served else None,
            reactions=self.models.reactions,
            poignancy=self.models.poignancy,
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


def _changed(config: ModelT, changes: dict[str, Any]) -> ModelT:
    """A copy of a frozen configuration with `changes`, validated like the original."""
    return type(config).model_validate({**config.model_dump(), **changes})
