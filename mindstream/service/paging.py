"""Listing a user's memories: filters by kind, status and date, newest first, cursor paging.

A cursor names the last memory of a page (its time and id), so the next page starts right
after it even while new memories arrive: offsets would shift by every write.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict

from mindstream.memory import MemoryRecord


class BadCursor(ValueError):
    """A cursor this service did not write."""


def _zoned(moment: datetime | None) -> datetime | None:
    """A date or time without a zone is UTC (`?since=2020-01-01`), as every stored time is."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


class MemoryPage(BaseModel):
    model_config = ConfigDict(frozen=True)

    since: Annotated[datetime | None, AfterValidator(_zoned)] = None
    until: Annotated[datetime | None, AfterValidator(_zoned)] = None
    order: Literal["newest", "oldest"] = "newest"
    cursor: str | None = None
    limit: int = 100


def _position(record: MemoryRecord) -> tuple[str, str]:
    return (record.created_at.isoformat(), record.id)


def encode(record: MemoryRecord) -> str:
    return base64.urlsafe_b64encode("|".join(_position(record)).encode()).decode()


def decode(cursor: str) -> tuple[str, str]:
    try:
        when, _, memory_id = base64.urlsafe_b64decode(cursor.encode()).decode().partition("|")
        datetime.fromisoformat(when)
    except ValueError:
        raise BadCursor("cursor: not one this service gave out") from None
    return when, memory_id


def page(records: Sequence[MemoryRecord], ask: MemoryPage) -> tuple[list[MemoryRecord], str | None]:
    """One page and the cursor of the next (None on the last page)."""
    newest = ask.order == "newest"
    chosen = [
        r
        for r in records
        if (ask.since is None or r.created_at >= ask.since)
        and (ask.until is None or r.created_at < ask.until)
    ]
    chosen.sort(key=_position, reverse=newest)
    if ask.cursor is not None:
        after = decode(ask.cursor)
        chosen = [r for r in chosen if (_position(r) < after if newest else _position(r) > after)]
    shown = chosen[: ask.limit]
    more = len(chosen) > ask.limit
    return shown, (encode(shown[-1]) if more and shown else None)
