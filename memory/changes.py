"""Write-time change detection: a new memory supersedes the older ones it makes out of date.

"I live in Leeds", then weeks later "the boxes went over to the new house in York": recency
alone cannot tell that the first is no longer true. On every write, each new memory of a
changing kind is compared with its owner's few most similar active memories that came before
it, in one judge batch per write batch; where the judge's P(replaces) reaches the policy's
threshold, the older memory is superseded exactly as a correction by hand would (kept, marked,
linked both ways, never deleted; `restore` undoes it). Observations carrying the same
`subject` in their metadata (an object's state in a town) supersede without asking.

A judge that fails (a server down, an unparseable reply) leaves the memories added and
unsuperseded, and says so once in the log: a write is never lost to change detection.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Literal, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict

from mindstream.memory import corrections
from mindstream.memory.book import EditableBook
from mindstream.memory.records import (
    ChangePolicy,
    MemoryKind,
    MemoryRecord,
    MemoryStatus,
    ScoredMemory,
)

log = logging.getLogger(__name__)


class Neighbourhood(EditableBook, Protocol):
    """The stream as change detection sees it: records, and an owner's earlier memories most
    like a new one."""

    def similar(
        self,
        record: MemoryRecord,
        vector: np.ndarray,
        *,
        k: int,
        kinds: Iterable[MemoryKind],
        min_similarity: float,
    ) -> list[tuple[MemoryRecord, float]]: ...


@runtime_checkable
class ReplacementJudge(Protocol):
    """P(the later statement makes the earlier one out of date) for (earlier, later) pairs, in
    one batch (`lm.judge.RelationJudge` is one)."""

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]: ...


class ChangeDecision(BaseModel):
    """One comparison made on a write, and what came of it."""

    model_config = ConfigDict(frozen=True)

    old_id: str
    new_id: str
    probability: float
    similarity: float
    how: Literal["judge", "subject"]
    superseded: bool


class ChangeDetector:
    """Compares each write with what came before and supersedes what it replaces."""

    def __init__(self, judge: ReplacementJudge | None, policy: ChangePolicy) -> None:
        self.judge = judge
        self.policy = policy
        self._warned = False
        self._latest: dict[str, dict[str, str]] = {}

    def check(
        self, stream: Neighbourhood, records: Sequence[MemoryRecord], vectors: np.ndarray
    ) -> list[ChangeDecision]:
        """Judge the new `records` (already stored and indexed) and apply the decisions."""
        if not self.policy.enabled:
            return []
        eligible = [
            (record, vector)
            for record, vector in zip(records, vectors, strict=True)
            if record.kind in self.policy.kinds and record.recalled
        ]
        decisions = self._by_subject(stream, [r for r, _ in eligible])
        decided = {(d.old_id, d.new_id) for d in decisions}
        pairs = [
            (old, new, similarity)
            for new, vector in eligible
            if self.judge is not None and self.policy.use_judge and "subject" not in new.metadata
            for old, similarity in stream.similar(
                new,
                vector,
                k=self.policy.candidates,
                kinds=self.policy.kinds,
                min_similarity=self.policy.min_similarity,
            )
            if (old.id, new.id) not in decided
        ]
        decisions += self._judged(pairs)
        return self._apply(stream, decisions)

    def _by_subject(
        self, stream: Neighbourhood, records: Sequence[MemoryRecord]
    ) -> list[ChangeDecision]:
        """A new memory about a `subject` supersedes the owner's active one about it."""
        out = []
        batch = {r.id for r in records}
        for new in records:
            subject = new.metadata.get("subject")
            if subject is None:
                continue
            latest = self._subjects(stream, new.owner, batch)
            old = stream.find(latest.get(str(subject), ""))
            if (
                old is not None
                and old.status is MemoryStatus.ACTIVE
                and old.created_at <= new.created_at
            ):
                out.append(_decision(old, new, 1.0, 1.0, "subject", True))
            if old is None or old.created_at <= new.created_at:
                latest[str(subject)] = new.id
        return out

    def _subjects(self, stream: Neighbourhood, owner: str, batch: set[str]) -> dict[str, str]:
        """subject -> the owner's newest memory about it (read from the stream once, before
        this batch)."""
        if owner not in self._latest:
            about = [
                r for r in stream.records(owner) if "subject" in r.metadata and r.id not in batch
            ]
            about.sort(key=lambda r: r.created_at)
            self._latest[owner] = {str(r.metadata["subject"]): r.id for r in about}
        return self._latest[owner]

    def _judged(
        self, pairs: list[tuple[MemoryRecord, MemoryRecord, float]]
    ) -> list[ChangeDecision]:
        if not pairs or self.judge is None:
            return []
        try:
            probabilities = self.judge.replaces_batch([(o.text, n.text) for o, n, _ in pairs])
        except Exception as error:  # any failure of the judge keeps the write
            if not self._warned:
                log.warning(
                    "change detection skipped: the judge failed (%s); memories were added "
                    "and nothing was superseded",
                    error,
                )
                self._warned = True
            return []
        threshold = self.policy.threshold
        return [
            _decision(old, new, p, similarity, "judge", p >= threshold)
            for (old, new, similarity), p in zip(pairs, probabilities, strict=True)
        ]

    def _apply(
        self, stream: Neighbourhood, decisions: list[ChangeDecision]
    ) -> list[ChangeDecision]:
        """Supersede in the order the new memories came (so A, B, C that each replace the one
        before form the chain A -> B -> C), then note on each new memory its closest call.
        Statuses are read again here: the judge may have run with the stream unlocked, and a
        memory deleted meanwhile is left out."""
        present = [d for d in decisions if stream.find(d.new_id) and stream.find(d.old_id)]
        order = {d.new_id: stream.get(d.new_id).created_at for d in present}
        applied = []
        for decision in sorted(present, key=lambda d: order[d.new_id]):
            old = stream.get(decision.old_id)
            if decision.superseded and old.status is MemoryStatus.ACTIVE:
                corrections.retire(
                    stream,
                    old,
                    stream.get(decision.new_id),
                    how=decision.how,
                    probability=decision.probability,
                )
                applied.append(decision)
            else:
                applied.append(decision.model_copy(update={"superseded": False}))
        _note_closest(stream, applied)
        return applied


