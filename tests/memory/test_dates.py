"""Rules that keep a pair the judge would retire: an announced change, one that came as
announced, a plan that came true; on fakes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from mindstream.lm.fakes import FakeJudge, HashEmbeddings
from mindstream.memory import (
    InMemoryStore,
    ManualClock,
    MemoryStatus,
    MemoryStream,
    StreamConfig,
    new_memory,
)
from mindstream.memory.dates import announced, came_as_announced, dates_named
from mindstream.memory.records import ChangePolicy
from mindstream.memory.statements import plan_came_true

WEDNESDAY = datetime(2026, 3, 11, 19, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "letter from the housing association: the rent goes to 151.20 a week from 6 April",
        "also landlord texted, rent goes to 2300 starting april 1. ay",
        "JONAS GOT THE JOB! He starts Monday 30 March, ten minutes from home",
        "they moved me to evenings from next week. 2 to 10pm",
        "we voted. From October, the monthly contribution goes up to 3,000 shillings each",
        "from 1st of May the annual mooring fee becomes 4,380 kroner",
    ],
)
def test_a_change_that_takes_effect_on_a_later_day_is_announced(text: str) -> None:
    assert announced(text, WEDNESDAY)


@pytest.mark.parametrize(
    "text",
    [
        "from tomorrow i'm on days",  # starts the next day: linked where it is told
        "starting tonight the gym opens at 6",
        "I moved to York on 3 March",  # a day already past
        "ok correction the lease starts 1 april not the 15th",  # corrects what was said
        "rent is 2300 a month",
        "the 6 April letter said the rent goes up",  # a day named, but nothing takes effect
        "I'm writing this from the Thursday 14:00 group meeting",
        "I'm off the crutches as of Monday, in a walking boot for 3 weeks",  # since Monday
        "organisers emailed, the race moved from 7 june to 21 june",  # a new date, true now
        "he's on the books now, full time from monday",
        "from march the rota is 9 to 5",  # said in March: this month, already
        "starting may be the hardest part",
    ],
)
def test_news_that_holds_now_is_not_announced(text: str) -> None:
    assert not announced(text, WEDNESDAY)


def test_a_day_without_a_year_is_placed_nearest_to_when_it_was_said() -> None:
    december = datetime(2025, 12, 20, tzinfo=UTC)
    assert dates_named("Tuesday 30th to Friday 2 January", december) == [date(2026, 1, 2)]
    assert dates_named("on 3 march", WEDNESDAY) == [date(2026, 3, 3)]
    assert dates_named("next friday", WEDNESDAY) == [date(2026, 3, 20)]
    assert dates_named("at 9.30 on platform 4", WEDNESDAY) == []


def test_the_current_rent_stays_until_the_new_one_is_told_paid() -> None:
    clock = ManualClock(WEDNESDAY)
    stream = MemoryStream(
        InMemoryStore(),
        HashEmbeddings(),
        clock=clock,
        config=StreamConfig(changes=ChangePolicy(enabled=True, min_similarity=-1.0)),
        judge=FakeJudge(replaces=lambda earlier, later: 0.99),
    )
    rent = stream.add("rent is 142.60 a week by direct debit", owner="h", importance=5)
    clock.advance(days=1)
    letter = new_memory(text="the rent goes to 151.20 a week from 6 April", owner="h", importance=5)
    written = stream.write([letter])
    assert [(d.rule, d.superseded) for d in written.decisions] == [("announced", False)]
    assert stream.get(rent.id).status is MemoryStatus.ACTIVE
    clock.advance(timedelta(days=30))
    paid = new_memory(text="first week with the new rent, 151.20 went out", owner="h", importance=5)
    rules = {d.old_id: d.rule for d in stream.write([paid]).decisions}
    assert stream.get(rent.id).status is not MemoryStatus.ACTIVE
    assert stream.get(written.records[0].id).status is MemoryStatus.ACTIVE  # it came true
    assert rules[written.records[0].id] == "came as announced"


def test_a_new_number_after_an_announcement_is_a_change() -> None:
    april = WEDNESDAY + timedelta(days=40)
    told = "rate email went out, 0.18 a word from 1 april"
    assert came_as_announced(told, WEDNESDAY, "every invoice went out at 0.18", april)
    assert not came_as_announced(told, WEDNESDAY, "my standard rate is 0.20 now", april)
    assert not came_as_announced(told, WEDNESDAY, "sent at 0.18", WEDNESDAY + timedelta(2))


def test_a_scrapyard_does_not_undo_a_plan() -> None:
    """'scrapped' undoes a plan; the old car going to the scrapyard does not."""
    looking = "looking at second hand yaris hybrids"
    assert plan_came_true(looking, "picked up the yaris. the fiesta went to the scrapyard")
    assert not plan_came_true(looking, "scrapped the yaris idea, bus pass it is")
