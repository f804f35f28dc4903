"""The reflection worker: one thread runs reflections in turn; asking again for a user whose
reflection is queued or running gets that same one; a failure reaches whoever waits."""

from __future__ import annotations

import threading

import pytest

from mindstream.service.worker import ReflectionWorker


def test_the_worker_coalesces_per_user_and_hands_failures_back() -> None:
    started, release, ran = threading.Event(), threading.Event(), []

    def reflect(user: str) -> str:
        ran.append(user)
        if user == "ana":
            started.set()
            assert release.wait(10)
        if user == "bad":
            raise ValueError("no memories")
        return f"insights of {user}"

    worker = ReflectionWorker(reflect)
    first, queued = worker.submit("ana")
    assert queued and started.wait(10)
    again, queued_again = worker.submit("ana")
    assert again is first and not queued_again  # running: the same one, not a second run
    ben, _ = worker.submit("ben")
    bad, _ = worker.submit("bad")
    release.set()
    assert first.result(10) == "insights of ana" and ben.result(10) == "insights of ben"
    with pytest.raises(ValueError, match="no memories"):
        bad.result(10)
    assert ran == ["ana", "ben", "bad"]  # one at a time, in order
    later, queued_later = worker.submit("ana")  # finished: a new one runs
    assert queued_later and later.result(10) == "insights of ana"
    worker.stop()