def _decision(
    old: MemoryRecord,
    new: MemoryRecord,
    p: float,
    similarity: float,
    how: Literal["judge", "subject"],
    superseded: bool,
) -> ChangeDecision:
    return ChangeDecision(
        old_id=old.id,
        new_id=new.id,
        probability=round(float(p), 4),
        similarity=round(float(similarity), 4),
        how=how,
        superseded=superseded,
    )


def _note_closest(stream: Neighbourhood, decisions: list[ChangeDecision]) -> None:
    """Each judged new memory keeps its highest P(replaces) and against which memory, so a
    near miss is visible in exports and pages."""
    best: dict[str, ChangeDecision] = {}
    for decision in decisions:
        if decision.new_id not in best or decision.probability > best[decision.new_id].probability:
            best[decision.new_id] = decision
    changes = []
    for new_id, decision in best.items():
        record = stream.get(new_id)
        note = {"change_p": decision.probability, "change_against": decision.old_id}
        changes.append((record, {"metadata": {**record.metadata, **note}}))
    stream.replace_many(changes)


def newer_first(results: list[ScoredMemory], at_least: float) -> list[ScoredMemory]:
    """A near miss is a doubt, not a decision: below the threshold the older memory stays
    active, but a memory whose closest call (`change_p` against `change_against`) reached
    `at_least` is moved right above that memory when both are among `results` and it ranked
    below. Nothing enters or leaves the results."""
    out = list(results)
    for newer in results:
        p = newer.record.metadata.get("change_p")
        older = newer.record.metadata.get("change_against")
        if not isinstance(p, (int, float)) or p < at_least:
            continue
        ids = [m.record.id for m in out]
        if older not in ids or ids.index(older) > ids.index(newer.record.id):
            continue
        out.remove(newer)
        out.insert(ids.index(older), newer)
    return out
