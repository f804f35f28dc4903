"""The REST contract in process, on fakes (hash embeddings, a scripted model, a fake change
judge, an in-memory store): fast checks of what a client sees, beside the real-process tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from mindstream.compose import Parts
from mindstream.config import load_config
from mindstream.lm.fakes import FakeJudge, FakeScorer, HashEmbeddings, ScriptedChatModel
from mindstream.service.app import Service, create_app
from mindstream.service.config import ServiceConfig

ADMIN = "ms_fast_admin_key"


def moved(earlier: str, later: str) -> float:
    return 0.97 if "Leeds" in earlier and "York" in later else 0.0


class Running(TestClient):
    """The in-process app, and its service (to settle its worker, to break a part)."""

    service: Service


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    monkeypatch.setenv("MINDSTREAM_ADMIN_KEY", ADMIN)
    flags = {
        "store.kind": "memory",
        "assistant.stream.changes.min_similarity": -1.0,
        "assistant.reflect_every_minutes": None,
    }
    parts = Parts(load_config(None, {}, flags)).override(
        embedder=HashEmbeddings(),
        chat=ScriptedChatModel(default="ok"),
        scorer=FakeScorer(),
        change_judge=FakeJudge(replaces=moved),
        judge=FakeJudge(replaces=moved),  # the chat model's own judge (not asked by default)
    )
    config = ServiceConfig(data=tmp_path / "data", rate_per_minute=60, burst=10)
    service = Service(parts, config)
    with Running(create_app(service), raise_server_exceptions=False) as client:
        client.service = service
        yield client


def _user(app: Running, name: str) -> dict[str, str]:
    made = app.post("/admin/users", json={"name": name}, headers=_bearer(ADMIN))
    assert made.status_code == 201, made.text
    return _bearer(made.json()["key"])


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_a_write_is_acknowledged_then_judged_and_the_decision_is_visible(app: Running) -> None:
    me = _user(app, "maya")
    leeds = app.post("/v1/memories", json={"text": "I live in Leeds", "importance": 5}, headers=me)
    york = app.post("/v1/memories", json={"text": "We moved to York", "importance": 5}, headers=me)
    assert york.json()["provenance"]["detection"] in ("pending", "done")
    assert app.service.assistant.stream.settle(10)
    old = app.get(f"/v1/memories/{leeds.json()['id']}", headers=me).json()
    assert old["status"] == "superseded"
    assert old["provenance"]["superseded_by"] == [york.json()["id"]]
    assert old["provenance"]["how"] == "judge" and old["provenance"]["probability"] == 0.97
    new = app.get(f"/v1/memories/{york.json()['id']}", headers=me).json()["provenance"]
    assert (new["closest"], new["closest_p"], new["closest_model"]) == (
        leeds.json()["id"],
        0.97,
        None,  # the pair judges alone: the chat model is asked only with confirm_from
    )
    found = app.get("/v1/search", params={"q": "Leeds"}, headers=me).json()
    assert [f["memory"]["id"] for f in found][:2] == [york.json()["id"], leeds.json()["id"]]


def test_a_date_without_a_zone_is_utc_not_a_500(app: Running) -> None:
    me = _user(app, "dana")
    app.post("/v1/memories", json={"text": "a note", "importance": 5}, headers=me)
    listed = app.get("/v1/memories", params={"since": "2020-01-01"}, headers=me)
    assert listed.status_code == 200 and len(listed.json()) == 1
    assert app.get("/v1/memories", params={"until": "2020-01-01"}, headers=me).json() == []


def test_a_nul_in_a_search_is_refused_like_in_a_body(app: Running) -> None:
    me = _user(app, "nel")
    refused = app.get("/v1/search", params={"q": "a\x00b"}, headers=me)
    assert refused.status_code == 422 and "U+0000" in refused.json()["error"]["message"]


def test_the_rate_limits_body_says_what_its_header_says(app: Running) -> None:
    me = _user(app, "rex")
    answers = [app.get("/v1/stats", headers=me) for _ in range(14)]
    limited = next(a for a in answers if a.status_code == 429)
    seconds = limited.headers["Retry-After"]
    assert limited.json()["error"]["message"] == f"rate limit: retry in {seconds} s"


def test_a_flood_of_guessed_keys_is_rate_limited_by_address(app: Running) -> None:
    """60 clients guessing keys at once held a valid user's requests up (each unknown key
    waits for a registry read): past the address's burst they get 429 at once."""
    from concurrent.futures import ThreadPoolExecutor

    def guess(n: int) -> int:
        return app.get("/v1/stats", headers=_bearer(f"ms_guess_{n}")).status_code

    with ThreadPoolExecutor(16) as pool:
        codes = list(pool.map(guess, range(32)))
    assert set(codes) <= {401, 429} and codes.count(429) >= 16


