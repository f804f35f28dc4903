"""The assistant's configuration, with its retrieval policy for memories that last months."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from mindstream.memory.records import ChangePolicy, RetrievalWeights, StreamConfig


def long_horizon() -> StreamConfig:
    """Relevance first, recency in days: the 10 most relevant memories (hybrid, mostly
    embedding), re-ranked by the Park score with recency decaying 1% a day.

    Over months, recency in hours, min-max normalised, fills the top of every query with the
    last session. Gated by relevance, recency only orders what is about the question, so the
    newer of two addresses comes first; with the gate at least k, the set of k memories is the
    relevance top k. Model-rated importance is left out (it lowered recall). Chosen on
    mindstream's own conversation (tests/data/long_memory.json, docs/results.md): hybrid weight
    0.3 on BM25 beat 0.5 and 0.7 with the stock MiniLM; with the dialogue-tuned embedder 0.2
    is the weight that keeps hybrid at or above embedding alone there (0.960 vs 0.955; 0.3:
    0.950) and on the dev chats (0.921 vs 0.921; 0.3: 0.918). Recency 0.5 kept the most of
    R@5 among the weights that ordered changed facts right.

    Change detection is on, off the write path: a new statement supersedes the earlier ones
    the change judges (two pair models read as one, `lm/judges/change_judge.py`) find it
    replaces at P >= 0.9, judged in the stream's background worker after the write returns,
    so what is true now is what is retrieved (history stays reachable). On the dev chats the
    two judges gave 94.4% precision at 49.3% recall, one must-stay fact of 83 retired, at 54
    memories/s; asking the chat model's relation judge as well (`confirm_from: 0.9`, the
    policy before) added nothing there (94.1% / 46.5%) at half the speed. A pair the judges
    find at least a quarter likely to be a replacement retires nothing but ranks the newer
    memory above the older (`rank_above`): current first on the dev chats' changed facts
    76.8% at 0.5, 80.4% at 0.25, 82.1% at 0.1 (83.9% at 0.25 since the first judge learned
    numeric updates, docs/concepts/truth.md).
    """
    return StreamConfig(
        changes=ChangePolicy(enabled=True, background=True, rank_above=0.25),
        mode="hybrid",
        hybrid_alpha=0.2,
        gate=10,
        decay=0.99,
        recency_unit_hours=24.0,
        weights=RetrievalWeights(recency=0.5, importance=0.0, relevance=3.0),
    )


class AssistantConfig(BaseModel):
    """How the personal assistant remembers, answers and reflects."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stream: StreamConfig = Field(default_factory=long_horizon)
    k: int = Field(8, ge=1, description="memories retrieved for an answer")
    history: int = Field(6, ge=0, description="recent turns of the chat shown with them")
    replaced_shown: int = Field(
        2, ge=0, description="superseded memories shown under the one that replaced them"
    )
    recall_replaced: bool = Field(
        True,
        description="superseded memories compete in recall as history, marked no longer true "
        'and placed after what replaced them ("what was my job at Brightline?")',
    )
    max_tokens: int = Field(96, ge=1, description="length of an answer")
    answer_importance: float = Field(
        2.0, ge=1, le=10, description="importance of the assistant's own turns (not rated)"
    )
    reflect_every_minutes: float | None = Field(
        60.0, gt=0, description="scheduled reflection per user; None: only on request"
    )
