"""The memory stream: timestamped memories of many owners, retrieved the Generative Agents way.

The store is the system of record; the per-owner vectorised index (and the BM25 index) are
rebuilt from it on open. A memory is written to the store before it enters the index, so a
crash never leaves an indexed memory that was not stored.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from mindstream.memory import corrections
from mindstream.memory.changes import (
    CandidateGate,
    ChangeDecision,
    ChangeDetector,
    ReplacementJudge,
)
from mindstream.memory.clock import Clock, SystemClock, to_hours
from mindstream.memory.detection import DetectionWorker
from mindstream.memory.embedder import Embedder, align
from mindstream.memory.errors import InvalidMemoryError, MemoryNotFoundError
from mindstream.memory.importance import RateTexts
from mindstream.memory.index import OwnerIndex
from mindstream.memory.intake import Intake, records_of
from mindstream.memory.near_misses import newer_first
from mindstream.memory.owner import OwnerState
from mindstream.memory.provenance import CitationGraph
from mindstream.memory.records import (
    KIND_CODES,
    STATUS_CODES,
    MemoryKind,
    MemoryRecord,
    MemoryStatus,
    NewMemory,
    Provenance,
    RelevanceMode,
    RetrievalWeights,
    ScoredMemory,
    StreamConfig,
    new_memory,
)
from mindstream.memory.relevance import (
    Query,
    Reranker,
    check_mode,
    most_similar,
    scored_memories,
    search,
)
from mindstream.memory.residency import Residency
from mindstream.memory.scoring import Scored
from mindstream.memory.stores.base import MemoryStore
from mindstream.memory.transfer import prepared
from mindstream.memory.writes import GatheredWrites

REQUEST_KEY = "idempotency_key"  # the metadata key a write's idempotency key is kept under


class Written(BaseModel):
    """What a write stored, the change decisions made so far, and how many of its memories
    the background worker has yet to judge."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    records: list[MemoryRecord]
    decisions: list[ChangeDecision]
    pending: int = 0


def _pending(provenance: Provenance) -> Provenance:
    return provenance.model_copy(update={"detection": "pending"})


