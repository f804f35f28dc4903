"""A stream that holds only the owners it is asked for (a service replica): each owner loaded
from the store on first use, the least recently used unloaded past the budget, nothing lost."""

from __future__ import annotations

import pytest

from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import InMemoryStore, ManualClock, MemoryStream, new_memory
from mindstream.memory.residency import Residency


def _filled(store: InMemoryStore) -> None:
    stream = MemoryStream(store, HashEmbeddings())
    for owner in ("ana", "ben", "cai"):
        stream.add_many(
            [
                new_memory(text=f"{owner} note {n} about the garden", owner=owner, importance=3)
                for n in range(5)
            ]
        )
    stream.close()


def test_owners_load_on_first_use_and_the_least_recent_is_unloaded_past_the_budget() -> None:
    store = InMemoryStore()
    _filled(store)
    residency = Residency(budget=10)
    stream = MemoryStream(store, HashEmbeddings(), clock=ManualClock(), residency=residency)
    assert len(stream) == 0  # nothing loaded at start
    assert [m.record.text for m in stream.retrieve("garden", 2, owner="ana")]  # loaded on first use
    assert stream.count("ben") == 5 and len(stream) == 10
    stream.recent(1, owner="ana")  # ana used last: ben is now the least recent
    assert stream.count("cai") == 5
    assert residency.owners() == ["ana", "cai"] and len(stream) == 10
    assert stream.owners() == ["ana", "cai"]
    assert [r.text for r in stream.records("ben")] == [
        f"ben note {n} about the garden" for n in range(5)
    ]
    assert residency.loads == 4 and residency.unloads == 2  # ben came back, ana or cai left
    stream.close()


def test_last_access_reaches_the_store_before_an_owner_is_unloaded() -> None:
    store = InMemoryStore()
    _filled(store)
    clock = ManualClock()
    stream = MemoryStream(store, HashEmbeddings(), clock=clock, residency=Residency(budget=5))
    clock.advance(hours=5)
    touched = stream.retrieve("garden", 1, owner="ana")[0].record
    stream.count("ben")  # over budget: ana is unloaded
    assert "ana" not in stream.owners()
    again = stream.records("ana")
    assert next(r for r in again if r.id == touched.id).last_accessed_at == clock.now()
    stream.close()


def test_a_new_owner_writes_and_a_dropped_owner_is_gone_from_the_store() -> None:
    store = InMemoryStore()
    _filled(store)
    stream = MemoryStream(store, HashEmbeddings(), residency=Residency())
    stream.add("dan's first note", owner="dan", importance=2)
    assert stream.count("dan") == 1
    assert stream.drop_owner("ben") == 5  # never loaded before: loaded, then deleted
    assert list(store.load(owner="ben")) == []
    stream.close()


def test_a_budget_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="resident memories"):
        Residency(budget=0)


def test_an_import_never_reuses_the_id_of_an_owner_not_loaded_here() -> None:
    """Import keeps exported ids unless one is taken; taken means in the store, not only in
    this process: otherwise ana could import a record under ben's id and write to his."""
    store = InMemoryStore()
    _filled(store)
    bens = [r for batch, _ in store.load(owner="ben") for r in batch]
    stream = MemoryStream(store, HashEmbeddings(), residency=Residency())
    forged = bens[0].model_copy(update={"owner": "ana", "text": "ana's forged note"})
    [imported] = stream.import_records([forged])
    assert imported.id != bens[0].id and imported.owner == "ana"
    assert [r for batch, _ in store.load(owner="ben") for r in batch] == bens  # ben untouched
    stream.close()
