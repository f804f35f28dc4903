"""The stream as a LangGraph `BaseStore`, on fakes: put, get, search (query, filter, paging),
namespaces, a put again keeps the old version as history, None forgets; async the same."""

from __future__ import annotations

import asyncio

import pytest

from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import InMemoryStore, ManualClock, MemoryStatus, MemoryStream
from mindstream.memory.langgraph_store import StreamStore


@pytest.fixture
def store() -> StreamStore:
    return StreamStore(MemoryStream(InMemoryStore(), HashEmbeddings(), clock=ManualClock()))


def test_put_get_overwrite_and_delete(store: StreamStore) -> None:
    where = ("users", "maya", "facts")
    store.put(where, "home", {"text": "Maya lives in Leeds", "confidence": 0.9})
    item = store.get(where, "home")
    assert item is not None and item.value["text"] == "Maya lives in Leeds"
    assert item.namespace == where and item.key == "home"
    store.put(where, "home", {"text": "Maya lives in York"})
    assert store.get(where, "home").value == {"text": "Maya lives in York"}  # type: ignore[union-attr]
    history = [r for r in store.stream.records() if r.status is MemoryStatus.SUPERSEDED]
    assert [r.text for r in history] == ["Maya lives in Leeds"]  # the old version stays
    store.delete(where, "home")
    assert store.get(where, "home") is None
    assert store.get(where, "never") is None


def test_search_by_query_filter_and_page_and_list_namespaces(store: StreamStore) -> None:
    for n in range(5):
        store.put(("users", "maya", "notes"), f"n{n}", {"text": f"garden note {n}", "n": n})
    store.put(("users", "leo", "notes"), "x", {"text": "Leo's bike", "n": 9})
    found = store.search(("users", "maya"), query="garden note 3", limit=2)
    assert len(found) == 2 and found[0].value["text"] == "garden note 3" and found[0].score
    assert {i.key for i in store.search(("users",), filter={"n": {"$gte": 4}})} == {"n4", "x"}
    assert [i.key for i in store.search(("users", "maya"), filter={"n": 2})] == ["n2"]
    everyone = store.search(("users",), limit=4)
    assert len(everyone) == 4 and len(store.search(("users",), limit=4, offset=4)) == 2
    assert store.list_namespaces() == [("users", "leo", "notes"), ("users", "maya", "notes")]
    assert store.list_namespaces(prefix=("users", "maya")) == [("users", "maya", "notes")]
    assert store.list_namespaces(max_depth=2) == [("users", "leo"), ("users", "maya")]
    with pytest.raises(ValueError, match="unknown operator"):
        store.search(("users",), filter={"n": {"$near": 1}})


def test_async_calls_do_the_same(store: StreamStore) -> None:
    async def use() -> object:
        await store.aput(("a",), "k", {"text": "async note"})
        return await store.aget(("a",), "k")

    item = asyncio.run(use())
    assert item is not None and item.value == {"text": "async note"}  # type: ignore[attr-defined]
