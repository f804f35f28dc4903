"""Change detection: a new memory supersedes the older ones it makes out of date.

"I live in Leeds", then weeks later "first night in our place in York": recency alone cannot
tell that the first is no longer true. Each new statement is compared with its owner's few
most similar earlier memories that are still true, and where a judge is confident that it
replaces one (it answers the same question about the same person or thing, and the earlier
answer no longer holds), the older memory is superseded exactly as a correction by hand would
(kept, marked, linked both ways, never deleted; `restore` undoes it).

Precision first: a wrong supersede hides a true fact. So, before any judge is asked:
- a question, small talk or a memory kept for history only (an assistant's turn) never
  supersedes anything;
- two like items of a list ("note 4: parcel code P004", "note 5: parcel code P005") never
  supersede each other unless the later says something changed;
- what one speaker said never supersedes another speaker's statement.
Where the judge is unsure (below `threshold`, at least `rank_above`), the newer memory only
ranks above the older one; nothing is retired. Observations carrying the same `subject` (an
object's state in a town) supersede without asking.

The work runs in three phases so that the slow one holds no lock: `gather` the pairs to judge
(reading the stream), `judge` them (the model), `apply` the decisions (writing the stream,
re-reading every status first). A judge that fails leaves the memories stored and
unsuperseded, and says so once in the log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict

from mindstream.memory import corrections
from mindstream.memory.book import EditableBook
from mindstream.memory.dates import announced, came_as_announced
from mindstream.memory.records import (
    ChangePolicy,
    MemoryKind,
    MemoryRecord,
    MemoryStatus,
)
from mindstream.memory.statements import (
    is_question,
    is_small_talk,
    like_items,
    plan_came_true,
    speaker_of,
    without_speaker,
)

log = logging.getLogger(__name__)

Rule = Literal[
    "judge",
    "subject",
    "like items",
    "other speaker",
    "plan came true",
    "announced",
    "came as announced",
    "gate",
]


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

    def vector_of(self, record: MemoryRecord) -> np.ndarray: ...


@runtime_checkable
class ReplacementJudge(Protocol):
    """P(the later statement makes the earlier one out of date) for (earlier, later) pairs, in
    one batch (`lm.judge.RelationJudge` and `lm.change_judge.OnnxChangeJudge` are judges)."""

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]: ...


class CandidateGate(Protocol):
    """Which (earlier, later) pairs are worth judging, read from their vectors alone
    (`lm.judges.change_gate.ChangeGate`): one bool per row."""

    def keep(self, old: np.ndarray, new: np.ndarray, similarity: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class SlotJudge(Protocol):
    """A judge that also says whether both statements answer the same question (its
    `relate_batch` returns objects with `replaces` and `about_the_same`)."""

    def relate_batch(self, pairs: Sequence[tuple[str, str]]) -> Sequence[object]: ...


class ChangeDecision(BaseModel):
    """One comparison made for a write, and what came of it."""

    model_config = ConfigDict(frozen=True)

    old_id: str
    new_id: str
    probability: float
    same_slot: float | None = None
    model: float | None = None  # the chat model's P(replaces) when it was asked to confirm
    similarity: float
    rule: Rule
    superseded: bool
    likely: bool = False


@dataclass
class Gathered:
    """What the first phase found: decisions made by rule, and the pairs left to judge."""

    decided: list[ChangeDecision] = field(default_factory=list)
    pairs: list[tuple[MemoryRecord, MemoryRecord, float]] = field(default_factory=list)
    judged: list[str] = field(default_factory=list)  # ids of the new memories looked at


def states_something(record: MemoryRecord) -> bool:
    """Only a recalled statement can replace anything: not a question, not small talk."""
    return record.recalled and not is_question(record.text) and not is_small_talk(record.text)


class ChangeDetector:
    """Compares each write with what came before and supersedes what it replaces."""

    def __init__(
        self,
        judge: ReplacementJudge | None,
        policy: ChangePolicy,
        gate: CandidateGate | None = None,
    ) -> None:
        self.judge = judge
        self.policy = policy
        self.gate = gate if policy.gate else None
        self._warned = False
        self._latest: dict[str, dict[str, str]] = {}

    @property
    def judging(self) -> bool:
        return self.policy.enabled and self.policy.use_judge and self.judge is not None

    def check(
        self, stream: Neighbourhood, records: Sequence[MemoryRecord], subjects: bool = True
    ) -> list[ChangeDecision]:
        """All three phases at once, the caller holding whatever lock it needs."""
        gathered = self.gather(stream, records, subjects)
        try:
            judged = self.judged(gathered)
        except JudgeFailed:
            judged = []
        return self.apply(stream, gathered.decided + judged)

    def by_subject(
        self, stream: Neighbourhood, records: Sequence[MemoryRecord]
    ) -> list[ChangeDecision]:
        """A new memory about a `subject` supersedes the owner's latest one about it."""
        if not self.policy.enabled:
            return []
        out = []
        batch = {r.id for r in records}
        for new in records:
            if new.subject is None or new.kind not in self.policy.kinds:
                continue
            latest = self._subjects(stream, new.owner, batch)
            old = stream.find(latest.get(new.subject, ""))
            if (
                old is not None
                and old.status is MemoryStatus.ACTIVE
                and old.created_at <= new.created_at
            ):
                out.append(_decision(old, new, 1.0, None, 1.0, "subject", True))
            if old is None or old.created_at <= new.created_at:
                latest[new.subject] = new.id
        return out

    def _subjects(self, stream: Neighbourhood, owner: str, batch: set[str]) -> dict[str, str]:
        """subject -> the owner's newest memory about it (read from the stream once, before
        this batch)."""
        if owner not in self._latest:
            about = [
                r for r in stream.records(owner) if r.subject is not None and r.id not in batch
            ]
            about.sort(key=lambda r: r.created_at)
            self._latest[owner] = {str(r.subject): r.id for r in about}
        return self._latest[owner]

    def will_judge(self, record: MemoryRecord) -> bool:
        """Whether the judge looks at this memory (its kind changes; it has no subject)."""
        return self.judging and record.subject is None and record.kind in self.policy.kinds

    def gather(
        self, stream: Neighbourhood, records: Sequence[MemoryRecord], subjects: bool = True
    ) -> Gathered:
        """Phase one (reads the stream): the subject rule (unless done already), then each
        statement's nearest earlier memories, minus the pairs a rule decides."""
        out = Gathered(decided=self.by_subject(stream, records) if subjects else [])
        if not self.judging:
            return out
        for new in records:
            if not self.will_judge(new):
                continue
            out.judged.append(new.id)
            if not states_something(new):
                continue
            for old, similarity in stream.similar(
                new,
                stream.vector_of(new),
                k=self.policy.candidates,
                kinds=self.policy.kinds,
                min_similarity=self.policy.min_similarity,
            ):
                rule = _rule(old, new)
                if rule is None:
                    out.pairs.append((old, new, similarity))
                else:
                    out.decided.append(_decision(old, new, 0.0, None, similarity, rule, False))
        return self._gated(stream, out)

    def _gated(self, stream: Neighbourhood, gathered: Gathered) -> Gathered:
        """The pairs the gate finds not worth judging, decided without the judge."""
        if self.gate is None or not gathered.pairs:
            return gathered
        old = np.stack([stream.vector_of(o) for o, _, _ in gathered.pairs])
        new = np.stack([stream.vector_of(n) for _, n, _ in gathered.pairs])
        similarity = np.array([s for _, _, s in gathered.pairs], dtype=np.float32)
        keep = self.gate.keep(old, new, similarity)
        for (o, n, s), kept in zip(gathered.pairs, keep, strict=True):
            if not kept:
                gathered.decided.append(_decision(o, n, 0.0, None, s, "gate", False))
        gathered.pairs = [pair for pair, kept in zip(gathered.pairs, keep, strict=True) if kept]
        return gathered

    def judged(self, gathered: Gathered) -> list[ChangeDecision]:
        """Phase two (no lock needed): the judge's probabilities, and what they decide."""
        pairs = gathered.pairs
        if not pairs or self.judge is None:
            return []
        texts = [(_content(o.text, n.text), _content(n.text, o.text)) for o, n, _ in pairs]
        try:
            replaces, same, second = opinions(self.judge, texts)
        except Exception as error:  # any failure of the judge keeps the writes
            self._warn(error)
            raise JudgeFailed(str(error)) from error
        return [
            self._decide(old, new, p, s, similarity).model_copy(update={"model": _rounded(m)})
            for (old, new, similarity), p, s, m in zip(pairs, replaces, same, second, strict=True)
        ]

    def _decide(
        self, old: MemoryRecord, new: MemoryRecord, p: float, same: float | None, similarity: float
    ) -> ChangeDecision:
        policy = self.policy
        slot_ok = same is None or same >= policy.same_slot
        superseded = p >= policy.threshold and slot_ok
        rule: Rule = "judge"
        if superseded and (kept := _kept(old, new)) is not None:
            superseded, rule = False, kept
        likely = not superseded and policy.rank_above is not None and p >= policy.rank_above
        return _decision(old, new, p, same, similarity, rule, superseded, likely)

    def _warn(self, error: Exception) -> None:
        if not self._warned:
            log.warning(
                "change detection skipped: the judge failed (%s); memories were added and "
                "nothing was superseded",
                error,
            )
            self._warned = True

    def apply(self, stream: Neighbourhood, decisions: list[ChangeDecision]) -> list[ChangeDecision]:
        """Phase three (writes the stream): supersede in the order the new memories came (so
        A, B, C that each replace the one before form the chain A -> B -> C), and note each
        new memory's likeliest near miss. Statuses are read again here: a memory deleted or
        retired since phase one is left as it is."""
        present = [d for d in decisions if stream.find(d.new_id) and stream.find(d.old_id)]
        order = {d.new_id: stream.get(d.new_id).created_at for d in present}
        applied = []
        for decision in sorted(present, key=lambda d: order[d.new_id]):
            old, new = stream.get(decision.old_id), stream.get(decision.new_id)
            if decision.superseded and old.status is MemoryStatus.ACTIVE and old.owner == new.owner:
                corrections.retire(
                    stream, old, new, how=decision.rule, probability=decision.probability
                )
                applied.append(decision)
            else:
                applied.append(decision.model_copy(update={"superseded": False}))
        _note_closest(stream, applied, self.policy.rank_each_above)
        return applied


