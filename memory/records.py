"""The data of the memory layer: records, scored results, retrieval weights, configuration."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from mindstream.memory.errors import InvalidMemoryError

MetadataValue = str | int | float | bool


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("text is empty")
    return text


MemoryText = Annotated[str, AfterValidator(_not_blank)]


class MemoryKind(StrEnum):
    OBSERVATION = "observation"
    DIALOGUE = "dialogue"
    PLAN = "plan"
    REFLECTION = "reflection"
    CORRECTION = "correction"
    FACT = "fact"


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    FORGOTTEN = "forgotten"


KIND_CODES = {kind: code for code, kind in enumerate(MemoryKind)}
STATUS_CODES = {status: code for code, status in enumerate(MemoryStatus)}


Detection = Literal["pending", "done", "failed"]


class Provenance(BaseModel):
    """Where a memory stands among its owner's others: whether it is recalled, what it is
    about, what it replaced and what replaced it (how, with what probability, when), what it
    was likeliest to replace (a near miss ranks above it, retiring nothing), and whether
    change detection has looked at it yet. Every link names memories of the same owner."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    recall: bool = Field(
        True,
        description="False for memories kept for provenance and history only (a user's "
        "question, the assistant's own answer, a correction note): never recalled as facts",
    )
    subject: str | None = Field(None, description="what it is the state of (a town's object)")
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    superseded_at: datetime | None = None
    how: str | None = Field(None, description="how it was superseded: judge, subject, correction")
    probability: float | None = Field(None, description="the judge's P(replaces) that retired it")
    corrects: str | None = None
    restored_from: str | None = None
    restored_at: datetime | None = None
    closest: str | None = Field(
        None,
        description="the earlier memory the judge found it likeliest to replace (it ranks "
        "above it when `closest_p` reaches the policy's `rank_above`, both staying true)",
    )
    closest_p: float | None = Field(None, description="the judge's P(replaces) for `closest`")
    near: tuple[str, ...] = Field(
        (),
        description="every earlier memory whose P(replaces) reached the policy's "
        "`rank_each_above` without retiring it, likeliest first: it ranks above each",
    )
    closest_model: float | None = Field(
        None,
        description="the chat model's own P(replaces) for `closest` when it was asked to "
        "confirm (`closest_p` is then both opinions combined)",
    )
    detection: Detection | None = Field(
        None, description="change detection: pending (not yet judged), done, or failed"
    )

    def links(self) -> tuple[str, ...]:
        """Every memory id this provenance names."""
        named = (self.corrects, self.restored_from, self.closest)
        return (*self.supersedes, *self.superseded_by, *self.near, *(i for i in named if i))


# Provenance kept in `metadata` by stores and exports written before it was typed.
_LEGACY_KEYS = {
    "recall": "recall",
    "subject": "subject",
    "supersedes": "supersedes",
    "superseded_by": "superseded_by",
    "superseded_at": "superseded_at",
    "superseded_how": "how",
    "supersede_p": "probability",
    "corrects": "corrects",
    "restored_from": "restored_from",
    "restored_at": "restored_at",
    "change_against": "closest",
    "change_p": "closest_p",
}


def lift_legacy_provenance(fields: dict[str, Any]) -> dict[str, Any]:
    """Move provenance that older versions kept in `metadata` into `provenance`."""
    metadata = fields.get("metadata")
    if not isinstance(metadata, dict) or not set(metadata) & set(_LEGACY_KEYS):
        return fields
    lifted = dict(fields.get("provenance") or {})
    for key, name in _LEGACY_KEYS.items():
        if key in metadata:
            value = metadata[key]
            if name in ("supersedes", "superseded_by"):
                value = tuple(i for i in str(value).split(",") if i)
            lifted.setdefault(name, str(value) if name == "subject" else value)
    rest = {k: v for k, v in metadata.items() if k not in _LEGACY_KEYS}
    return {**fields, "metadata": rest, "provenance": lifted}


