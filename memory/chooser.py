"""Which of a few equivalent ways to answer a query runs fastest on this machine, kept up to
date from the queries themselves."""

from __future__ import annotations

import math
import threading
from collections import deque

_FIRST_PAUSE = 4
_LONGEST_PAUSE = 256
_FAR_BEHIND = 1.5
_LOOKS = 2  # runs of a losing option per re-timing


class Chooser:
    """The option with the best recent timings, re-timing the others now and then.

    A one-off measurement can be wrong for the rest of a run: two scan threads timed slower
    than one while the caller's own numpy work had left OpenBLAS threads spinning on the
    other core, and ran 1.4x faster once it stopped. So each losing option is tried again
    on a real query after a pause that doubles every time it loses again (4 to 256 calls);
    a steady option (one thread) is not: its timings stay valid while others come and go.
    """

    def __init__(
        self,
        initial: dict[str, float],
        costly: frozenset[str] = frozenset(),
        steady: frozenset[str] = frozenset(),
    ) -> None:
        """`initial`: start-up seconds of each option; `costly`: options whose re-timing
        hurts (a float pass leaves OpenBLAS threads spinning that slow the next ~100 ms of
        scans), so never re-timed once far behind: the index makes a new Chooser, timed
        afresh, each time it doubles. `steady`: options whose time does not depend on what
        runs on other cores (one thread), so their last timings stay valid and re-timing them
        while they lose would only cost queries: they win back by the others slowing down."""
        self._lock = threading.Lock()
        self._recent = {option: deque([seconds], maxlen=5) for option, seconds in initial.items()}
        self._pause = dict.fromkeys(initial, _FIRST_PAUSE)
        self._due: dict[str, float] = dict.fromkeys(initial, _FIRST_PAUSE)
        self._costly = costly
        self._steady = steady
        self._looks = dict.fromkeys(initial, 0)
        self._calls = 0
        for option in steady & initial.keys():
            self._due[option] = math.inf
        fastest = min(initial.values())
        for option in costly & initial.keys():
            if initial[option] > _FAR_BEHIND * fastest:  # not again (until a new Chooser)
                self._due[option] = math.inf

    def best(self) -> str:
        with self._lock:
            return self._best()

    def _best(self) -> str:
        # The least of a few recent runs: load elsewhere only ever slows a run down.
        return min(self._recent, key=lambda option: min(self._recent[option]))

    def pick(self) -> str:
        """The option to run this query with: the best, or one whose re-timing is due."""
        with self._lock:
            self._calls += 1
            best = self._best()
            due = [o for o, at in self._due.items() if o != best and self._calls >= at]
            return due[0] if due else best

    def record(self, option: str, seconds: float) -> None:
        with self._lock:
            self._recent[option].append(seconds)
            best = self._best()
            if best == option:
                self._pause[option], self._looks[option] = _FIRST_PAUSE, 0
            elif option in self._steady or (
                option in self._costly and seconds > _FAR_BEHIND * min(self._recent[best])
            ):
                self._due[option] = math.inf  # not re-timed while losing (see __init__)
                return
            elif self._looks[option] + 1 < _LOOKS:
                # Another look on the next call: one run in four of two threads here met a
                # preempted thread and took 4 ms more, and one such run must not decide.
                self._looks[option] += 1
                self._due[option] = self._calls + 1
                return
            else:
                self._looks[option] = 0
                self._pause[option] = min(2 * self._pause[option], _LONGEST_PAUSE)
            steady = option in self._steady
            self._due[option] = math.inf if steady else self._calls + self._pause[option]
