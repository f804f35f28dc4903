"""The service as people deploy it, for real: a reflection thinking for one user holds up no
other user; the data folder is private; a public address needs a flag; a failed start leaves
nothing behind."""

from __future__ import annotations

import json
import os
import pickle
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from mindstream.lm.served.server import free_port
from tests.service.conftest import ServiceProcess

pytestmark = pytest.mark.real_model

DAYS = [
    "Walked the dog along the river before work.",
    "Finished the quarterly report for my manager.",
    "Cooked a curry for my sister on Friday.",
    "Booked a week in Porto for September.",
    "Started learning the guitar again.",
    "Went to the dentist, no fillings needed.",
    "Painted the spare room a pale green.",
    "Ran 5 km in the park on Sunday morning.",
    "Read a novel about a lighthouse keeper.",
    "Fixed the leaking tap in the kitchen.",
    "Had lunch with an old school friend.",
    "Planted tomatoes and basil on the balcony.",
    "Watched a documentary about octopuses.",
    "Renewed my passport at the post office.",
    "Helped my neighbour move a sofa.",
    "Baked bread for the first time.",
]


def _add(client: httpx.Client, text: str, importance: float = 5) -> str:
    response = client.post("/v1/memories", json={"text": text, "importance": importance})
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


def test_a_reflection_thinking_holds_up_no_other_user(service: ServiceProcess) -> None:
    """Kim's reflection runs the real model for many seconds in the reflection worker; while
    it is provably still running (asking again finds it), Lou writes and searches and is
    answered first."""
    kim, lou = service.user("kim"), service.user("lou")
    for text in DAYS:  # enough summed importance that the reflection really runs the model
        _add(kim, text, importance=10)
    finished: list[int] = []
    worker = threading.Thread(
        target=lambda: finished.append(kim.post("/v1/reflections", timeout=600).status_code)
    )
    worker.start()
    time.sleep(2)  # the request reaches the model (which then thinks for many seconds)
    busy = kim.post("/v1/reflections", params={"wait": "false"})
    assert busy.status_code == 202, busy.text  # the worker has it: no second run queued
    assert busy.json()["status"] == "already queued or running"
    bees = _add(lou, "Lou keeps bees on the allotment.")
    found = lou.get("/v1/search", params={"q": "bees"}).json()
    assert not finished, "Lou waited for Kim's reflection"
    assert [f["memory"]["id"] for f in found] == [bees]
    worker.join(600)
    assert finished == [200]


def test_the_data_folder_is_private(service: ServiceProcess) -> None:
    _add(service.user("max"), "Max's passport number is in the drawer.")
    loose = [
        f"{path.relative_to(service.data)} {oct(path.stat().st_mode & 0o777)}"
        for path in [service.data, *service.data.rglob("*")]
        if path.stat().st_mode & 0o077
    ]
    assert not loose


