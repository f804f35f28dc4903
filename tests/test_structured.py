"""Structured output: parsing, bounded retries, typed failure carrying the raw text."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from mindstream.lm import ParseError, StructuredOutputError, generate_structured, parse_json_object
from mindstream.lm.fakes import ScriptedChatModel


class Plan(BaseModel):
    place: str
    minutes: int


def test_parse_json_object_finds_the_block() -> None:
    assert parse_json_object('Sure! {"place": "cafe", "minutes": 30} ok', Plan) == Plan(
        place="cafe", minutes=30
    )


@pytest.mark.parametrize(
    "text", ["no json here", '{"place": "cafe"}', '{"place": "cafe", "minutes": "x"}']
)
def test_parse_json_object_raises_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_json_object(text, Plan)


def test_retry_shows_the_error_and_then_succeeds() -> None:
    model = ScriptedChatModel(
        rules={"Plan": ["I think the cafe", '{"place": "cafe", "minutes": 45}']}
    )
    result = generate_structured(model, [HumanMessage("Plan your next hour as JSON")], Plan)
    assert result == Plan(place="cafe", minutes=45)
    assert len(model.prompts) == 2
    assert "could not be used" in model.prompts[1]


def test_failure_raises_typed_error_with_every_raw_reply() -> None:
    model = ScriptedChatModel(default="just words")
    with pytest.raises(StructuredOutputError) as caught:
        generate_structured(model, [HumanMessage("Plan")], Plan, attempts=3)
    assert caught.value.raw_texts == ["just words"] * 3
    assert caught.value.schema_name == "Plan"
    assert "no JSON object" in caught.value.last_error


def test_custom_parser_is_used() -> None:
    def parse(text: str) -> Plan:
        place, minutes = text.split(",")
        return Plan(place=place.strip(), minutes=int(minutes))

    model = ScriptedChatModel(default="park, 20")
    assert generate_structured(model, [HumanMessage("x")], Plan, parse=parse) == Plan(
        place="park", minutes=20
    )
