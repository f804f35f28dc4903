"""The simulation clock: the memory stream's `Clock`, moved one tick at a time."""

from __future__ import annotations

from datetime import datetime, timedelta

from mindstream.memory.clock import ManualClock


class SimClock(ManualClock):
    """Sim time; `tick()` advances by `tick_minutes` (the paper's default step is 10 minutes)."""

    def __init__(self, start: datetime, tick_minutes: int = 10) -> None:
        super().__init__(start)
        self.tick_minutes = tick_minutes

    def tick(self) -> datetime:
        return self.advance(timedelta(minutes=self.tick_minutes))

    @property
    def step(self) -> timedelta:
        return timedelta(minutes=self.tick_minutes)