class JudgeFailed(RuntimeError):
    """The judge could not answer; the memories stay stored and unsuperseded."""


def _rule(old: MemoryRecord, new: MemoryRecord) -> Rule | None:
    """The rule that decides a pair without a judge (it never supersedes), if any."""
    speakers = speaker_of(old.text), speaker_of(new.text)
    if None not in speakers and speakers[0] != speakers[1]:
        return "other speaker"
    if like_items(old.text, new.text):
        return "like items"
    return None


def _kept(old: MemoryRecord, new: MemoryRecord) -> Rule | None:
    """A rule that keeps a pair the judge would retire (it only ranks the newer first)."""
    if plan_came_true(old.text, new.text):
        return "plan came true"
    earlier, later = without_speaker(old.text), without_speaker(new.text)
    if announced(later, new.created_at):
        return "announced"
    if came_as_announced(earlier, old.created_at, later, new.created_at):
        return "came as announced"
    return None


def _content(text: str, other: str) -> str:
    """A statement as the judge reads it: without a speaker label both statements share."""
    speaker = speaker_of(text)
    if speaker is not None and speaker == speaker_of(other):
        return text.split(":", 1)[1].strip()
    return text


def opinions(
    judge: ReplacementJudge, pairs: Sequence[tuple[str, str]]
) -> tuple[list[float], list[float | None], list[float | None]]:
    """One batch: P(replaces) of each pair, P(same question) when the judge tells it, and a
    second opinion's P(replaces) when the judge carries one (`memory.confirmation`)."""
    if not isinstance(judge, SlotJudge):
        replaces = [float(p) for p in judge.replaces_batch(pairs)]
        return replaces, [None] * len(replaces), [None] * len(replaces)
    relations = list(judge.relate_batch(pairs))
    return (
        [float(getattr(r, "replaces")) for r in relations],  # noqa: B009
        [_optional(getattr(r, "about_the_same")) for r in relations],  # noqa: B009
        [_optional(getattr(r, "model", None)) for r in relations],
    )


