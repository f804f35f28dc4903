"""The service as people deploy it (issue 31), for real: a reflection thinking for one user
holds up no other user."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

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
    """Kim's reflection runs the real model for many seconds; while it is provably still
    running (a second one answers 409), Lou writes and searches and is answered first."""
    kim, lou = service.user("kim"), service.user("lou")
    for text in DAYS:  # enough summed importance that the reflection really runs the model
        _add(kim, text, importance=10)
    finished: list[int] = []
    worker = threading.Thread(
        target=lambda: finished.append(kim.post("/v1/reflections", timeout=600).status_code)
    )
    worker.start()
    time.sleep(2)  # the request reaches the model (which then thinks for many seconds)
    busy = kim.post("/v1/reflections")
    assert busy.status_code == 409, busy.text
    assert "already running" in busy.json()["error"]["message"]
    bees = _add(lou, "Lou keeps bees on the allotment.")
    found = lou.get("/v1/search", params={"q": "bees"}).json()
    assert not finished, "Lou waited for Kim's reflection"
    assert [f["memory"]["id"] for f in found] == [bees]
    worker.join(600)
    assert finished == [200]
