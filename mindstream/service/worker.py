"""Reflection off the request path: one worker thread per service process runs every
reflection, asked for (POST /v1/reflections) or scheduled, one at a time.

The model runs there and nowhere else for reflection, so request threads only wait when a
caller asks to wait; a user whose reflection is queued or running gets that same one back
(never a second run of the same memories).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

log = logging.getLogger("mindstream.service")


class ReflectionWorker:
    def __init__(self, reflect: Callable[..., Any]) -> None:
        self._reflect = reflect
        self._forced: set[str] = set()
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._pending: dict[str, Future[Any]] = {}
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="reflections", daemon=True)
        self._thread.start()

    def submit(self, user: str, force: bool = False) -> tuple[Future[Any], bool]:
        """The user's reflection, and whether this call queued it (False: one was already
        queued or running, and this is it); `force` reflects below the threshold."""
        with self._lock:
            if force:
                self._forced.add(user)
            if user in self._pending:
                return self._pending[user], False
            future: Future[Any] = Future()
            self._pending[user] = future
        self._queue.put(user)
        return future, True

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=600)

    def _run(self) -> None:
        while (user := self._queue.get()) is not None:
            future = self._pending[user]
            future.set_running_or_notify_cancel()
            with self._lock:
                force = user in self._forced
                self._forced.discard(user)
            try:
                future.set_result(
                    self._reflect(user, force=force) if force else self._reflect(user)
                )
            except Exception as error:  # handed to whoever waits; logged for the scheduled
                log.warning("reflection for %s failed: %s: %s", user, type(error).__name__, error)
                future.set_exception(error)
            finally:
                with self._lock:
                    del self._pending[user]
