"""`mindstream serve` for real: uvicorn on loopback, chroma on disk, the real embedder.

Users never reach each other's memories; bad requests get JSON 4xx and leave no traceback in
the log; a SIGKILL while eight clients write loses no acknowledged memory; deleting a user
leaves nothing behind.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from mindstream.cli import app
from tests.service.conftest import ServiceProcess

pytestmark = pytest.mark.real_model  # the real embedder, in the service's process


def _add(client: httpx.Client, text: str) -> dict:  # type: ignore[type-arg]
    response = client.post("/v1/memories", json={"text": text, "importance": 5})
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_one_user_never_reaches_anothers_memories(service: ServiceProcess) -> None:
    ana, bob = service.user("ana"), service.user("bob")
    secret = _add(ana, "Ana's locker code is 4812")
    _add(bob, "Bob likes jazz")
    memory_id = secret["id"]
    refused = [
        bob.get(f"/v1/memories/{memory_id}"),
        bob.delete(f"/v1/memories/{memory_id}"),
        bob.post(f"/v1/memories/{memory_id}/supersede", json={"text": "mine now"}),
        bob.post("/v1/corrections", json={"action": "wrong", "memory_id": memory_id}),
    ]
    assert [r.status_code for r in refused] == [404] * 4
    assert all(r.json()["error"]["code"] == 404 for r in refused)
    found = bob.get("/v1/search", params={"q": "locker code", "k": 50}).json()
    assert [f["memory"]["text"] for f in found] == ["Bob likes jazz"]
    exported = bob.get("/v1/export").json()["memories"]
    assert {m["id"] for m in exported}.isdisjoint({memory_id})
    assert all(m["text"] != secret["text"] for m in bob.get("/v1/memories").json())
    assert ana.get(f"/v1/memories/{memory_id}").json()["status"] == "active"  # untouched


def test_bad_requests_get_json_errors_and_no_traceback(service: ServiceProcess) -> None:
    carol = service.user("carol")
    cases = {
        401: [
            service.client(None).get("/v1/memories"),
            service.client("ms_wrong").get("/v1/stats"),
        ],
        422: [
            carol.post(
                "/v1/memories", content=b"{not json", headers={"content-type": "application/json"}
            ),
            carol.post("/v1/memories", json={"text": ""}),
            carol.post("/v1/memories", json={"text": "x", "importance": 11}),
            carol.post(
                "/v1/corrections", json={"action": "actually", "memory_id": "x", "surprise": 1}
            ),
        ],
        413: [carol.post("/v1/memories", json={"text": "x" * 200_000})],
        404: [
            carol.get("/v1/memories/0123456789abcdef"),
            service.admin().delete("/admin/users/nobody"),
        ],
        409: [service.admin().post("/admin/users", json={"name": "carol"})],
    }
    for code, responses in cases.items():
        for response in responses:
            assert response.status_code == code, (code, response.text)
            assert response.json()["error"]["code"] == code
    assert service.client(service_admin_key_of(service)).get("/admin/users").status_code == 200
    assert "Traceback" not in service.log.read_text()


def service_admin_key_of(service: ServiceProcess) -> str:
    return str(service.env["MINDSTREAM_ADMIN_KEY"])


def test_a_key_over_its_rate_gets_429_with_retry_after(service: ServiceProcess) -> None:
    dave = service.user("dave")
    codes = []
    for _ in range(200):  # until the first 429
        codes.append(dave.get("/v1/stats"))
        if codes[-1].status_code == 429:
            break
    limited = [r for r in codes if r.status_code == 429]
    assert limited and int(limited[0].headers["Retry-After"]) >= 1  # never "retry in 0 s"
    assert limited[0].json()["error"]["message"].startswith("rate limit")
    assert service.user("erin").get("/v1/stats").status_code == 200  # per key


def test_the_command_line_talks_to_the_service(service: ServiceProcess) -> None:
    key = service.admin().post("/admin/users", json={"name": "fred"}).json()["key"]
    runner, server = CliRunner(), ["--server", service.url]
    env = {"MINDSTREAM_API_KEY": key}
    added = runner.invoke(
        app, ["memory", "add", "Fred keeps bees", "--importance", "4", *server], env=env
    )
    assert added.exit_code == 0, added.output
    memory_id = added.output.split()[1]
    found = runner.invoke(app, ["memory", "search", "bees", *server], env=env)
    assert found.exit_code == 0 and memory_id[:8] in found.output
    stats = runner.invoke(app, ["memory", "stats", *server], env=env)
    assert "fred" in stats.output and "fact 1" in stats.output  # the service stores facts
    forgot = runner.invoke(app, ["memory", "forget", memory_id, *server], env=env)
    assert forgot.exit_code == 0 and memory_id in forgot.output
    wrong = runner.invoke(app, ["memory", "stats", *server], env={"MINDSTREAM_API_KEY": "ms_nope"})
    assert wrong.exit_code == 2 and "401: unknown API key" in wrong.output


def test_sigkill_while_eight_clients_write_loses_nothing_acknowledged(tmp_path: Path) -> None:
    running = ServiceProcess(tmp_path / "data").start()
    clients = [running.user(f"writer{n}") for n in range(8)]
    acknowledged: list[list[str]] = [[] for _ in clients]
    stop = threading.Event()

    def write(n: int) -> None:
        i = 0
        while not stop.is_set():
            try:
                response = clients[n].post(
                    "/v1/memories", json={"text": f"note {n}-{i}", "importance": 3}
                )
            except httpx.HTTPError:
                return  # the server died mid-request: not acknowledged
            if response.status_code == 200:
                acknowledged[n].append(response.json()["id"])
            i += 1

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while sum(len(a) for a in acknowledged) < 40 and time.monotonic() < deadline:
        time.sleep(0.1)
    running.kill()  # in the middle of the writes
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert sum(len(a) for a in acknowledged) >= 8, "the writers never got through"
    running.start()
    for n, ids in enumerate(acknowledged):
        stored = clients[n].get("/v1/memories", params={"limit": 1000}).json()
        stored_ids = [m["id"] for m in stored]
        assert len(stored_ids) == len(set(stored_ids))  # nothing twice
        assert set(ids) <= set(stored_ids), f"writer {n} lost acknowledged memories"
    running.stop()


def test_deleting_a_user_leaves_nothing_behind(tmp_path: Path) -> None:
    from mindstream.compose import Parts

    running = ServiceProcess(tmp_path / "data").start()
    gina, hank = running.user("gina"), running.user("hank")
    first = _add(gina, "Gina's first memory")
    _add(gina, "Gina's second memory")
    _add(hank, "Hank's memory")
    jobs_before = _stored_jobs(tmp_path / "data" / "jobs.sqlite")
    deleted = gina.delete("/v1/me")
    assert deleted.status_code == 200 and deleted.json()["memories_removed"] == 2
    assert gina.get(f"/v1/memories/{first['id']}").status_code == 401  # the key is gone too
    running.stop()
    stream = Parts.load().stream(tmp_path / "data" / "memory", create=False)
    assert stream.owners() == ["hank"]
    stream.close()
    jobs_after = _stored_jobs(tmp_path / "data" / "jobs.sqlite")
    assert any("gina" in j for j in jobs_before) and not any("gina" in j for j in jobs_after)
    assert any("hank" in j for j in jobs_after)
    files = [p for p in (tmp_path / "data").rglob("*") if p.is_file()]
    holding = [str(p.relative_to(tmp_path)) for p in files if b"Gina's" in p.read_bytes()]
    assert not holding  # chroma's log and free pages included
    assert any(b"Hank's memory" in p.read_bytes() for p in files)  # the search can find words


def _stored_jobs(path: Path) -> list[str]:
    """The job ids in apscheduler's sqlite job store (what survives a restart)."""
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("select id from apscheduler_jobs")]


