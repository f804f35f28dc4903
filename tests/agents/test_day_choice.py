"""A day plan the model cannot write is chosen part by part, not copied from the routine."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from mindstream.agents.generative import GenerativeAgent, Minds
from mindstream.agents.generative.day_choice import Town, day_slots
from mindstream.agents.generative.events import DayPlan
from mindstream.agents.generative.persona import Persona
from mindstream.agents.generative.planning import plan_days
from mindstream.agents.generative.prompts import PLAN_EXAMPLE
from mindstream.lm import LogLikelihood
from mindstream.lm.fakes import FakeScorer, HashEmbeddings, ScriptedChatModel
from mindstream.memory import InMemoryStore, MemoryStream, new_memory

MORNING = datetime(2023, 2, 14, 7, 0, tzinfo=UTC)
AREAS = ["Hobbs Cafe", "Johnson Park", "Oak Hill College"]
TOWN = Town.open(AREAS)
ROUTINE = [
    "7:00 am: have breakfast",
    "9:00 am: walk in Johnson Park",
    "12:00 pm: have lunch at home",
    "4:00 pm: read at home",
    "10:00 pm: sleep",
]
COPIED = "\n".join(f"{n}) {step}" for n, step in enumerate(PLAN_EXAMPLE, 2))


class Prefers(FakeScorer):
    """Scores an option 0 when it contains `liked`, else -5 (after any prompt); records every
    prompt and option it is asked about."""

    def __init__(self, liked: str) -> None:
        super().__init__()
        self.liked = liked
        self.asked: list[tuple[str, str]] = []

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        self.asked += list(pairs)
        scores = [0.0 if self.liked in text and "someone" not in p else -5.0 for p, text in pairs]
        return [LogLikelihood(total=s, mean=s, tokens=1) for s in scores]


def _agent(memories: Sequence[str] = (), routine: Sequence[str] = ROUTINE) -> GenerativeAgent:
    persona = Persona(name="Ann Lee", age=40, home="Ann's house: kitchen", routine=list(routine))
    stream = MemoryStream(InMemoryStore(), HashEmbeddings())
    stream.add_many(
        [new_memory(text=t, owner="Ann Lee", importance=5, created_at=MORNING) for t in memories]
    )
    return GenerativeAgent(persona, stream, location="Ann's house: kitchen")


def _plan(agent: GenerativeAgent, scorer: FakeScorer, wrote: str = COPIED) -> str:
    minds = Minds(ScriptedChatModel(rules={}, default=wrote), scorer)
    _, events = plan_days([agent], TOWN, minds, MORNING, tick=1)
    (event,) = events
    assert isinstance(event, DayPlan)
    return f"{event.source.split()[0]}: {event.steps}"


def test_a_plan_that_copies_the_prompts_example_is_the_routine_when_nothing_calls_away() -> None:
    scorer = Prefers("Johnson Park")
    planned = _plan(_agent(), scorer)
    assert planned == (
        "chosen: 07:00-09:00 have breakfast; 09:00-12:00 walk in Johnson Park; "
        "12:00-16:00 have lunch at home; 16:00-22:00 read at home; 22:00-06:00 sleep"
    )
    assert not scorer.asked  # each part had one candidate: no question


def test_a_written_plan_that_loops_or_copies_in_other_words_is_not_usable() -> None:
    loops = "breakfast at home\n2) 9:00 am: work at the office\n3) 12:00 pm: lunch\n" + "\n".join(
        f"{n}) {h}:00 pm: dinner at the restaurant" for n, h in ((4, 3), (5, 5), (6, 7))
    )
    assert _plan(_agent(), Prefers("nothing"), loops).startswith("chosen: ")


def test_a_written_plan_with_enough_own_steps_is_kept() -> None:
    wrote = "open the shop\n2) 9:00 am: sell\n3) 11:00 am: bake\n4) 1:00 pm: eat\n5) 3:00 pm: sweep"
    planned = _plan(_agent(), Prefers("nothing"), wrote)
    assert planned.startswith("model: 07:00-09:00 open the shop")


def test_the_inner_voice_is_a_choice_for_the_part_under_way() -> None:
    agent = _agent()
    agent.intentions = ["go to Hobbs Cafe now"]
    planned = _plan(agent, Prefers("Hobbs Cafe"))
    assert "07:00-09:00 go to Hobbs Cafe now" in planned


def test_a_remembered_invitation_adds_a_visit_at_its_time() -> None:
    agent = _agent(["Isabella is hosting a party at Hobbs Cafe from 5 to 7 pm today."])
    slots = day_slots(agent, TOWN, MORNING)
    visit = [s for s in slots if s.start.hour == 17]
    assert visit and visit[0].options == ("go to Hobbs Cafe", "read at home")
    assert "17:00-22:00 go to Hobbs Cafe" in _plan(agent, Prefers("Hobbs Cafe"))


def test_without_a_timed_routine_every_three_hours_is_a_choice_of_what_the_world_affords() -> None:
    agent = _agent(routine=[])
    slots = day_slots(agent, TOWN, MORNING)
    assert [s.start.hour for s in slots] == [7, 10, 13, 16, 19]
    places = ("go to Hobbs Cafe", "go to Johnson Park", "go to Oak Hill College")
    affords = ("stay at Ann's house", *places)
    assert all(s.options == affords for s in slots)


def test_a_day_without_a_script_has_meals_at_home_or_where_food_is_served() -> None:
    """Scored alike, two-hour parts kept 23 of 25 agents at one activity all day."""
    town = Town(tuple(AREAS), tuple(AREAS), eateries=("Hobbs Cafe",))
    slots = day_slots(_agent(routine=[]), town, MORNING)
    assert [s.start.hour for s in slots] == [7, 8, 10, 12, 13, 16, 18, 19]
    lunch = next(s for s in slots if s.start.hour == 12)
    assert lunch.options == ("have lunch at Ann's house", "have lunch at Hobbs Cafe")
    day = _plan(_agent(routine=[]), Prefers("Hobbs Cafe"))
    assert "12:00-13:00 have lunch at Hobbs Cafe" not in day  # the open town serves no food
    minds = Minds(ScriptedChatModel(rules={}, default=COPIED), Prefers("Johnson Park"))
    _, events = plan_days([agent := _agent(routine=[])], town, minds, MORNING, tick=1)
    assert isinstance(event := events[0], DayPlan)
    assert "08:00-12:00 go to Johnson Park; 12:00-13:00 have lunch at Ann's house" in event.steps
    assert agent.plan.day()[0].activity == "have breakfast at Ann's house"


def test_a_town_is_its_places_nobodys_home_and_those_that_serve_food() -> None:
    rooms_of = {"Cafe": ["cafe", "kitchen"], "Park": ["lawn"], "Ann's house": ["kitchen"]}

    class Map:
        def areas(self) -> list[str]:
            return list(rooms_of)

        def rooms(self, area: str) -> list[str]:
            return rooms_of[area]

        def area_of(self, path: str) -> str:
            return path.split(":")[0]

    town = Town.of(Map(), ["Ann's house: kitchen"])
    assert town == Town(("Cafe", "Park", "Ann's house"), ("Cafe", "Park"), ("Cafe",))
    assert town.afforded(_agent()) == ["stay at Ann's house", "go to Cafe", "go to Park"]


def test_a_day_without_a_script_is_chosen_by_the_model_and_not_spent_at_home() -> None:
    agent = _agent(routine=[])
    agent.persona = agent.persona.model_copy(update={"occupation": "park ranger"})
    assert day_slots(agent, TOWN, MORNING)[0].options[1] == "work as park ranger"
    day = _plan(agent, Prefers("Johnson Park"))
    assert day.startswith("chosen: ") and "go to Johnson Park" in day and "stay at" not in day


def test_an_invitation_at_a_routine_time_is_one_part_with_both_options() -> None:
    agent = _agent(["Come to the party at Hobbs Cafe at 4 pm today."])
    at_four = [s for s in day_slots(agent, TOWN, MORNING) if s.start.hour == 16]
    assert [s.options for s in at_four] == [("go to Hobbs Cafe", "read at home")]


def test_news_told_of_a_place_and_time_today_is_a_visit_even_when_retrieval_misses_it() -> None:
    agent = _agent([f"Ann Lee's plans for today are quiet, note {n}." for n in range(40)])
    told = "Isabella Rodriguez told Ann Lee: party at Hobbs Cafe at 5 pm today."
    agent.stream.add_many(
        [
            new_memory(
                text=told,
                owner="Ann Lee",
                importance=5,
                created_at=MORNING,
                metadata={"news": told, "told_by": "Isabella Rodriguez"},
            )
        ]
    )
    assert told not in agent.context("Ann Lee's plans for today", MORNING)
    at_five = [s for s in day_slots(agent, TOWN, MORNING) if s.start.hour == 17]
    assert at_five and at_five[0].options[0] == "go to Hobbs Cafe"