def _optional(p: object) -> float | None:
    return None if p is None else float(p)  # type: ignore[arg-type]


def _rounded(p: float | None) -> float | None:
    return None if p is None else round(float(p), 4)


def _decision(
    old: MemoryRecord,
    new: MemoryRecord,
    p: float,
    same: float | None,
    similarity: float,
    rule: Rule,
    superseded: bool,
    likely: bool = False,
) -> ChangeDecision:
    return ChangeDecision(
        old_id=old.id,
        new_id=new.id,
        probability=round(float(p), 4),
        same_slot=None if same is None else round(float(same), 4),
        similarity=round(float(similarity), 4),
        rule=rule,
        superseded=superseded,
        likely=likely,
    )


def _note_closest(
    stream: Neighbourhood, decisions: list[ChangeDecision], each_above: float | None
) -> None:
    """Each judged new memory keeps its closest call (the earlier memory it was likeliest to
    replace, and how likely) and every near miss from `each_above`, so it ranks above each it
    probably replaced ("Dad is officially 88" above "he's 87", not only above "he'll be 88 on
    the 29th") and every doubt is visible in exports and pages."""
    best: dict[str, ChangeDecision] = {}
    near: dict[str, list[ChangeDecision]] = {}
    for decision in decisions:
        if decision.rule not in _JUDGED:
            continue
        if decision.new_id not in best or decision.probability > best[decision.new_id].probability:
            best[decision.new_id] = decision
        if each_above is not None and decision.likely and decision.probability >= each_above:
            near.setdefault(decision.new_id, []).append(decision)
    changes = []
    for new_id, decision in best.items():
        record = stream.get(new_id)
        misses = sorted(near.get(new_id, []), key=lambda d: -d.probability)
        note = {
            "closest": decision.old_id,
            "closest_p": decision.probability,
            "closest_model": decision.model,
            "near": tuple(d.old_id for d in misses),
        }
        changes.append((record, {"provenance": record.provenance.model_copy(update=note)}))
    stream.replace_many(changes)


_JUDGED: tuple[Rule, ...] = ("judge", "plan came true", "announced", "came as announced")
