"""What an agent is doing is an activity: the small model's narration, time ranges, names and
descriptions of the agent are not shown as one (the lines below are from a 25-agent day)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mindstream.agents.generative import GenerativeAgent, Minds
from mindstream.agents.generative.persona import Persona
from mindstream.agents.generative.plan import DAY, HOUR, PlanStep
from mindstream.agents.generative.planning import decompose
from mindstream.agents.generative.text import activity, copies, progressive
from mindstream.lm.fakes import FakeScorer, HashEmbeddings, ScriptedChatModel
from mindstream.memory import InMemoryStore, MemoryStream

NINE = datetime(2023, 2, 14, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        (
            "he plans to have breakfast at home with Jennifer from 7:00 am",
            "have breakfast at home with Jennifer",
        ),
        ("she plans to cook dinner at home from 7:00 pm to 10:00", "cook dinner at home"),
        ("he will meet supporters at Town Hall from 4", "meet supporters at Town Hall"),
        ("she plans to watch a film in the", "watch a film"),
        ("wake up and have breakfast from 8:00 am to 9:00 am", "wake up and have breakfast"),
        ("Open Hobbs Cafe and serve customers", "open Hobbs Cafe and serve customers"),
        ("sleep", "sleep"),
        ("eat", "eat"),
    ],
)
def test_the_activity_is_kept_without_its_narration(said: str, shown: str) -> None:
    assert activity(said) == shown


@pytest.mark.parametrize(
    "said",
    [
        "she is feeling a sense of pride and satisfaction as she celebrates",
        "he loves to help others",
        "a regular at The Rose and Crown Pub",
        "the Rose and Crown Pub",
        "husband's campaign for mayor",
        "Maria Lopez is a drinker of coffee at Hobbs Cafe most days",
        "Tom Moreno",
        "to 3:00 PM: Jennifer Moore's dream of creating a digital art project",
        "hobbes Cafe: 12:00 pm to 1:00 pm",
        "7) Edd",
        "she plans to",
        "e",
        "eDIY Lin (age: 19)",
    ],
)
def test_a_description_a_name_or_a_fragment_is_no_activity(said: str) -> None:
    assert activity(said) == ""


def test_what_a_persona_is_is_not_what_it_does() -> None:
    jennifer = Persona(
        name="Jennifer Moore",
        age=63,
        traits=["warm"],
        occupation="watercolour painter",
        home="house: studio",
        memories=["Jennifer Moore is a keen gardener who is married to Sam Moore."],
    )
    assert jennifer.describes("watercolour painter") and jennifer.describes("keen gardener")
    assert jennifer.describes("warm")
    assert not jennifer.describes("paint in the garden") and not jennifer.describes("paint")


def _hours(agent: GenerativeAgent, step: PlanStep, reply: str) -> list[str]:
    """The hours `decompose` makes of `step` when the model lists `reply`."""
    agent.plan.steps.append(step)
    minds = Minds(ScriptedChatModel(rules={}, default=reply), FakeScorer())
    decompose([agent], minds, NINE)
    return [s.activity for s in agent.plan.steps if s.level == HOUR]


def test_an_hour_listed_as_a_description_keeps_the_broad_step() -> None:
    persona = Persona(name="Rajiv Patel", age=30, occupation="painter", home="flat: studio")
    agent = GenerativeAgent(persona, MemoryStream(InMemoryStore(), HashEmbeddings()))
    step = PlanStep(start=NINE, minutes=180, activity="paint in the studio", level=DAY)
    reply = "9:00 am: raj\n2) 10:00 am: painter\n3) 11:00 am: he plans to buy paints from 11"
    hours = _hours(agent, step, reply)
    assert hours == ["buy paints", "paint in the studio", "paint in the studio"]


def test_an_hour_copied_from_the_prompts_description_keeps_the_broad_step() -> None:
    """Ryan Park's hours in a 16-hour unscripted day were his own description."""
    persona = Persona(name="Ryan Park", age=28, traits=["curious", "ambitious"], home="flat: room")
    agent = GenerativeAgent(persona, MemoryStream(InMemoryStore(), HashEmbeddings()))
    agent.summary = "Ryan Park is a curious and ambitious individual driven by a desire to help."
    step = PlanStep(start=NINE, minutes=240, activity="go to Hobbs Cafe", level=DAY)
    reply = "innate traits\n2) curious and ambitious\n3) a desire to help\n4) write some code"
    hours = _hours(agent, step, reply)
    assert hours == ["write some code", *["go to Hobbs Cafe"] * 3]


@pytest.mark.parametrize(
    ("phrase", "copied"),
    [
        ("innate traits", True),
        ("desire to make a positive impact", True),
        ("go to Hobbs Cafe", False),  # shares "hobbs cafe" only
        ("write some code", False),
    ],
)
def test_copies_needs_three_words_in_a_row(phrase: str, copied: bool) -> None:
    source = (
        "Innate traits: curious\nHe works from Hobbs Cafe with a desire to make a positive impact"
    )
    assert copies(phrase, source) is copied


@pytest.mark.parametrize(
    ("step", "seen"),
    [
        ("go to class", "going to class"),  # "Klaus Mueller is go to class"
        ("pour coffee", "pouring coffee"),  # "Ann Lee is pour coffee", seen in a test town
        ("stir the soup", "stirring the soup"),
        ("have breakfast at home", "having breakfast at home"),
        ("write a chapter", "writing a chapter"),
        ("shop for groceries", "shopping for groceries"),
        ("breakfast at home", "breakfast at home"),  # no verb to put in -ing
        ("painting a mural", "painting a mural"),
    ],
)
def test_what_others_see_an_agent_doing_reads_as_x_is_doing(step: str, seen: str) -> None:
    assert progressive(step) == seen


def test_an_inner_voice_becomes_the_deed_not_the_instruction() -> None:
    """A whisper ("you should ask John Lin for his vote") was shown to others as "Sam Moore is
    you should ask John Lin for his vote": a private instruction in another agent's memory."""
    deed = activity("you should ask John Lin for his vote")
    assert deed == "ask John Lin for his vote"
    assert progressive(deed) == "asking John Lin for his vote"