def test_a_chat_answer_cites_memories_that_exist(service: ServiceProcess) -> None:
    """The real embedded model answers (its words are poor; the citations are checked)."""
    ivy = service.user("ivy")
    for text in ("I moved to Lisbon in March", "My dog is called Biscuit", "I work as a designer"):
        _add(ivy, text)
    reply = ivy.post("/v1/chat", json={"message": "Where do I live now?", "session": "morning"})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    print(body["answer"])
    assert body["answer"].strip() and body["memories"]
    assert body["memories"][0]["text"] == "I moved to Lisbon in March"
    for used in body["memories"]:
        assert ivy.get(f"/v1/memories/{used['id']}").status_code == 200
    answer = ivy.get(f"/v1/memories/{body['answer_id']}").json()
    assert set(answer["evidence"]) == {m["id"] for m in body["memories"]}
    assert ivy.get("/v1/sessions").json() == {"morning": 2}
    turns = ivy.get("/v1/sessions/morning").json()
    assert [t["id"] for t in turns] == [body["message_id"], body["answer_id"]]
    assert ivy.get("/v1/memories", params={"kind": "fact"}).json()[0]["kind"] == "fact"
    assert ivy.delete("/v1/sessions/morning").json()["turns_forgotten"] == 2


def test_corrections_follow_one_state_machine_over_rest(service: ServiceProcess) -> None:
    """Supersede twice keeps one active memory; restore undoes; forgotten answers 409; the
    history flag brings superseded memories back into a search, marked."""
    dana = service.user("dana")
    first = _add(dana, "My gym is PureGym on Mill Street")
    second = dana.post(f"/v1/memories/{first['id']}/supersede", json={"text": "I go to Gym Box"})
    third = dana.post(f"/v1/memories/{first['id']}/supersede", json={"text": "I go to Anytime"})
    assert second.status_code == third.status_code == 200, (second.text, third.text)
    statuses = {m["id"]: m["status"] for m in dana.get("/v1/memories").json()}
    assert list(statuses.values()).count("active") == 1
    assert statuses[third.json()["id"]] == "active"
    found = dana.get("/v1/search", params={"q": "which gym", "k": 10}).json()
    assert found[0]["memory"]["id"] == third.json()["id"]  # what is true now comes first,
    assert {f["memory"]["status"] for f in found[1:]} <= {"superseded"}  # what it replaced after
    history = dana.get("/v1/search", params={"q": "which gym", "k": 10, "history": "true"})
    assert {f["memory"]["status"] for f in history.json()} == {"active", "superseded"}
    restored = dana.post(f"/v1/memories/{second.json()['id']}/restore")
    assert restored.status_code == 200 and restored.json()["status"] == "active"
    again = dana.post(f"/v1/memories/{second.json()['id']}/restore")
    assert (
        again.status_code == 409 and "only a superseded memory" in again.json()["error"]["message"]
    )
    dana.delete(f"/v1/memories/{third.json()['id']}")
    refused = dana.post(f"/v1/memories/{third.json()['id']}/supersede", json={"text": "x"})
    assert refused.status_code == 409
    assert refused.json()["error"]["message"].count("\n") == 0
    assert "stays forgotten" in refused.json()["error"]["message"]
    wrong = [
        dana.post("/v1/corrections", json={"action": "wrong", "memory_id": first["id"]})
        for _ in range(2)
    ]
    assert wrong[0].json()["id"] == wrong[1].json()["id"]


def test_the_attackers_paging_notes_all_stay_true_over_rest(service: ServiceProcess) -> None:
    """A batch of 25 like notes, then an unrelated one, through the service: change detection
    (the shipped judge, in the service's background worker) retires none of them, and a
    search for the code finds them."""
    pam = service.user("pam")
    notes = [
        {"text": f"Paging note number {n}: the parcel code is P0{n:02d}"} for n in range(1, 26)
    ]
    written = pam.post("/v1/memories/batch", json={"memories": notes})
    assert written.status_code == 200, written.text
    _add(pam, "Remember to water the tomatoes on Friday.")
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        mine = pam.get("/v1/memories", params={"limit": 100}).json()
        if not any(m["provenance"]["detection"] == "pending" for m in mine):
            break
        time.sleep(1)
    assert len(mine) == 26
    assert {m["provenance"]["detection"] for m in mine} == {"done"}
    assert {m["status"] for m in mine} == {"active"}
    found = pam.get("/v1/search", params={"q": "what is the parcel code", "k": 5}).json()
    assert len(found) == 5 and all("parcel code" in f["memory"]["text"] for f in found)