class MemoryRecord(BaseModel):
    """One memory. Immutable: changes (status, last access) produce a new record.

    `evidence` lists the ids a memory cites (a reflection's sources); `provenance` its links
    to the memories it replaced or that replaced it; `metadata` holds flat values only, so
    every store can keep them (`stale`, `depth`, `question`, ...).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    owner: str = Field(min_length=1)
    kind: MemoryKind
    text: MemoryText
    created_at: datetime
    last_accessed_at: datetime
    importance: float = Field(ge=1.0, le=10.0)
    evidence: tuple[str, ...] = ()
    status: MemoryStatus = MemoryStatus.ACTIVE
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    provenance: Provenance = Provenance()

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        return lift_legacy_provenance(data) if isinstance(data, dict) else data

    @property
    def stale(self) -> bool:
        return bool(self.metadata.get("stale", False))

    @property
    def recalled(self) -> bool:
        """False for memories kept for provenance and history only: retrieval skips them
        unless asked."""
        return self.provenance.recall

    @property
    def replaced_by(self) -> str | None:
        """The memory that superseded this one (the newest, if several did)."""
        return self.provenance.superseded_by[-1] if self.provenance.superseded_by else None

    @property
    def subject(self) -> str | None:
        return self.provenance.subject


class ScoredMemory(BaseModel):
    """A retrieved memory with the parts of its score, so every answer is explainable.

    The parts are min-max normalised over the candidates, as in Generative Agents; `recency_raw`
    is decay^(hours since last access) before normalisation.
    """

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord
    score: float
    recency: float
    importance: float
    relevance: float
    recency_raw: float


class RetrievalWeights(BaseModel):
    """Weights of the three parts of the score.

    The paper states equal weights (the default). The original code's effective weights were
    recency 0.5, importance 2, relevance 3: `RetrievalWeights.original_code()`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    recency: float = Field(1.0, ge=0.0)
    importance: float = Field(1.0, ge=0.0)
    relevance: float = Field(1.0, ge=0.0)

    @classmethod
    def original_code(cls) -> RetrievalWeights:
        return cls(recency=0.5, importance=2.0, relevance=3.0)

    @classmethod
    def relevance_only(cls) -> RetrievalWeights:
        """For a corpus of facts, where recency and importance mean nothing."""
        return cls(recency=0.0, importance=0.0, relevance=1.0)


RelevanceMode = Literal["embedding", "bm25", "hybrid"]

# Kinds that state what is true now: a newer one may make an older one out of date.
CHANGING_KINDS = (
    MemoryKind.FACT,
    MemoryKind.OBSERVATION,
    MemoryKind.DIALOGUE,
    MemoryKind.CORRECTION,
)


