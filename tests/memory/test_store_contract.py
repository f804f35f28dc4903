"""One contract, every store: in memory, chroma on disk, chroma server over HTTP."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from mindstream.memory import MemoryKind, MemoryRecord, MemoryStatus, MemoryStore
from tests.memory.conftest import STORE_KINDS, make_store


def _record(i: int, owner: str = "ana", **changes: object) -> MemoryRecord:
    base = datetime(2023, 2, 13, 8, 0, tzinfo=UTC)
    fields: dict[str, object] = {
        "id": f"m{i}",
        "owner": owner,
        "kind": MemoryKind.OBSERVATION,
        "text": f"memory number {i}",
        "created_at": base,
        "last_accessed_at": base,
        "importance": 1.0 + i % 10,
        "evidence": (),
        "metadata": {"n": i},
    }
    fields.update(changes)
    return MemoryRecord(**fields)  # type: ignore[arg-type]


def _vectors(count: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((count, 384)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture(params=STORE_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> MemoryStore:
    return make_store(request.param, tmp_path, request)  # type: ignore[return-value]


def _load_all(store: MemoryStore) -> tuple[list[MemoryRecord], np.ndarray]:
    records, vectors = [], []
    for batch, batch_vectors in store.load(batch_size=7):
        records += batch
        vectors.append(batch_vectors)
    return records, np.concatenate(vectors) if vectors else np.zeros((0, 384))


def test_put_then_load_round_trips_in_insertion_order(store: MemoryStore) -> None:
    records = [_record(i) for i in range(20)]
    records[3] = _record(3, kind=MemoryKind.REFLECTION, evidence=("m1", "m2"))
    vectors = _vectors(20)
    store.put(records[:12], vectors[:12])
    store.put(records[12:], vectors[12:])
    loaded, loaded_vectors = _load_all(store)
    assert loaded == records
    assert np.allclose(loaded_vectors, vectors, atol=1e-6)


def test_update_changes_mutable_fields_and_keeps_order(store: MemoryStore) -> None:
    records = [_record(i) for i in range(5)]
    store.put(records, _vectors(5))
    later = datetime(2023, 2, 14, 9, 30, tzinfo=UTC)
    changed = records[1].model_copy(
        update={
            "status": MemoryStatus.FORGOTTEN,
            "last_accessed_at": later,
            "metadata": {"stale": True},
        }
    )
    store.update([changed])
    loaded, _ = _load_all(store)
    assert [r.id for r in loaded] == [r.id for r in records]
    assert loaded[1] == changed


def test_nearest_returns_active_memories_of_the_owner(store: MemoryStore) -> None:
    vectors = _vectors(10)
    records = [_record(i, owner="ana" if i < 6 else "ben") for i in range(10)]
    store.put(records, vectors)
    store.update([records[0].model_copy(update={"status": MemoryStatus.FORGOTTEN})])
    found = store.nearest("ana", vectors[0], 3)
    assert "m0" not in found
    assert set(found) <= {f"m{i}" for i in range(1, 6)} and len(found) == 3
    assert store.nearest("ana", vectors[2], 1) == ["m2"]


def test_chroma_disk_store_survives_reopen(tmp_path: Path) -> None:
    from mindstream.memory import ChromaStore

    first = ChromaStore.persistent(tmp_path / "s")
    records = [_record(i) for i in range(4)]
    first.put(records, _vectors(4))
    first.close()
    reopened = ChromaStore.persistent(tmp_path / "s")
    assert _load_all(reopened)[0] == records
    more = [_record(9)]
    reopened.put(more, _vectors(1, seed=3))
    assert [r.id for r in _load_all(reopened)[0]] == ["m0", "m1", "m2", "m3", "m9"]


def test_delete_removes_records_for_good(store: MemoryStore) -> None:
    store.put([_record(i) for i in range(4)], _vectors(4))
    store.delete(["m2", "m3", "not-there"])
    loaded = [r.id for records, _ in store.load() for r in records]
    assert loaded == ["m0", "m1"]
    store.put([_record(9)], _vectors(1, seed=3))
    assert [r.id for records, _ in store.load() for r in records] == ["m0", "m1", "m9"]


def test_an_update_writes_only_the_fields_it_names(store: MemoryStore) -> None:
    store.put([_record(1)], _vectors(1))
    later = datetime(2023, 3, 1, 9, 0, tzinfo=UTC)
    forgotten = _record(1, status=MemoryStatus.FORGOTTEN)
    store.update([forgotten], fields=("status",))
    touched = _record(1, last_accessed_at=later)  # this writer still thinks it is active
    store.update([touched], fields=("last_accessed_at",))
    (loaded,), _ = _load_all(store)
    assert loaded.status is MemoryStatus.FORGOTTEN and loaded.last_accessed_at == later
    with pytest.raises(ValueError, match="cannot change"):
        store.update([touched], fields=("text",))


def test_one_owners_records_load_alone_in_insertion_order(store: MemoryStore) -> None:
    """A replica loads a user's memories on their first request: only theirs, in order, with
    their vectors, across pages."""
    records = [_record(i, owner="ana" if i % 3 else "ben") for i in range(20)]
    vectors = _vectors(20)
    store.put(records, vectors)
    pages = store.load(batch_size=4, owner="ben")
    loaded = [(r, v) for batch, vs in pages for r, v in zip(batch, vs, strict=True)]
    bens = [(r, v) for r, v in zip(records, vectors, strict=True) if r.owner == "ben"]
    assert [r for r, _ in loaded] == [r for r, _ in bens]
    assert np.allclose(np.stack([v for _, v in loaded]), np.stack([v for _, v in bens]), atol=1e-6)
    assert list(store.load(owner="nobody")) == []


def test_taken_says_which_ids_the_store_holds_whoever_owns_them(store: MemoryStore) -> None:
    assert store.taken(["m0"]) == set()  # an empty store, and a new collection
    store.put([_record(0), _record(1, owner="ben")], _vectors(2))
    assert store.taken(["m0", "m1", "m7"]) == {"m0", "m1"}
    assert store.taken([]) == set()


def test_a_write_chroma_has_no_segment_for_yet_is_tried_again_and_any_other_error_is_not() -> None:
    from mindstream.memory.stores.chroma import retried

    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise RuntimeError("Error creating hnsw segment reader: Nothing found on disk")
        return "stored"

    assert retried(flaky) == "stored" and len(calls) == 3

    def broken() -> None:
        calls.append(1)
        raise RuntimeError("disk full")

    calls.clear()
    with pytest.raises(RuntimeError, match="disk full"):
        retried(broken)
    assert len(calls) == 1
