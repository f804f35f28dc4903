"""Never holding the assistant's lock across a model call.

The assistant's stream is not thread-safe. Its own calls take the assistant's lock for a few
milliseconds each; a reflection, which runs the model for tens of seconds between stream
calls, reads and writes through `Serialised`, so it holds the same lock only per call, and
other users' requests go on while it thinks. (The change judge runs in the stream's own
background worker, which takes the lock only to read and to write.)
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