def _serve(data: Path, port: int, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mindstream", "serve", "--data", str(data)]
    return subprocess.run(
        [*command, "--port", str(port)],
        env={**os.environ, "MINDSTREAM_THREADS": "1", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_public_address_needs_a_flag_and_a_busy_port_leaves_nothing(tmp_path: Path) -> None:
    public = _serve(tmp_path / "a", free_port(), MINDSTREAM_SERVICE__HOST="0.0.0.0")
    assert public.returncode != 0
    assert "--public" in public.stderr + public.stdout and "Traceback" not in public.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = _serve(tmp_path / "b", taken.getsockname()[1])
    assert busy.returncode != 0 and "cannot listen on 127.0.0.1" in busy.stdout + busy.stderr
    assert "serving" not in busy.stdout and "Traceback" not in busy.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_teachme_needs_a_key_and_refuses_what_it_does_not_know(service: ServiceProcess) -> None:
    anyone = service.client(None)
    ask = {"session": "tab", "question": "What will a magnet pick up?", "choices": ["a", "b"]}
    assert anyone.post("/api/teach/ask", json=ask).status_code == 401
    assert (
        anyone.post("/api/teach/move", json={"session": "t", "action": "agree"}).status_code == 401
    )
    assert anyone.get("/api/teach/taught").status_code == 401
    nia = service.user("nia")
    assert nia.get("/api/teach/taught").json() == []
    refused = [
        nia.post("/api/teach/ask", json={**ask, "admin": True}),
        nia.post("/api/teach/ask", json={**ask, "question": "magnet\x00?"}),
    ]
    assert [r.status_code for r in refused] == [422, 422], [r.text for r in refused]


def test_every_error_is_the_documented_json_and_bad_values_are_refused(
    service: ServiceProcess,
) -> None:
    oto = service.user("oto")
    unknown, wrong_method = oto.get("/v1/nothing-here"), oto.put("/v1/memories")
    assert (unknown.status_code, wrong_method.status_code) == (404, 405)
    assert unknown.json()["error"]["code"] == 404 and wrong_method.json()["error"]["code"] == 405
    bad = [
        oto.post("/v1/memories", json={"text": "x", "importance": True}),
        oto.post("/v1/memories", json={"text": "null \x00 byte"}),
        oto.post("/v1/chat", json={"message": "\x00"}),
    ]
    assert [r.status_code for r in bad] == [422] * 3, [r.text for r in bad]
    assert all(r.json()["error"]["message"] for r in bad)
    assert [m["text"] for m in oto.get("/v1/memories").json()] == []


def test_memories_list_newest_first_by_cursor_with_filters(service: ServiceProcess) -> None:
    pia = service.user("pia")
    ids = [_add(pia, f"Pia's note number {n}.", importance=3) for n in range(5)]
    pages, cursor = [], None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        response = pia.get("/v1/memories", params=params)
        pages.append([m["id"] for m in response.json()])
        cursor = response.headers.get("X-Next-Cursor")
        if cursor is None:
            break
        _add(pia, "A note written while paging.", importance=3)  # shifts no page
    assert [len(p) for p in pages] == [2, 2, 1]
    assert [i for p in pages for i in p] == ids[::-1]
    first = pia.get(f"/v1/memories/{ids[2]}").json()["created_at"]
    since = pia.get("/v1/memories", params={"since": first, "order": "oldest", "limit": 3})
    assert [m["id"] for m in since.json()] == ids[2:]
    assert pia.get("/v1/memories", params={"kind": "plan"}).json() == []
    bad = pia.get("/v1/memories", params={"cursor": "not-a-cursor"})
    assert bad.status_code == 422 and "cursor" in bad.json()["error"]["message"]


def _intervals(jobs: Path) -> dict[str, float]:
    """Minutes between runs of each stored job (apscheduler's sqlite job store)."""
    with sqlite3.connect(jobs) as db:
        rows = db.execute("select id, job_state from apscheduler_jobs").fetchall()
    return {i: pickle.loads(s)["trigger"].interval.total_seconds() / 60 for i, s in rows}


def test_a_changed_reflection_interval_applies_to_existing_users(tmp_path: Path) -> None:
    every = "MINDSTREAM_ASSISTANT__REFLECT_EVERY_MINUTES"
    first = ServiceProcess(tmp_path / "data", **{every: "60"}).start()
    first.user("uma")
    first.stop()
    assert list(_intervals(tmp_path / "data" / "jobs.sqlite").values()) == [60]
    second = ServiceProcess(tmp_path / "data", **{every: "15"}).start()
    second.stop()
    assert list(_intervals(tmp_path / "data" / "jobs.sqlite").values()) == [15]


def test_keys_rotate_and_revoke_and_a_user_may_have_several(service: ServiceProcess) -> None:
    vic = service.user("vic")
    second = vic.post("/v1/keys", json={"label": "laptop"})
    assert second.status_code == 201 and second.json()["label"] == "laptop"
    laptop = service.client(second.json()["key"])
    assert laptop.get("/v1/stats").json()["user"] == "vic"
    rotated = laptop.post("/v1/keys/rotate")
    assert rotated.status_code == 201 and rotated.json()["label"] == "laptop"
    assert laptop.get("/v1/stats").status_code == 401  # the rotated key stops working
    fresh = service.client(rotated.json()["key"])
    assert [k["label"] for k in fresh.get("/v1/keys").json()] == ["first", "laptop"]
    first = next(k["id"] for k in fresh.get("/v1/keys").json() if k["label"] == "first")
    assert [k["label"] for k in fresh.delete(f"/v1/keys/{first}").json()] == ["laptop"]
    assert vic.get("/v1/stats").status_code == 401
    last = fresh.delete(f"/v1/keys/{rotated.json()['id']}")
    assert last.status_code == 409 and "last key" in last.json()["error"]["message"]
    assert "key" not in fresh.get("/v1/keys").json()[0]  # keys are never shown again


def test_batch_add_forget_delete_all_and_an_export_imports_back_equal(
    service: ServiceProcess,
) -> None:
    wes = service.user("wes")
    added = wes.post(
        "/v1/memories/batch",
        json={"memories": [{"text": f"Wes fact {n}.", "importance": 4} for n in range(4)]},
    )
    assert added.status_code == 200, added.text
    ids = [m["id"] for m in added.json()]
    moved = wes.post(f"/v1/memories/{ids[0]}/supersede", json={"text": "Wes fact zero, now."})
    assert moved.status_code == 200
    unknown = wes.post("/v1/memories/forget", json={"ids": [ids[1], "nope"]})
    assert unknown.status_code == 404
    assert wes.get(f"/v1/memories/{ids[1]}").json()["status"] == "active"  # nothing forgotten
    forgot = wes.post("/v1/memories/forget", json={"ids": [ids[1], ids[2]]})
    assert [m["status"] for m in forgot.json()] == ["forgotten", "forgotten"]
    exported = wes.get("/v1/export").json()
    assert wes.post("/v1/import", json=exported).status_code == 409  # not an empty account
    assert wes.delete("/v1/memories").json()["memories_removed"] == 5
    assert wes.get("/v1/memories").json() == [] and wes.get("/v1/stats").status_code == 200
    imported = wes.post("/v1/import", json=exported)
    assert imported.status_code == 200 and imported.json()["imported"] == 5
    assert wes.get("/v1/export").json() == exported
    found = wes.get("/v1/search", params={"q": "Wes fact zero"}).json()
    assert found[0]["memory"]["text"] == "Wes fact zero, now."


def test_ready_checks_the_store_and_model_and_metrics_count_requests(
    service: ServiceProcess,
) -> None:
    ready = service.client(None).get("/ready")
    assert ready.status_code == 200 and ready.json()["ready"] is True, ready.text
    assert ready.json()["model"] == "in-process" and "memories" in ready.json()["store"]
    xan = service.user("xan")
    _add(xan, "Xan's first memory.")
    xan.get(f"/v1/memories/{'0' * 32}")
    assert service.client(None).get("/metrics").status_code == 401
    text = service.admin().get("/metrics").text
    assert 'mindstream_requests_total{method="POST",route="/v1/memories",status="200"}' in text
    assert 'route="/v1/memories/{memory_id}",status="404"' in text  # a template, never an id
    assert "0" * 32 not in text and "xan" not in text
    assert "mindstream_request_seconds_bucket" in text and "mindstream_users " in text


def test_an_export_larger_than_other_bodies_still_imports(service: ServiceProcess) -> None:
    """A year of memories is more than the 64 KB any other request may carry."""
    wyn = service.user("wyn")
    page = {"kind": "fact", "importance": 2.0, "status": "active", "evidence": []}
    when = "2026-01-05T10:00:00Z"
    memories = [
        {
            **page,
            "id": f"{n:032x}",
            "text": f"Diary page {n}: " + "words " * 640,
            "created_at": when,
            "last_accessed_at": when,
            "metadata": {},
            "cited_by": [],
        }
        for n in range(1, 21)
    ]
    body = {"user": "someone", "memories": memories}
    assert len(json.dumps(body)) > 64 * 1024
    imported = wyn.post("/v1/import", json=body)
    assert imported.status_code == 200, imported.text
    assert len(wyn.get("/v1/memories", params={"limit": 50}).json()) == 20
    too_big = wyn.post("/v1/memories/batch", json={"memories": [{"text": "x" * 3999}] * 17})
    assert too_big.status_code == 413


def _crafted(link: str, typed: bool) -> dict[str, object]:
    """One memory claiming to have been superseded by `link` (another user's memory)."""
    memory: dict[str, object] = {
        "id": "e" * 32,
        "kind": "fact",
        "text": "decoy",
        "created_at": "2026-01-01T00:00:00+00:00",
        "last_accessed_at": "2026-01-01T00:00:00+00:00",
        "importance": 5,
        "status": "superseded",
        "metadata": {} if typed else {"superseded_by": link},
    }
    if typed:
        memory["provenance"] = {"superseded_by": [link]}
    return {"memories": [memory]}


@pytest.mark.parametrize("typed", [False, True])
def test_an_import_cannot_link_into_another_users_memories(
    service: ServiceProcess, typed: bool
) -> None:
    """The reported attack: a crafted import whose memory was 'superseded by' the victim's,
    then a supersede that followed the chain into the victim's account."""
    victim, eve = service.user(f"vic{typed}"), service.user(f"eve{typed}")
    secret = _add(victim, "The safe code is 4471.")
    refused = eve.post("/v1/import", json=_crafted(secret, typed))
    assert refused.status_code == 422, refused.text
    assert (
        "neither in the import nor a memory of this account" in refused.json()["error"]["message"]
    )
    assert eve.get("/v1/memories").json() == []  # nothing half-written
    assert eve.post(f"/v1/memories/{'e' * 32}/supersede", json={"text": "x"}).status_code == 404
    assert victim.get(f"/v1/memories/{secret}").json()["status"] == "active"
    found = victim.get("/v1/search", params={"q": "safe code"}).json()
    assert found[0]["memory"]["id"] == secret


def test_an_export_copies_into_another_account_on_the_same_server(
    service: ServiceProcess,
) -> None:
    ana, ben = service.user("ana"), service.user("ben")
    first = _add(ana, "Ana lives in Leeds.")
    newer = ana.post(f"/v1/memories/{first}/supersede", json={"text": "Ana lives in York."})
    exported = ana.get("/v1/export").json()
    copied = ben.post("/v1/import", json=exported)
    assert copied.status_code == 200 and copied.json()["imported"] == 2, copied.text
    again = ben.post("/v1/import", json=exported)
    assert again.status_code == 409  # only into an empty account
    mine = {m["text"]: m for m in ben.get("/v1/export").json()["memories"]}
    old, new = mine["Ana lives in Leeds."], mine["Ana lives in York."]
    assert {old["id"], new["id"]}.isdisjoint({first, newer.json()["id"]})  # ids issued anew
    assert old["provenance"]["superseded_by"] == [new["id"]]
    assert ana.get(f"/v1/memories/{first}").json()["provenance"]["superseded_by"] == [
        newer.json()["id"]
    ]
