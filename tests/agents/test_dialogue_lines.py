"""A small model's dialogue lines, cleaned: no clause said twice, no next turn written into
this one, and a line that only repeats what was said ends the conversation."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from mindstream.agents.generative import GenerativeAgent, Minds, converse
from mindstream.agents.generative.persona import Persona
from mindstream.agents.generative.social import RETRY_TEMPERATURE
from mindstream.agents.generative.text import sentences
from mindstream.lm.fakes import FakeScorer, HashEmbeddings, ScriptedChatModel
from mindstream.memory import InMemoryStore, MemoryStream

# Replies of the embedded model in a smallville run (events of 2023-02-14, 15:30-16:30).
MOMENT, TICK = datetime(2023, 2, 14, 15, 30), timedelta(minutes=10)
LOOPING = (
    "I'm so glad you're celebrating, I'm so glad you're celebrating. I'm so glad you're "
    "celebrating, I'm so glad you're celeb"
)


@pytest.mark.parametrize(
    ("reply", "line"),
    [
        (LOOPING, "I'm so glad you're celebrating."),
        ("Well, well, this is nice.", "Well, this is nice."),
        ("Hello there. Hello there! How are you?", "Hello there. How are you?"),
        ("Yes, I will be there. See you, bye!", "Yes, I will be there. See you, bye!"),
        ("21:47. Hi! I'm glad.", "Hi! I'm glad."),
        ("I'm in. I, for one, agree.", "I'm in. I, for one, agree."),
    ],
)
def test_no_clause_is_said_twice(reply: str, line: str) -> None:
    assert sentences(reply) == line


def _pair(replies: dict[str, str]) -> tuple[GenerativeAgent, GenerativeAgent, Minds]:
    minds = Minds(ScriptedChatModel(rules=replies, default=""), FakeScorer())
    stream = MemoryStream(InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance)
    people = [
        Persona(name=name, age=30, home="Town: house") for name in ("Klaus Mueller", "Sam Moore")
    ]
    klaus, sam = (GenerativeAgent(p, stream) for p in people)
    return klaus, sam, minds


def test_a_line_stops_where_the_model_writes_the_next_turn() -> None:
    klaus, sam, minds = _pair(
        {"starts a conversation": "I'm so glad you're here. John Lin: I'm so glad you're here."}
    )
    _, talks = converse([(klaus, sam)], minds, MOMENT, 1, TICK)
    assert talks[0].lines[0] == ("Klaus Mueller", "I'm so glad you're here.")


def test_what_was_said_before_is_left_out_of_a_line() -> None:
    klaus, sam, minds = _pair(
        {
            "starts a conversation": "I'm so glad you're here.",
            "Dialogue so far": "I'm so glad you're here. I'm running for mayor of Smallville.",
        }
    )
    _, talks = converse([(klaus, sam)], minds, MOMENT, 1, TICK)
    assert talks[0].lines[1] == ("Sam Moore", "I'm running for mayor of Smallville.")


def test_a_line_that_only_repeats_what_was_said_ends_the_talk() -> None:
    klaus, sam, minds = _pair(
        {
            "starts a conversation": LOOPING,
            "Dialogue so far": "I'm so glad you're celebrating",
        }
    )
    _, talks = converse([(klaus, sam)], minds, MOMENT, 1, TICK)
    assert [speaker for speaker, _ in talks[0].lines] == ["Klaus Mueller"]
    assert talks[0].ended_by == "nothing new to say"


def test_a_repeated_line_is_asked_again_once_sampled_and_seeded() -> None:
    klaus, sam, _ = _pair({})
    model = ScriptedChatModel(
        rules={
            "starts a conversation": "Are you coming to the party tonight?",
            "Dialogue so far": ["Are you coming to the party?", "Yes, I'll bring a cake."],
        }
    )
    minds = Minds(model, FakeScorer())
    _, talks = converse([(klaus, sam)], minds, MOMENT, 7, TICK)
    assert talks[0].lines[1] == ("Sam Moore", "Yes, I'll bring a cake.")
    assert model.options[:3] == [{}, {}, {"temperature": RETRY_TEMPERATURE, "seed": 701}]


@pytest.mark.parametrize(
    "reply",
    [
        "[smiling warmly] I'm glad you came.",
        "(raises hand) I'm glad you came.",
        "- I'm glad you came.",
    ],
)
def test_stage_directions_and_list_dashes_are_not_said(reply: str) -> None:
    klaus, sam, minds = _pair({"starts a conversation": reply})
    _, talks = converse([(klaus, sam)], minds, MOMENT, 1, TICK)
    assert talks[0].lines[0] == ("Klaus Mueller", "I'm glad you came.")
