"""Change detection off the write path: one worker thread per stream judges what was written,
in the order it was written, after the write has returned.

Each round is one write as it was submitted (an import of thousands in rounds of `batch`, one
judge batch each), never whatever happened to be queued: so what is decided does not depend on
how fast the judge keeps up (rounds drawn from the queue made the same chats give 63, 68 or 71
supersedes from run to run), and turns written one by one are judged exactly as in the
foreground. A round gathers the pairs under the stream's lock, judges them without it, and
applies the decisions under the lock again, marking each memory's detection `done` in the
same write. A memory still `pending` when the process dies is queued again when the stream
is next opened; as an already-superseded memory is no longer a candidate, judging it twice
never supersedes anything twice. A judge that fails marks the round's memories `failed`,
stored and unsuperseded.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from mindstream.memory.changes import ChangeDecision, ChangeDetector, JudgeFailed, Neighbourhood
from mindstream.memory.records import MemoryRecord

log = logging.getLogger(__name__)
Listener = Callable[[list[ChangeDecision]], None]


class Locked(Neighbourhood, Protocol):
    """The stream as its worker sees it: what change detection reads and writes, and the lock
    every other caller takes."""

    lock: threading.RLock

    def one_write(self) -> AbstractContextManager[None]: ...


class DetectionWorker:
    """Judges queued memory ids in the background; `settle` waits until it has caught up."""

    def __init__(self, stream: Locked, detector: ChangeDetector, batch: int = 256) -> None:
        self.stream = stream
        self.detector = detector
        self.batch = batch
        self.listeners: list[Listener] = []
        self._queue: queue.Queue[list[str] | None] = queue.Queue()
        self._idle = threading.Condition()
        self._outstanding = 0
        self._thread: threading.Thread | None = None

    def submit(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        with self._idle:
            self._outstanding += len(ids)
        for first in range(0, len(ids), self.batch):
            self._queue.put(list(ids[first : first + self.batch]))
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="change-detection", daemon=True)
            self._thread.start()

    @property
    def pending(self) -> int:
        return self._outstanding

    def settle(self, timeout: float | None = None) -> bool:
        """Wait until every submitted memory is judged; False if `timeout` ran out first."""
        with self._idle:
            return self._idle.wait_for(lambda: self._outstanding == 0, timeout)

    def stop(self) -> None:
        """Finish the round under way and drop the queued ones: their memories stay `pending`
        in the store and are queued again when the stream is next opened."""
        dropped = 0
        while True:
            try:
                ids = self._queue.get_nowait()
            except queue.Empty:
                break
            dropped += len(ids or [])
        if dropped:
            with self._idle:
                self._outstanding -= dropped
                self._idle.notify_all()
            log.warning("%d memories left pending: judged when the store is next opened", dropped)
        if self._thread is not None and self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout=30)

    def _run(self) -> None:
        _yield_to_requests()
        while True:
            ids = self._queue.get()
            if ids is None:
                return
            try:
                self._round(ids)
            except Exception:  # never let the worker die: the writes stay stored
                log.exception("change detection failed for %d memories", len(ids))
            finally:
                with self._idle:
                    self._outstanding -= len(ids)
                    self._idle.notify_all()

    def _round(self, ids: list[str]) -> None:
        stream, detector = self.stream, self.detector
        with stream.lock:
            records = [r for i in ids if (r := stream.find(i)) is not None]
            gathered = detector.gather(stream, records, subjects=False)
        try:
            judged = detector.judged(gathered)
            outcome = "done"
        except JudgeFailed:
            judged, outcome = [], "failed"
        with stream.lock, stream.one_write():
            decisions = detector.apply(stream, gathered.decided + judged)
            mark(stream, [i for i in gathered.judged], outcome)
        for listener in self.listeners:
            listener(decisions)


def _yield_to_requests(niceness: int = 10) -> None:
    """Lower this thread's scheduling priority (Linux threads each have their own), so a write
    or a search that arrives while a round is judged gets the cores first."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
    except (AttributeError, OSError):  # not Linux, or not allowed: judge at normal priority
        log.debug("change detection runs at normal priority")


def mark(stream: Locked, ids: Sequence[str], outcome: str) -> list[MemoryRecord]:
    """Set the detection state of the memories that are still there."""
    changes = [
        (r, {"provenance": r.provenance.model_copy(update={"detection": outcome})})
        for i in ids
        if (r := stream.find(i)) is not None
    ]
    return stream.replace_many(changes)
