"""When a statement's news takes effect, read from the dates it names and when it was said.

Two kinds of pairs look like changes to a judge of text and are not, and both turn on a date:

- an **announced** change ("the rent goes to 151.20 a week from 6 April", told in March)
  leaves the current value true until the day comes; the turn that tells it happened retires
  the old value;
- the announcement is not made false by **coming as announced** ("first week with the new
  rent, 151.20 went out").

Forecasts on the earlier side in general ("isa turns 13 on feb 9", then "isa is officially
13") were screened too and left to the judge: "Yusuf is 10, he'll be 11 on 19 November",
then "Yusuf is 11 now", is a change.

A year is never needed: "2 January" said in December is next January.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            "jan january",
            "feb february",
            "mar march",
            "apr april",
            "may",
            "jun june",
            "jul july",
            "aug august",
            "sep sept september",
            "oct october",
            "nov november",
            "dec december",
        ),
        start=1,
    )
    for name in names.split()
}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH = rf"{_DAY}\s+(?:of\s+)?({_MONTH})\b"  # "6 April", "1st of May"
_MONTH_DAY = rf"({_MONTH})\.?\s+{_DAY}\b"  # "april 1", "Nov. 12"
_DATE = re.compile(rf"\b(?:{_DAY_MONTH}|{_MONTH_DAY}(?![:.]\d))", re.IGNORECASE)
_WEEKDAY = re.compile(rf"\b(this|next|from|starting)\s+({'|'.join(_WEEKDAYS)})\b", re.I)
_NEXT = re.compile(r"\bnext (week|month)\b", re.IGNORECASE)
# A change that takes effect on a named day: "goes to 2300 starting april 1", "from 1 April
# becomes", "starts Monday 2 February"; not "moved from 7 june to 21 june" (a new date, now).
_WEEKDAY_NAME = "|".join(_WEEKDAYS)
_WHOLE_MONTH = "|".join(m for m in sorted(_MONTHS, key=len, reverse=True) if m != "may")
_TAKES_EFFECT = re.compile(
    r"\b(?:(?:from|starting|starts|start|beginning|begins)\s+(?:on\s+)?"
    rf"(?P<day>(?:(?:this|next)\s+)?(?:{_WEEKDAY_NAME})\b(?!\s+\d{{1,2}}[:.]\d)"
    rf"(?:\s+(?:the\s+)?{_DAY}(?:\s+(?:{_MONTH}))?)?)"
    r"|(?:from|starting|starts|start|as of|effective|beginning|begins)\s+(?:on\s+)?(?:the\s+)?"
    rf"(?P<date>{_DAY_MONTH}|{_MONTH_DAY}|next (?:week|month)"
    rf"|(?:{_WHOLE_MONTH})\b(?!\.?\s+\d)))"
    r"(?!\s+(?:to|till|until)\b)",
    re.IGNORECASE,
)
# A correction of what was said, not news of a change ("the lease starts dec 1 not the 15th").
_CORRECTS = re.compile(
    r"\b(not|no longer|never|didn'?t|won'?t|wasn'?t|cancel\w*|fell through|postponed|"
    r"reschedul\w*|moved to|pushed|instead|actually|correction|wait|wrong|changed?)\b",
    re.IGNORECASE,
)
_NOW = re.compile(r"\bnow\b", re.IGNORECASE)  # news true now, beside a later start
_STILL = re.compile(r"\b(still|currently|at the moment)\b", re.IGNORECASE)  # a value now, too
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def dates_named(text: str, said: datetime) -> list[date]:
    """The days a statement names, each placed in the year that puts it nearest to when it
    was said (never more than ~10 months back)."""
    found = []
    for m in _DATE.finditer(text):
        day = int(m.group(1) or m.group(4))
        month = _MONTHS[(m.group(2) or m.group(3)).lower()]
        placed = _placed(day, month, said.date())
        if placed is not None:
            found.append(placed)
    for m in _WEEKDAY.finditer(text):
        ahead = (_WEEKDAYS.index(m.group(2).lower()) - said.weekday()) % 7 or 7
        found.append(said.date() + timedelta(days=ahead + (7 if m.group(1) == "next" else 0)))
    for m in _NEXT.finditer(text):
        found.append(said.date() + timedelta(days=7 if m.group(1).lower() == "week" else 28))
    return found


def _placed(day: int, month: int, said: date) -> date | None:
    try:
        this_year = date(said.year, month, day)
    except ValueError:
        return None  # "31 feb", or a number that is not a day
    if this_year < said - timedelta(days=300):
        return this_year.replace(year=said.year + 1)
    return this_year


def first_future(text: str, said: datetime) -> date | None:
    """The earliest day the statement names after the day it was said, if any."""
    ahead = [d for d in dates_named(text, said) if d > said.date()]
    return min(ahead) if ahead else None


def announced(text: str, said: datetime) -> bool:
    """The statement tells a change that takes effect on a later day than tomorrow (and
    neither corrects what was said before nor tells something true now)."""
    return takes_effect(text, said) is not None


def takes_effect(text: str, said: datetime) -> date | None:
    """The day an announced change takes effect, if the statement announces one."""
    if _CORRECTS.search(text) or _NOW.search(text):
        return None
    for m in _TAKES_EFFECT.finditer(text):
        when = first_future(_as_named(m.group("day") or m.group("date")), said)
        if when is not None and when > said.date() + timedelta(days=1):
            return when
    return None


def _as_named(when: str) -> str:
    """'monday 2 february' is found by its date, a bare 'monday' as the next one and a bare
    'october' as its first day."""
    if _DATE.search(when) or _NEXT.search(when):
        return when
    return f"1 {when}" if when.lower() in _MONTHS else f"from {when}"


def came_as_announced(
    earlier: str, earlier_said: datetime, later: str, later_said: datetime
) -> bool:
    """The earlier statement announced a change ("rent goes to 2300 starting april 1") and the
    later one, on or after that day, tells it happening with no number the announcement did
    not have ("just paid april rent, 2300 now"): the announcement is not made false by
    coming true. A new number ("my rate is 0.20 now" after "0.18 from june") is a change."""
    when = takes_effect(earlier, earlier_said)
    if when is None or later_said.date() < when or _STILL.search(earlier):
        return False
    return _numbers(later) <= _numbers(earlier)


def _numbers(text: str) -> set[str]:
    """The numbers a statement tells, as written without thousands commas; years left out."""
    found = {m.group().replace(",", "").rstrip(".") for m in _NUMBER.finditer(text)}
    return {n for n in found if not (len(n) == 4 and n[:2] in ("19", "20"))}
