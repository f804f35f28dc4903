"""The one "measure both, keep the faster" helper, and the scan choice built on it: timed when
an index reaches a size, never during ordinary searches."""

from __future__ import annotations

import time

import numpy as np
import pytest

from mindstream.lm.timing import fastest, time_rounds
from mindstream.memory.index import AUTO_MIN_ROWS, OwnerIndex
from mindstream.memory.records import RetrievalWeights


def test_time_rounds_times_every_call() -> None:
    calls = []
    timings = time_rounds({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 3)
    assert set(timings) == {"a", "b"} and all(t >= 0 for t in timings.values())
    assert calls == ["a", "b"] + ["a", "b"] * 3  # warm-up, then turns


def test_fastest_keeps_the_quicker_option() -> None:
    chosen, timings = fastest({"slow": lambda: time.sleep(0.02), "quick": lambda: None})
    assert chosen == "quick" and timings["slow"] >= 0.02 > timings["quick"]


def test_the_scan_is_timed_at_a_new_size_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once timed at a size, searches reuse the choice until the index has doubled; a
    settled choice (the codes on the most threads) is never timed again."""
    rng = np.random.default_rng(2)
    n = AUTO_MIN_ROWS + 100
    E = rng.standard_normal((n, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    index = OwnerIndex(384, 0.99, "auto")
    if index.codes is None:
        pytest.skip("no int8 first pass here (simsimd missing)")
    zeros = np.zeros(n)
    index.append([str(i) for i in range(n)], E, np.ones(n), zeros, zeros, zeros, zeros)
    timed: list[int] = []
    real = index._fastest_scan

    def counted(*args: object) -> int:
        timed.append(index.size)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "_fastest_scan", counted)
    weights = RetrievalWeights()
    for row in range(5):
        index.search(E[row], weights, 10)
    assert timed == [n]
    index.append(["x"], E[:1], [1.0], [0.0], [0.0], [0], [0])
    index.search(E[0], weights, 10)
    assert timed == [n]  # not doubled: not timed again
