"""A service with a memory budget holds only the users it is asked for: each user's memories
load on their first request and the least recently used users are unloaded past the budget,
and every route still sees all of a user's memories (in process, on fakes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mindstream.compose import Parts
from mindstream.config import load_config
from mindstream.lm.fakes import FakeJudge, FakeScorer, HashEmbeddings, ScriptedChatModel
from mindstream.service.app import Service, create_app
from mindstream.service.config import ServiceConfig
from tests.service.test_contract_fast import ADMIN, Running, _user


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    monkeypatch.setenv("MINDSTREAM_ADMIN_KEY", ADMIN)
    flags = {"store.kind": "memory", "assistant.reflect_every_minutes": None}
    parts = Parts(load_config(None, {}, flags)).override(
        embedder=HashEmbeddings(),
        chat=ScriptedChatModel(default="ok"),
        scorer=FakeScorer(),
        change_judge=FakeJudge(replaces=lambda old, new: 0.0),
        judge=FakeJudge(),
    )
    config = ServiceConfig(data=tmp_path / "data", resident_memories=4)
    service = Service(parts, config)
    with Running(create_app(service), raise_server_exceptions=False) as client:
        client.service = service
        yield client


def test_users_past_the_budget_are_unloaded_and_come_back_whole(app: Running) -> None:
    keys = {name: _user(app, name) for name in ("ana", "ben", "cai")}
    first: dict[str, str] = {}
    for name, key in keys.items():
        for n in range(3):
            made = app.post(
                "/v1/memories", json={"text": f"{name} note {n}", "importance": 4}, headers=key
            )
            assert made.status_code == 200, made.text
            first.setdefault(name, made.json()["id"])
    stream = app.service.assistant.stream
    assert stream.settle(10)
    app.get("/v1/memories", headers=keys["cai"])  # once detection is done, the budget holds
    assert stream.residency is not None and len(stream) <= 4  # not every user is held
    for name, key in keys.items():  # each comes back on their own request, whole
        got = app.get(f"/v1/memories/{first[name]}", headers=key)
        assert got.status_code == 200 and got.json()["text"] == f"{name} note 0"
        listed = app.get("/v1/memories", headers=key).json()
        assert sorted(m["text"] for m in listed) == [f"{name} note {n}" for n in range(3)]
        assert name in stream.owners()
    assert stream.residency.unloads >= 2
