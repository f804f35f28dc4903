"""The one way equivalent options are timed on this machine ("measure both, keep the faster"):
bfloat16 or float32 autocast for the adapters, scan precisions and threads for retrieval."""

from __future__ import annotations

import time
from collections.abc import Callable


def time_rounds(calls: dict[str, Callable[[], object]], rounds: int = 5) -> dict[str, float]:
    """Best seconds of each call: one warm-up each, then rounds that take turns, so a burst
    of load elsewhere slows every choice rather than deciding between them."""
    best = dict.fromkeys(calls, float("inf"))
    for call in calls.values():
        call()
    for _ in range(rounds):
        for key, call in calls.items():
            start = time.perf_counter()
            call()
            best[key] = min(best[key], time.perf_counter() - start)
    return best


def fastest(
    calls: dict[str, Callable[[], object]], rounds: int = 1
) -> tuple[str, dict[str, float]]:
    """The fastest option's name, and every option's best seconds (for the record)."""
    timings = time_rounds(calls, rounds)
    return min(timings, key=timings.__getitem__), timings
