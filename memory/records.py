"""The data of the memory layer: records, scored results, retrieval weights, configuration."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

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


class MemoryRecord(BaseModel):
    """One memory. Immutable: changes (status, last access) produce a new record.

    `evidence` lists the ids a memory cites (a reflection's sources); `metadata` holds flat
    values only, so every store can keep them (`stale`, `depth`, `question`, ...).
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

    @property
    def stale(self) -> bool:
        return bool(self.metadata.get("stale", False))

    @property
    def recalled(self) -> bool:
        """False for memories kept for provenance and history only (a user's question, the
        assistant's own answer, a correction note): retrieval skips them unless asked."""
        return bool(self.metadata.get("recall", True))


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
    """Write-time change detection: each new memory is compared with its owner's `candidates`
    most similar active memories (cosine at least `min_similarity`) by the relation judge, and
    supersedes those it replaces with probability at least `threshold`. Memories whose
    metadata `subject` matches (an object's state in a town) supersede without asking."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = Field(False, description="check every write against earlier memories")
    use_judge: bool = Field(
        True, description="ask the relation judge (off: only matching `subject`s supersede)"
    )
    threshold: float = Field(
        0.95,
        gt=0.0,
        le=1.0,
        description="P(replaces) to supersede (0.95: the most replacements caught with at most "
        "5% of compatible pairs caught on the judge's held-out slots, 77.4% and 3.8% in "
        "mindstream/lm/adapters/judge/replaces/training.json; a near miss still ranks above, "
        "`rank_above`)",
    )
    rank_above: float | None = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="a memory at least this likely (but below `threshold`) to replace an "
        "earlier one ranks right above it in retrieval, the earlier staying active (0.5: "
        "more likely replaced than not; None: off)",
    )
    candidates: int = Field(5, ge=1, description="most similar active memories compared")
    min_similarity: float = Field(
        0.15,
        ge=-1.0,
        le=1.0,
        description="cosine to be compared (0.15 keeps 99% of the training replacements)",
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
    flush_every: int = Field(256, ge=1)
    default_importance: dict[MemoryKind, float] = Field(
        default_factory=lambda: {MemoryKind.CORRECTION: 8.0}
    )
    changes: ChangePolicy = Field(default_factory=ChangePolicy)


class NewMemory(BaseModel):
    """What a caller gives to `add_many`; the stream fills in id, times and importance."""

    model_config = ConfigDict(frozen=True)

    text: MemoryText
    owner: str = Field(min_length=1)
    kind: MemoryKind = MemoryKind.OBSERVATION
    importance: float | None = Field(None, ge=1.0, le=10.0)
    evidence: tuple[str, ...] = ()
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    created_at: datetime | None = None


def new_memory(**fields: Any) -> NewMemory:
    """Build a NewMemory, turning validation errors into one line naming the field."""
    try:
        return NewMemory(**fields)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "memory"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise InvalidMemoryError(f"{where}: {message} (got {first.get('input')!r})") from None
