"""The loopback fakes must not print into a later test's captured stderr when a client gives up."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.fake_openai import FakeOpenAI


def test_a_client_that_hangs_up_leaves_no_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    def slow(prompt: str) -> str:
        time.sleep(0.6)
        return "late"

    with FakeOpenAI(slow) as fake:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        with pytest.raises(httpx.TimeoutException):
            httpx.post(f"{fake.base_url}/chat/completions", json=body, timeout=0.1)
        time.sleep(1.0)  # the handler wakes and writes to the closed socket
    assert fake.requests, "the request reached the fake"
    assert "Traceback" not in capfd.readouterr().err
