"""Where an agent goes for a step: the place its plan names, else the model's choice."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from mindstream.agents.generative import GenerativeAgent, Minds, choose_places
from mindstream.agents.generative.persona import Persona
from mindstream.agents.generative.plan import Plan, PlanStep
from mindstream.lm import LogLikelihood
from mindstream.lm.fakes import FakeScorer, HashEmbeddings, ScriptedChatModel
from mindstream.memory import InMemoryStore, MemoryStream
from mindstream.sim.world import World

NOW = datetime(2023, 2, 14, 13, 0, tzinfo=UTC)
WORLD = World(
    {
        "Oak Hill College": {"classroom": {"desks": "idle"}, "library": {"bookshelf": "idle"}},
        "Oak Hill College dorm": {"Klaus's room": {"bed": "idle"}, "kitchen": {"stove": "idle"}},
        "Hobbs Cafe": {"cafe": {"counter": "idle"}},
    }
)


class Contrary(FakeScorer):
    """A model that would always pick the classroom or the cafe (after the agent's own prompt,
    not after the neutral baseline): what the plan names must win over it. Every option it is
    asked about is recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.options: list[str] = []

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        self.options += [text for _, text in pairs]
        favoured = [
            "Klaus" in prompt and text in ("classroom", "Hobbs Cafe") for prompt, text in pairs
        ]
        return [
            LogLikelihood(total=s, mean=s, tokens=1) for s in (0.0 if f else -5.0 for f in favoured)
        ]


def _placed(activity: str) -> tuple[str | None, list[str]]:
    scorer = Contrary()
    minds = Minds(ScriptedChatModel(rules={}, default=""), scorer)
    persona = Persona(name="Klaus Mueller", age=20, home="Oak Hill College dorm: Klaus's room")
    stream = MemoryStream(InMemoryStore(), HashEmbeddings())
    agent = GenerativeAgent(persona, stream, location="Hobbs Cafe: cafe")
    agent.plan = Plan(steps=[PlanStep(start=NOW, minutes=60, activity=activity)])
    choose_places([agent], WORLD, minds, NOW)
    return agent.location, scorer.options


@pytest.mark.parametrize(
    ("activity", "place"),
    [
        ("work on his research paper at the Oak Hill College library", "Oak Hill College: library"),
        ("study physics in the library", "Oak Hill College: library"),
        (
            "cook dinner in the kitchen of the Oak Hill College dorm",
            "Oak Hill College dorm: kitchen",
        ),
        ("sleep", "Oak Hill College dorm: Klaus's room"),
        ("read in his room", "Oak Hill College dorm: Klaus's room"),
        ("wake up and get ready", "Oak Hill College dorm: Klaus's room"),
    ],
)
def test_the_place_the_plan_names_wins_over_the_models_choice(activity: str, place: str) -> None:
    located, asked = _placed(activity)
    assert located == place
    assert not asked  # area and room both named: no question


def test_an_area_with_one_room_needs_no_question_and_an_unnamed_one_is_chosen() -> None:
    located, asked = _placed("have coffee at Hobbs Cafe")
    assert located == "Hobbs Cafe: cafe" and not asked
    located, asked = _placed("go to class at Oak Hill College")
    assert located == "Oak Hill College: classroom" and "library" in asked
    located, asked = _placed("relax for a while")
    assert located == "Hobbs Cafe: cafe" and "Oak Hill College" in asked


