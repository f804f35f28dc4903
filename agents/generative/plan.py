"""Recursive plans: a day of broad steps, decomposed into hours, then 5-15 minute actions."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

DAY, HOUR, ACTION = 0, 1, 2


class PlanStep(BaseModel):
    """One step of a plan: what, where, from when, for how long, at which level."""

    model_config = ConfigDict(frozen=True)

    start: datetime
    minutes: int = Field(ge=1)
    activity: str
    level: int = Field(DAY, ge=DAY, le=ACTION)
    place: str | None = None  # a room path, chosen when the step starts

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)

    def covers(self, moment: datetime) -> bool:
        return self.start <= moment < self.end

    def describe(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M} {self.activity}"


class Plan(BaseModel):
    """Every step of every level; the finest step covering a moment is what the agent does."""

    steps: list[PlanStep] = Field(default_factory=list)

    def current(self, moment: datetime) -> PlanStep | None:
        covering = [s for s in self.steps if s.covers(moment)]
        return max(covering, key=lambda s: s.level) if covering else None

    def day(self) -> list[PlanStep]:
        return [s for s in self.steps if s.level == DAY]

    def decompose(self, parent: PlanStep, children: list[PlanStep]) -> None:
        """Put finer steps under `parent`, clipped to its window."""
        for child in children:
            if child.start >= parent.end:
                break
            minutes = int((min(child.end, parent.end) - child.start).total_seconds() // 60)
            self.steps.append(child.model_copy(update={"minutes": max(minutes, 1)}))
        self.steps.sort(key=lambda s: (s.start, s.level))

    def revise(self, moment: datetime, step: PlanStep) -> None:
        """Re-plan from `moment`: the new step replaces whatever overlapped it, at every level;
        finer steps after it are dropped so they are decomposed again."""
        kept: list[PlanStep] = []
        for old in self.steps:
            if old.end <= moment:
                kept.append(old)
            elif old.start < moment:
                kept.append(old.model_copy(update={"minutes": _minutes(old.start, moment)}))
            elif old.level == DAY and old.end > step.end:
                start = max(old.start, step.end)
                kept.append(
                    old.model_copy(update={"start": start, "minutes": _minutes(start, old.end)})
                )
        self.steps = sorted([*kept, step], key=lambda s: (s.start, s.level))

    def place_unplaced(self, moment: datetime, place: str) -> None:
        """Give `place` to every step under way at `moment` that has none yet."""
        for n, step in enumerate(self.steps):
            if step.covers(moment) and step.place is None:
                self.steps[n] = step.model_copy(update={"place": place})

    def set_place(self, step: PlanStep, place: str) -> PlanStep:
        placed = step.model_copy(update={"place": place})
        self.steps[self.steps.index(step)] = placed
        return placed


def _minutes(start: datetime, end: datetime) -> int:
    return max(int((end - start).total_seconds() // 60), 1)


_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:\d+\s*[).:-]|[-*•])?\s*(.+?)\s*$")
_DURATION = re.compile(r"\(?\s*(\d{1,3})\s*(?:min|minutes|mins)\b\.?\s*\)?", re.IGNORECASE)


def parse_items(text: str, limit: int) -> list[str]:
    """Numbered or bulleted lines -> up to `limit` distinct non-empty items."""
    items: list[str] = []
    for line in text.splitlines():
        match = _ITEM.match(line)
        item = match.group(1).strip(" .;") if match else ""
        if len(item) < 3 or item.lower() in (i.lower() for i in items):
            continue
        items.append(item)
        if len(items) == limit:
            break
    return items


def parse_timed(item: str, day: datetime) -> tuple[datetime | None, str]:
    """'9:30 am: go to work' -> (that time on `day`, 'go to work'); no time -> (None, item)."""
    match = _TIME.match(item.strip())
    if not match or (match.group(2) is None and match.group(3) is None):
        return None, item
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    suffix = (match.group(3) or "").lower().replace(".", "")
    if suffix == "pm" and hour < 12:
        hour += 12
    if suffix == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None, item
    rest = item[match.end() :].strip(" :-,.")
    return day.replace(hour=hour, minute=minute, second=0, microsecond=0), rest


def parse_duration(item: str) -> tuple[int | None, str]:
    """'make coffee (10 minutes)' -> (10, 'make coffee')."""
    match = _DURATION.search(item)
    if not match:
        return None, item
    return int(match.group(1)), (item[: match.start()] + item[match.end() :]).strip(" ,.-")
