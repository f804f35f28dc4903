"""Clocks: the stream never reads the wall clock directly, so simulations and tests control time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware."""
        ...


class SystemClock:
    """Wall-clock time in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to: for tests and simulations."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2023, 2, 13, 8, 0, tzinfo=UTC)
        if self._now.tzinfo is None:
            self._now = self._now.replace(tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | None = None, **units: float) -> datetime:
        self._now += delta if delta is not None else timedelta(**units)
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment if moment.tzinfo else moment.replace(tzinfo=UTC)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_hours(moment: datetime) -> float:
    """Hours since the epoch: the unit of every time array in the index."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - EPOCH).total_seconds() / 3600.0


def from_hours(hours: float) -> datetime:
    return EPOCH + timedelta(hours=float(hours))
