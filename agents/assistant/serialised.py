"""Never holding the assistant's lock across a model call.

The assistant's stream is not thread-safe. Its own calls take the assistant's lock for a few
milliseconds each; a reflection, which runs the model for tens of seconds between stream
calls, reads and writes through `Serialised`, so it holds the same lock only per call; and
the relation judge the stream asks on every write runs through `Unlocking`, which lets the
lock go for the model call (the stream re-reads what it decides on afterwards), so other
users' requests go on while either thinks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class Serialised:
    def __init__(self, target: Any, lock: threading.RLock) -> None:
        self._target = target
        self._lock = lock

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._target, name)
        if not callable(found):
            return found
        return self._locked(found)

    def _locked(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return method(*args, **kwargs)

        return call


class Unlocking:
    """A relation judge whose calls run with `lock` released by this thread (however deeply
    it holds it) and taken back after, so a write's change detection does not hold up every
    other request while the model judges."""

    def __init__(self, judge: Any, lock: threading.RLock) -> None:
        self.judge = judge
        self.lock = lock

    def replaces_batch(self, pairs: Any) -> list[float]:
        return self._unlocked(lambda: self.judge.replaces_batch(pairs))

    def contradicts_batch(self, pairs: Any) -> list[float]:
        return self._unlocked(lambda: self.judge.contradicts_batch(pairs))

    def _unlocked(self, call: Callable[[], list[float]]) -> list[float]:
        depth = 0
        while True:
            try:
                self.lock.release()
            except RuntimeError:  # not (or no longer) held by this thread
                break
            depth += 1
        try:
            return call()
        finally:
            for _ in range(depth):
                self.lock.acquire()