def test_an_action_stays_where_its_larger_step_is_without_a_new_question() -> None:
    from datetime import timedelta

    from mindstream.agents.generative.plan import ACTION, DAY

    scorer = Contrary()
    minds = Minds(ScriptedChatModel(rules={}, default=""), scorer)
    persona = Persona(name="Klaus Mueller", age=20, home="Oak Hill College dorm: Klaus's room")
    agent = GenerativeAgent(persona, MemoryStream(InMemoryStore(), HashEmbeddings()))
    first = PlanStep(start=NOW, minutes=10, activity="sharpen pencils", level=ACTION)
    later = PlanStep(start=NOW + timedelta(minutes=10), minutes=10, activity="read", level=ACTION)
    agent.plan = Plan(
        steps=[
            PlanStep(start=NOW, minutes=60, activity="work on his paper", level=DAY),
            first,
            later,
        ]
    )
    choose_places([agent], WORLD, minds, NOW)
    asked = len(scorer.options)
    assert asked and agent.location == "Hobbs Cafe: cafe"  # the model's choice (see Contrary)
    choose_places([agent], WORLD, minds, NOW + timedelta(minutes=10))
    assert len(scorer.options) == asked  # no new question
    assert [s.place for s in agent.plan.steps] == ["Hobbs Cafe: cafe"] * 3


def test_an_action_that_names_another_place_goes_there() -> None:
    from datetime import timedelta

    from mindstream.agents.generative.plan import ACTION, DAY

    minds = Minds(ScriptedChatModel(rules={}, default=""), Contrary())
    persona = Persona(name="Klaus Mueller", age=20, home="Oak Hill College dorm: Klaus's room")
    agent = GenerativeAgent(persona, MemoryStream(InMemoryStore(), HashEmbeddings()))
    day = PlanStep(start=NOW, minutes=60, activity="work", level=DAY, place="Hobbs Cafe: cafe")
    fetch = PlanStep(
        start=NOW + timedelta(minutes=10),
        minutes=10,
        activity="fetch a book from the library",
        level=ACTION,
    )
    agent.plan = Plan(steps=[day, fetch])
    choose_places([agent], WORLD, minds, NOW + timedelta(minutes=10))
    assert agent.location == "Oak Hill College: library"


@pytest.mark.parametrize(
    ("activity", "area"),
    [("have breakfast", "Oak Hill College dorm"), ("have breakfast at Hobbs Cafe", "Hobbs Cafe")],
)
def test_breakfast_is_at_home_unless_the_plan_names_a_place(activity: str, area: str) -> None:
    located, asked = _placed(activity)
    assert located is not None and located.startswith(f"{area}: ")
    assert "Hobbs Cafe" not in asked  # the area was not a question


@pytest.mark.parametrize(
    "activity",
    [
        "ask Maria Lopez to come with me to the party at Hobbs Cafe at 5 pm",
        "talk to Maria about the party",
    ],
)
def test_a_step_that_seeks_someone_goes_where_they_were_last_seen(activity: str) -> None:
    """Klaus's inner voice asked him to invite Maria to the party at the cafe: he went to
    the cafe, where she was not."""
    from mindstream.memory import new_memory

    minds = Minds(ScriptedChatModel(rules={}, default=""), Contrary())
    persona = Persona(name="Klaus Mueller", age=20, home="Oak Hill College dorm: Klaus's room")
    stream = MemoryStream(InMemoryStore(), HashEmbeddings(), rater=lambda texts: [3.0] * len(texts))
    agent = GenerativeAgent(persona, stream, location="Oak Hill College: library")
    stream.add_many(agent.observe(["Maria Lopez is reading"], NOW, tick=1))
    agent.location = "Hobbs Cafe: cafe"
    stream.add_many(agent.observe(["Ryan Park is reading"], NOW, tick=2))
    said = new_memory(
        text="Maria Lopez is at the cafe", owner=agent.name, importance=3, created_at=NOW
    )
    stream.add_many([said])  # heard, not seen: no place
    agent.plan = Plan(steps=[PlanStep(start=NOW, minutes=60, activity=activity)])
    choose_places([agent], WORLD, minds, NOW)
    assert agent.location == "Oak Hill College: library"


def test_someone_never_seen_is_not_sought() -> None:
    located, _ = _placed("ask Maria Lopez to come with me to the party at Hobbs Cafe")
    assert located == "Hobbs Cafe: cafe"  # the place named