class MemoryStream:
    """Add, retrieve, correct and trace memories; the scoring rule is `OwnerIndex.score`
    (docs/DESIGN.md)."""

    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder,
        *,
        clock: Clock | None = None,
        rater: RateTexts | None = None,
        config: StreamConfig | None = None,
        judge: ReplacementJudge | None = None,
        residency: Residency | None = None,
        reranker: Reranker | None = None,
        gate: CandidateGate | None = None,
    ) -> None:
        """`residency`: hold only the owners used, each loaded from the store on first use
        (a service replica); without it, every memory is loaded now. `reranker` re-scores
        the most relevant memories of a query when the policy's `rerank` asks; `gate` keeps
        the change judge from pairs not worth judging."""
        self.store = store
        self.reranker = reranker
        self.embedder = embedder
        self.clock = clock or SystemClock()
        self.rater = rater
        self.config = config or StreamConfig()
        self.intake = Intake(embedder, rater, self.config)
        self.changes = ChangeDetector(judge, self.config.changes, gate)
        self.lock = threading.RLock()  # every caller's and the detection worker's
        self._writes = GatheredWrites(store)
        self.worker = DetectionWorker(self, self.changes)
        self._records: dict[str, MemoryRecord] = {}
        self._owners: dict[str, OwnerState] = {}
        self._graph = CitationGraph()
        self._pending: dict[str, MemoryRecord] = {}
        self._requests: dict[tuple[str, str], list[str]] = {}  # (owner, request) -> ids
        self._flushing = threading.Lock()
        self.residency = residency
        align(store, embedder)
        if residency is None:
            for records, vectors in store.load():
                self._index(records, vectors)
            self._resume_detection()

    @classmethod
    def open(cls, path: str | Path, embedder: Embedder, **options: Any) -> MemoryStream:
        """The default: a stream persisted in a chromadb folder (created if missing)."""
        from mindstream.memory.stores.chroma import ChromaStore

        return cls(ChromaStore.persistent(path), embedder, **options)

    # ---- adding ------------------------------------------------------------------------
    def add(
        self, text: str, *, owner: str, kind: MemoryKind | str = "observation", **fields: Any
    ) -> MemoryRecord:
        return self.add_many([new_memory(text=text, owner=owner, kind=kind, **fields)])[0]

    def add_many(
        self,
        items: Sequence[NewMemory],
        embeddings: np.ndarray | None = None,
        *,
        detect: bool = True,
    ) -> list[MemoryRecord]:
        """`write`, for the records alone."""
        return self.write(items, embeddings, detect=detect).records

    def write(
        self,
        items: Sequence[NewMemory],
        embeddings: np.ndarray | None = None,
        *,
        detect: bool = True,
    ) -> Written:
        """Validate everything first, embed and rate in one batch each, store, then index
        (searchable at once); then, with `detect` and the policy on, supersede what the new
        memories replace: now, or after this returns in the background worker
        (`ChangePolicy.background`; `settle` waits for it)."""
        if not items:
            return Written(records=[], decisions=[], pending=0)
        for owner in {item.owner for item in items}:
            self.hold(owner)
        self._check_evidence(items)
        vectors = self.intake.vectors(items, embeddings)
        importance = self.intake.importance(items)
        with self.lock:
            records = self._stored(records_of(items, importance, self.clock.now()), vectors, detect)
            return self._detect(records, detect)

    def _stored(
        self, records: list[MemoryRecord], vectors: np.ndarray, detect: bool
    ) -> list[MemoryRecord]:
        if detect and self.config.changes.background:
            records = [
                r.model_copy(update={"provenance": _pending(r.provenance)})
                if self.changes.will_judge(r)
                else r
                for r in records
            ]
        self.store.put(records, vectors)
        self._index(records, vectors)
        return records

    def _detect(self, records: list[MemoryRecord], detect: bool) -> Written:
        if not detect:
            return Written(records=records, decisions=[], pending=0)
        if not self.config.changes.background:
            decisions = self.changes.check(self, records)
            return Written(records=[self._records[r.id] for r in records], decisions=decisions)
        decisions = self.changes.apply(self, self.changes.by_subject(self, records))
        waiting = [r.id for r in records if r.provenance.detection == "pending"]
        self.worker.submit(waiting)
        return Written(
            records=[self._records[r.id] for r in records],
            decisions=decisions,
            pending=len(waiting),
        )

    def settle(self, timeout: float | None = None) -> bool:
        """Wait until background change detection has judged every write so far."""
        return self.worker.settle(timeout)

    def _resume_detection(self, owner: str | None = None) -> None:
        """Memories a stopped process left `pending` are judged again (nothing is skipped),
        one write at a time as they were written (a write's memories share their time)."""
        records = self._records.values() if owner is None else self._of(owner)
        waiting = sorted(
            (r for r in records if r.provenance.detection == "pending"),
            key=lambda r: r.created_at,
        )
        if not (waiting and self.changes.judging):
            return
        for _, written in groupby(waiting, key=lambda r: (r.owner, r.created_at)):
            self.worker.submit([r.id for r in written])

    def written_by(self, owner: str, request: str) -> list[MemoryRecord]:
        """What a write with this idempotency key already stored for `owner` (in order): a
        retried write finds its first attempt here, across restarts (the key is stored with
        the memories, in the same put)."""
        self.hold(owner)
        return [self._records[i] for i in self._requests.get((owner, request), ())]

    def vector_of(self, record: MemoryRecord) -> np.ndarray:
        state = self._owners[record.owner]
        return np.asarray(state.index.embeddings[state.index.row_of[record.id]], dtype=np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length embeddings with the stream's embedder."""
        return self.intake.embed(texts)

    def _check_evidence(self, items: Sequence[NewMemory]) -> None:
        for item in items:
            for cited in item.evidence:
                source = self._records.get(cited)
                if source is None or source.owner != item.owner:
                    raise InvalidMemoryError(
                        f"evidence: {cited!r} is not a memory of {item.owner!r}"
                    )

    def _index(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        by_owner: dict[str, list[int]] = {}
        for position, record in enumerate(records):
            by_owner.setdefault(record.owner, []).append(position)
            self._records[record.id] = record
            request = record.metadata.get(REQUEST_KEY)
            if request is not None:
                self._requests.setdefault((record.owner, str(request)), []).append(record.id)
            self._graph.add(record.id, record.evidence)
        for owner, positions in by_owner.items():
            state = self._owner(owner)
            chosen = [records[p] for p in positions]
            state.index.append(
                [r.id for r in chosen],
                vectors[positions],
                [r.importance for r in chosen],
                [to_hours(r.last_accessed_at) for r in chosen],
                [to_hours(r.created_at) for r in chosen],
                [KIND_CODES[r.kind] for r in chosen],
                [STATUS_CODES[r.status] for r in chosen],
            )
            state.lexical.append([r.text for r in chosen])
            state.inactive += sum(r.status is not MemoryStatus.ACTIVE for r in chosen)
            first = state.index.size - len(chosen)
            state.hidden += [first + n for n, r in enumerate(chosen) if not r.recalled]

    def _owner(self, owner: str) -> OwnerState:
        if owner not in self._owners:
            hourly = self.config.decay ** (1.0 / self.config.recency_unit_hours)
            index = OwnerIndex(self.config.dimension, hourly, self.config.precision)
            self._owners[owner] = OwnerState(index)
        return self._owners[owner]

    # ---- retrieval ---------------------------------------------------------------------
    def retrieve(
        self,
        query: str,
        k: int = 10,
        *,
        owner: str,
        now: datetime | None = None,
        weights: RetrievalWeights | None = None,
        kinds: Iterable[MemoryKind | str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        include_inactive: bool = False,
        include_hidden: bool = False,
        with_replaced: bool = False,
        mode: RelevanceMode | None = None,
        touch: bool = True,
    ) -> list[ScoredMemory]:
        """Top-k memories of `owner` by recency, importance and relevance to `query`.

        What is true now by default: superseded and forgotten memories are left out unless
        `include_inactive` (history), and memories kept for provenance only (`recall: False`:
        a user's questions, the assistant's answers, correction notes) unless
        `include_hidden`. `with_replaced`: superseded memories compete too, as history, each
        moved right after the memory that replaced it (brought in if it was not among the k,
        so what is true now is never hidden and always comes first); forgotten ones never.
        With change detection on, a memory that probably (not surely) replaced another ranks
        above it (`ChangePolicy.rank_above`)."""
        if not query.strip():
            raise InvalidMemoryError("query: is empty")
        self.hold(owner)
        state = self._owners.get(owner)
        if state is None or state.index.size == 0 or k <= 0:
            return []
        moment = now or self.clock.now()
        rows = state.candidates(
            kinds, since, until, include_inactive, include_hidden, with_replaced
        )
        if rows is not None and rows.size == 0:
            return []
        w = weights or self.config.weights
        top = self._top(owner, state, query, rows, mode, w, k)
        results = scored_memories(top, state.index, self._records, to_hours(moment))
        if touch:
            self._touch(state, top.rows, moment)
        changes = self.config.changes
        if changes.enabled and changes.rank_above is not None:
            results = newer_first(results, changes.rank_above)
        return corrections.with_replacements(self, results, k) if with_replaced else results

    def _top(
        self,
        owner: str,
        state: OwnerState,
        query: str,
        rows: np.ndarray | None,
        mode: RelevanceMode | None,
        weights: RetrievalWeights,
        k: int,
    ) -> Scored:
        mode = mode or self.config.mode
        check_mode(mode)
        vector = None if mode == "bm25" else self.intake.embed([query])[0]
        nearest = partial(self.store.nearest, owner)
        rescore = None if self.reranker is None else partial(self._rescore, state)
        return search(
            state, Query(query, vector, mode), rows, weights, k, self.config, nearest, rescore
        )

    def _rescore(self, state: OwnerState, query: str, rows: np.ndarray) -> np.ndarray:
        assert self.reranker is not None
        texts = [self._records[state.index.ids[row]].text for row in rows.tolist()]
        return np.asarray(self.reranker.scores(query, texts), dtype=np.float32)

    def _touch(self, state: OwnerState, rows: np.ndarray, moment: datetime) -> None:
        state.index.touch(rows, to_hours(moment))
        for row in rows.tolist():
            memory_id = state.index.ids[row]
            record = self._records[memory_id].model_copy(update={"last_accessed_at": moment})
            self._records[memory_id] = self._pending[memory_id] = record
        if len(self._pending) >= self.config.flush_every:
            self.flush()

    def flush(self) -> None:
        """Write pending last-access updates to the store (batched), and nothing else: a status
        another process set in the meantime stays. Safe beside retrievals of other owners in
        other threads (a town's agents plan concurrently over a served model)."""
        with self._flushing:
            pending, self._pending = self._pending, {}
            if pending:
                self.store.update(list(pending.values()), fields=("last_accessed_at",))

    def close(self, settle: float = 60.0) -> None:
        """Judge what is pending for up to `settle` seconds, then stop: what is left stays
        `pending` in the store and is judged when the stream is next opened."""
        if settle > 0:
            self.worker.settle(timeout=settle)
        self.worker.stop()
        self.flush()
        self.store.close()

    # ---- reading -----------------------------------------------------------------------
    def get(self, memory_id: str) -> MemoryRecord:
        try:
            return self._records[memory_id]
        except KeyError:
            raise MemoryNotFoundError(f"no memory with id {memory_id!r}") from None

    def find(self, memory_id: str) -> MemoryRecord | None:
        return self._records.get(memory_id)

    def similar(
        self,
        record: MemoryRecord,
        vector: np.ndarray,
        *,
        k: int,
        kinds: Iterable[MemoryKind],
        min_similarity: float,
    ) -> list[tuple[MemoryRecord, float]]:
        """The owner's k active, recalled memories most similar to `record` (cosine of
        `vector`, at least `min_similarity`) among those that came before it."""
        state = self._owners[record.owner]
        rows = state.before(state.index.row_of[record.id], to_hours(record.created_at), kinds)
        nearest = most_similar(state.index, vector, rows, k, min_similarity)
        return [(self._records[state.index.ids[row]], cosine) for row, cosine in nearest]

    def recent(
        self, n: int, *, owner: str, kinds: Iterable[MemoryKind | str] | None = None
    ) -> list[MemoryRecord]:
        """The n most recently added active memories of `owner`, oldest first."""
        self.hold(owner)
        state = self._owners.get(owner)
        if state is None or n <= 0:
            return []
        rows = state.candidates(kinds, None, None, include_inactive=False)
        rows = np.arange(state.index.size) if rows is None else rows
        return [self._records[state.index.ids[r]] for r in rows[-n:].tolist()]

    def owners(self) -> list[str]:
        """The owners held (with a `Residency`, only those loaded now)."""
        return sorted(self._owners)

    def count(self, owner: str) -> int:
        """How many memories `owner` has (any status), without listing them."""
        self.hold(owner)
        state = self._owners.get(owner)
        return 0 if state is None else state.index.size

    def records(self, owner: str | None = None) -> list[MemoryRecord]:
        """The memories of `owner`, or every memory held (with a `Residency`, of the owners
        loaded now)."""
        if owner is None:
            return list(self._records.values())
        self.hold(owner)
        return self._of(owner)

    def _of(self, owner: str) -> list[MemoryRecord]:
        state = self._owners.get(owner)
        return [] if state is None else [self._records[i] for i in state.index.ids]

    def hold(self, owner: str) -> None:
        """Have `owner`'s memories here: with a `Residency`, loaded from the store on the
        owner's first use, and the least recently used owners unloaded past its budget."""
        residency = self.residency
        if residency is None:
            return
        with self.lock:
            if not residency.used(owner):
                for records, vectors in self.store.load(owner=owner):
                    self._index(records, vectors)
                residency.loaded(owner)
                self._resume_detection(owner)
            if residency.budget is not None and len(self._records) > residency.budget:
                self._unload_past_budget(keep=owner)  # a user's writes grow past it too

    def _unload_past_budget(self, keep: str) -> None:
        assert self.residency is not None
        judging = {r.owner for r in self._records.values() if r.provenance.detection == "pending"}
        chosen = self.residency.to_unload(
            len(self._records),
            lambda owner: self._owners[owner].index.size if owner in self._owners else 0,
            lambda owner: owner == keep or owner in judging,
        )
        if chosen:
            self.flush()  # last-access updates reach the store before their records go
        for owner in chosen:
            self._unindex(owner)
            self.residency.unloaded(owner)

    def _unindex(self, owner: str) -> list[str]:
        """Take `owner`'s memories out of this process (the store keeps them); their ids."""
        state = self._owners.pop(owner, None)
        ids = [] if state is None else list(state.index.ids)
        for memory_id in ids:
            self._records.pop(memory_id, None)
            self._pending.pop(memory_id, None)
        self._requests = {k: v for k, v in self._requests.items() if k[0] != owner}
        self._graph.remove(ids)
        return ids

    def __len__(self) -> int:
        return len(self._records)

    # ---- corrections and provenance (bodies in memory.corrections) ---------------------
    def forget(self, memory_id: str) -> MemoryRecord:
        """Mark a memory forgotten; reflections citing it become stale."""
        return corrections.forget(self, memory_id)

    def drop_owner(self, owner: str) -> int:
        """Remove every memory of `owner` for good, from the store, the index and the citation
        graph (a user deleted); how many."""
        ids = [r.id for r in self.records(owner)]
        self.store.delete(ids)
        self._unindex(owner)
        return len(ids)

    def import_records(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Exported records back as they were (times, statuses, evidence, provenance): stored
        and indexed whole, nothing re-decided; every link checked to stay within the owner,
        and ids issued anew where one is taken (`memory.transfer`)."""
        for owner in {r.owner for r in records}:
            self.hold(owner)
        taken = self.store.taken([r.id for r in records])
        with self.lock:
            records = prepared(records, self.find, taken)
        if not records:
            return []
        vectors = self.embed([r.text for r in records])
        with self.lock:
            self.store.put(list(records), vectors)
            self._index(list(records), vectors)
        if self.changes.judging:  # exported before its detection ran
            self.worker.submit([r.id for r in records if r.provenance.detection == "pending"])
        return [self.get(r.id) for r in records]

    def forget_all(self, owner: str) -> int:
        return corrections.forget_all(self, owner)

    def supersede(self, old_id: str, new: NewMemory | str) -> MemoryRecord:
        """Replace a memory by a corrected one; the old one is kept, marked superseded. A
        superseded memory's newest version is the one replaced; a forgotten one is refused
        (`MemoryStateError`)."""
        old = self.get(old_id)
        if isinstance(new, str):
            new = new_memory(text=new, owner=old.owner, kind=old.kind, importance=old.importance)
        return corrections.supersede(self, old_id, new)

    def restore(self, memory_id: str) -> MemoryRecord:
        """Undo a supersede: the memory is active again (its replacement stays)."""
        return corrections.restore(self, memory_id)

    def replaced_by(self, record: MemoryRecord, limit: int = 2) -> list[MemoryRecord]:
        """What `record` superseded, newest first, down its chain (history beside the truth)."""
        return corrections.replaced_by(self, record, limit)

    def stale(self, owner: str) -> list[MemoryRecord]:
        """Active memories whose evidence was forgotten or superseded."""
        self.hold(owner)
        return corrections.stale_memories(self, owner)

    def replace(self, record: MemoryRecord, **changes: Any) -> MemoryRecord:
        """Change a record's mutable fields (status, metadata), in the index and the store."""
        return self.replace_many([(record, changes)])[0]

    def replace_many(
        self, changes: Sequence[tuple[MemoryRecord, dict[str, Any]]]
    ) -> list[MemoryRecord]:
        """`replace` for many records; the store is told only the fields that changed (one
        write per set of changed fields)."""
        updated = []
        writes: dict[tuple[str, ...], list[MemoryRecord]] = {}
        for record, change in changes:
            new = record.model_copy(update=change)
            state = self._owners[record.owner]
            was_active = record.status is MemoryStatus.ACTIVE
            state.inactive += int(was_active) - int(new.status is MemoryStatus.ACTIVE)
            state.index.status[state.index.row_of[record.id]] = STATUS_CODES[new.status]
            self._records[record.id] = new
            touched = ("last_accessed_at",) if self._pending.pop(record.id, None) else ()
            writes.setdefault(tuple(sorted(change)) + touched, []).append(new)
            updated.append(new)
        for fields, records in writes.items():
            self._writes.update(records, fields)
        return updated

    def one_write(self) -> AbstractContextManager[None]:
        """The store updates made inside (by this thread) go to the store as one write on
        leaving; the records change at once. A detection round's writes, under the lock."""
        return self._writes.gathered(self.find)

    def evidence_of(self, memory_id: str) -> list[MemoryRecord]:
        self.get(memory_id)
        return [self._records[i] for i in self._graph.evidence_of(memory_id) if i in self._records]

    def dependents_of(self, memory_id: str) -> list[MemoryRecord]:
        self.get(memory_id)
        return [self._records[i] for i in self._graph.dependents_of(memory_id)]
