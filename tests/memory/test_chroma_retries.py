"""A chroma server's transient "segment not yet on disk" error is retried; nothing else is."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mindstream.memory.stores import chroma


def _failing(times: int, message: str) -> tuple[list[int], Callable[[], str]]:
    calls: list[int] = []

    def call() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise RuntimeError(message)
        return "stored"

    return calls, call


def test_a_segment_not_yet_on_disk_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chroma.time, "sleep", lambda seconds: None)
    calls, call = _failing(2, "Error creating hnsw segment reader: Nothing found on disk")
    assert chroma.retried(call) == "stored"
    assert len(calls) == 3


def test_any_other_error_is_raised_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chroma.time, "sleep", lambda seconds: None)
    calls, call = _failing(1, "collection does not exist")
    with pytest.raises(RuntimeError, match="does not exist"):
        chroma.retried(call)
    assert len(calls) == 1


def test_it_gives_up_after_its_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chroma.time, "sleep", lambda seconds: None)
    calls, call = _failing(10, "Nothing found on disk")
    with pytest.raises(RuntimeError):
        chroma.retried(call, tries=3)
    assert len(calls) == 3