def test_a_reflection_below_its_threshold_says_why_and_can_be_forced(app: Running) -> None:
    me = _user(app, "rae")
    app.post("/v1/memories", json={"text": "walked the dog", "importance": 2}, headers=me)
    answer = app.post("/v1/reflections", headers=me).json()
    assert answer["insights"] == [] and "below the threshold: 2 of" in answer["reason"]
    forced = app.post("/v1/reflections", params={"force": "true"}, headers=me).json()
    assert forced["reason"] is None or "below the threshold" not in forced["reason"]


def test_an_unexpected_error_is_a_json_500_and_counted(
    app: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    me = _user(app, "oz")
    stream = app.service.assistant.stream
    monkeypatch.setattr(stream, "count", lambda owner: 1 / 0)
    broken = app.get("/v1/search", params={"q": "x"}, headers=me)
    assert broken.status_code == 500 and broken.json()["error"]["code"] == 500
    metrics = app.get("/metrics", headers=_bearer(ADMIN)).text
    assert 'route="/v1/search",status="500"' in metrics


def test_a_retried_write_with_the_same_key_is_stored_once(app: Running) -> None:
    me = _user(app, "ida")
    body = {"text": "The locker code is 2291", "importance": 5}
    key = {**me, "Idempotency-Key": "write-1"}
    first = app.post("/v1/memories", json=body, headers=key)
    again = app.post("/v1/memories", json=body, headers=key)
    assert first.status_code == again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    other = app.post("/v1/memories", json={"text": "Something else", "importance": 5}, headers=key)
    assert other.status_code == 422 and "used for another request" in other.text
    batch = {"memories": [{"text": f"note {n}", "importance": 3} for n in range(3)]}
    bkey = {**me, "Idempotency-Key": "batch-1"}
    ids = [m["id"] for m in app.post("/v1/memories/batch", json=batch, headers=bkey).json()]
    assert [m["id"] for m in app.post("/v1/memories/batch", json=batch, headers=bkey).json()] == ids
    fixed = {
        "text": "The locker code is 5530",
        "memory_id": first.json()["id"],
        "action": "actually",
    }
    ckey = {**me, "Idempotency-Key": "fix-1"}
    once = app.post("/v1/corrections", json=fixed, headers=ckey).json()["id"]
    assert app.post("/v1/corrections", json=fixed, headers=ckey).json()["id"] == once
    assert len(app.get("/v1/memories", headers=me).json()) == 5  # 1 + 3 + 1, nothing twice
    assert app.get("/v1/memories", headers={**me, "Idempotency-Key": "bad key"}).status_code == 200


def test_an_idempotency_key_must_be_printable(app: Running) -> None:
    me = _user(app, "ivo")
    body = {"text": "x y z", "importance": 5}
    refused = app.post("/v1/memories", json=body, headers={**me, "Idempotency-Key": "a b"})
    assert refused.status_code == 422 and "Idempotency-Key" in refused.text


def test_a_store_outage_is_a_503_naming_the_store_then_service_goes_on(
    app: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    me = _user(app, "sol")
    store = app.service.assistant.stream.store

    def down(*args: object, **kwargs: object) -> None:
        raise ConnectionError("connection refused")

    with monkeypatch.context() as outage:
        outage.setattr(store, "put", down)
        outage.setattr(store, "count", down, raising=False)
        refused = app.post("/v1/memories", json={"text": "a note", "importance": 5}, headers=me)
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
        assert "memory store is unavailable" in refused.json()["error"]["message"]
        ready = app.get("/ready")
        assert ready.status_code == 503 and ready.json()["store"].startswith("failing")
    assert app.get("/v1/memories", headers=me).json() == []  # nothing half-written
    back = app.post("/v1/memories", json={"text": "a note", "importance": 5}, headers=me)
    assert back.status_code == 200 and app.get("/ready").status_code == 200


def test_a_plain_serve_on_a_replica_sets_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mindstream.cli import app as cli

    (tmp_path / "replicas.json").write_text("{}")
    result = CliRunner().invoke(cli, ["serve", "--data", str(tmp_path), "--port", "0"])
    assert result.exit_code == 2 and "belongs to a replica set" in result.output
    assert "Traceback" not in result.output


def test_the_api_pages_work_offline_and_the_openapi_names_the_bearer_key(app: Running) -> None:
    for page, asset in (("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")):
        html = app.get(page).text
        assert "cdn.jsdelivr" not in html and f"/static-offline-docs/{asset}" in html
        assert app.get(f"/static-offline-docs/{asset}").status_code == 200
    schema = app.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["apiKey"]["scheme"] == "bearer"
    assert schema["security"] == [{"apiKey": []}]


def test_the_typed_clients_reach_every_route_sync_and_async(app: Running) -> None:
    import asyncio

    import httpx

    from mindstream.api_client import AsyncClient, Client, ServiceError
    from mindstream.service.schemas import FoundOut, MemoryOut

    key = _user(app, "tia")["Authorization"].removeprefix("Bearer ")
    client = Client("http://testserver", key, http=app)
    added = client.remember("I live in Leeds", importance=5)
    assert isinstance(added, MemoryOut) and added.text == "I live in Leeds"
    [york] = client.remember_many([{"text": "We moved to York", "importance": 5}])
    assert app.service.assistant.stream.settle(10)
    found = client.search("Leeds", k=3)
    assert isinstance(found[0], FoundOut) and found[0].memory.id == york.id
    assert client.memory(added.id).status == "superseded"
    assert client.restore(added.id).status == "active"
    assert [k.label for k in client.api_keys()] and client.stats()["memories"] == 2
    assert client.chat("where do I live?").answer == "ok"
    assert client.export()["memories"]
    with pytest.raises(ServiceError, match="404"):
        client.memory("nope")

    async def use() -> list[FoundOut]:
        transport = httpx.ASGITransport(app=app.app)
        async with AsyncClient("http://testserver", key, transport=transport) as remote:
            await remote.remember("I keep bees", importance=5)
            return await remote.search("bees", k=1)

    assert asyncio.run(use())[0].memory.text == "I keep bees"


class WarmableChat(ScriptedChatModel):
    """A scripted model that records being loaded ahead of its first call."""

    warmed: int = 0

    def warm(self) -> None:
        self.warmed += 1


def test_the_service_loads_the_chat_model_before_it_serves(tmp_path: Path) -> None:
    # Loading the embedded model at the first reflection stalled other users' requests by up
    # to 0.45 s (bench_service); the service loads it at start instead.
    chat = WarmableChat(default="ok")
    parts = Parts(load_config(None, {}, {"store.kind": "memory"})).override(
        embedder=HashEmbeddings(), chat=chat, scorer=FakeScorer()
    )
    service = Service(parts, ServiceConfig(data=tmp_path / "data"))
    assert chat.warmed == 1
    with TestClient(create_app(service)):  # started and stopped as served
        pass