class ChangePolicy(BaseModel):
    """Change detection: each new statement is compared with its owner's `candidates` most
    similar earlier memories that are still true (cosine at least `min_similarity`) by the
    change judge, and supersedes those it replaces with probability at least `threshold`
    (and, for a judge that tells it, answers the same question with at least `same_slot`).
    Memories whose `subject` matches (an object's state in a town) supersede without asking.
    With `background`, a write is stored and searchable at once and judged by the stream's
    worker after it (`detection: pending` until then)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = Field(False, description="check every write against earlier memories")
    use_judge: bool = Field(
        True, description="ask the change judge (off: only matching `subject`s supersede)"
    )
    threshold: float = Field(
        0.9,
        gt=0.0,
        le=1.0,
        description="P(replaces) to supersede, chosen for precision on the dev conversations "
        "(mindstream/lm/adapters/change_judge/training.json); below it a memory at least "
        "`rank_above` likely only ranks above the older one",
    )
    same_slot: float = Field(
        0.5, ge=0.0, le=1.0, description="P(same question) a judge that tells it must reach"
    )
    rank_above: float | None = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="a memory at least this likely (but below `threshold`) to replace an "
        "earlier one ranks right above it in retrieval, the earlier staying active (None: off)",
    )
    rank_each_above: float | None = Field(
        0.75,
        ge=0.0,
        le=1.0,
        description="a memory at least this likely (but below `threshold`) to replace each of "
        "several earlier ones ranks above every one of them, not only its closest (0.75: on "
        "the dev part, 0.25 put too many newer memories above facts still true; None: off)",
    )
    candidates: int = Field(
        3, ge=1, description="most similar earlier memories compared (3: chosen on the dev part)"
    )
    min_similarity: float = Field(
        0.3, ge=-1.0, le=1.0, description="cosine to be compared (0.3: chosen on the dev part)"
    )
    gate: bool = Field(
        True,
        description="let the change gate (read from the two embeddings) pass over the pairs "
        "not worth judging, when one is trained for the embedder (off: judge every pair)",
    )
    background: bool = Field(
        False, description="judge in the stream's background worker, after the write returns"
    )
    confirm_from: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="pairs the pair judge gives at least this P(replaces) are asked again of "
        "the chat model's relation judge, and `threshold` applies to both opinions combined "
        "(odds multiplied, never above the pair judge's own); None: the pair judge alone",
    )
    judge: Literal["pair", "model"] = Field(
        "pair",
        description="pair: the trained change judge (a small cross-encoder beside any chat "
        "model); model: the chat model's own yes/no (its adapter, or few-shot when served)",
    )
    kinds: tuple[MemoryKind, ...] = CHANGING_KINDS


class StreamConfig(BaseModel):
    """How a stream scores and stores memories: its retrieval policy.

    `decay` is per `recency_unit_hours` of the stream's clock: the paper's 0.99 per sandbox
    hour is `decay=0.99`; an assistant that lives for months wants days (`24`). With `gate`,
    the Park score re-ranks only the `gate` most relevant memories (by `mode`), so recency and
    importance order the relevant ones instead of filling the top with the newest. Above
    `ann_threshold` memories of one owner, an ANN prefilter from the store picks
    `ann_candidates` by relevance and the exact score re-ranks them.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    decay: float = Field(0.995, gt=0.0, lt=1.0)
    recency_unit_hours: float = Field(1.0, gt=0.0, description="the time unit of `decay`")
    weights: RetrievalWeights = RetrievalWeights()
    mode: RelevanceMode = Field("embedding", description="relevance when a query names none")
    gate: int | None = Field(
        None, ge=1, description="re-rank only the N (at least k) most relevant memories"
    )
    dimension: int = Field(384, ge=1)
    precision: Literal["float32", "int8", "auto"] = "auto"
    ann_threshold: int | None = Field(None, ge=1)
    ann_candidates: int = Field(1000, ge=1)
    hybrid_alpha: float = Field(0.5, ge=0.0, le=1.0)
    rerank: int | None = Field(
        None,
        ge=1,
        description="re-score the N most relevant memories with the stream's reranker (a "
        "cross-encoder reading question and memory together) before the gate; None: off",
    )
    rerank_weight: float = Field(
        0.5, ge=0.0, description="the reranker's score beside relevance (both min-max scaled)"
    )
    flush_every: int = Field(256, ge=1)
    default_importance: dict[MemoryKind, float] = Field(
        default_factory=lambda: {MemoryKind.CORRECTION: 8.0}
    )
    changes: ChangePolicy = Field(default_factory=ChangePolicy)

    def with_changes(self, **update: Any) -> StreamConfig:
        """This policy with some of its change detection's fields replaced (the conditions an
        experiment or a benchmark compares)."""
        return self.model_copy(update={"changes": self.changes.model_copy(update=update)})


class NewMemory(BaseModel):
    """What a caller gives to `add_many`; the stream fills in id, times and importance.
    `recall` False keeps it for history only; `subject` names what it is the state of (a new
    memory about the same subject supersedes the last without asking a judge)."""

    model_config = ConfigDict(frozen=True)

    text: MemoryText
    owner: str = Field(min_length=1)
    kind: MemoryKind = MemoryKind.OBSERVATION
    importance: float | None = Field(None, ge=1.0, le=10.0)
    evidence: tuple[str, ...] = ()
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    created_at: datetime | None = None
    recall: bool = True
    subject: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        """`recall` and `subject` given in metadata, as before they were fields."""
        if not isinstance(data, dict) or not isinstance(data.get("metadata"), dict):
            return data
        metadata = dict(data["metadata"])
        out = dict(data)
        for key in ("recall", "subject"):
            if key in metadata:
                value = metadata.pop(key)
                out.setdefault(key, str(value) if key == "subject" else value)
        out["metadata"] = metadata
        return out


def new_memory(**fields: Any) -> NewMemory:
    """Build a NewMemory, turning validation errors into one line naming the field."""
    try:
        return NewMemory(**fields)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "memory"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise InvalidMemoryError(f"{where}: {message} (got {first.get('input')!r})") from None
