"""The deed that puts a thing in a bad state right, offered beside what the model wrote."""

from __future__ import annotations

import pytest

from mindstream.agents.generative.reactions import Sight, deed


@pytest.mark.parametrize(
    ("state", "wanted"),
    [
        ("burning", "put out the fire on the stove"),
        ("giving off black smoke", "put out the fire on the stove"),
        ("flooding the path", "stop the water from the stove"),
        ("leaking", "stop the water from the stove"),
        ("broken", "fix the stove"),
    ],
)
def test_the_deed_fits_the_state(state: str, wanted: str) -> None:
    path = "Hobbs Cafe: kitchen: stove"
    place = "Hobbs Cafe: kitchen"
    sight = Sight(text=f"{path} is {state}", subject=path, is_agent=False, place=place)
    assert deed(sight) == wanted


def test_a_model_that_names_no_deed_keeps_what_it_wrote_and_the_world_as_it_is() -> None:
    from datetime import datetime

    from mindstream.agents.generative import GenerativeAgent, Minds, react_to_objects
    from mindstream.agents.generative.persona import Persona
    from mindstream.lm import DecisionParseError
    from mindstream.lm.fakes import FakeScorer, HashEmbeddings, ScriptedChatModel
    from mindstream.memory import InMemoryStore, MemoryStream

    class NamesNoOption(FakeScorer):
        def loglik_batch(self, pairs):  # type: ignore[no-untyped-def]
            raise DecisionParseError("an option letter", ["well"])

        choose_batch = loglik_batch  # type: ignore[assignment]

    minds = Minds(ScriptedChatModel(default="call the fire brigade"), NamesNoOption())
    agent = GenerativeAgent(
        Persona(name="Ann Lee", age=30, home="Cafe: kitchen"),
        MemoryStream(InMemoryStore(), HashEmbeddings()),
    )
    path = "Cafe: kitchen: stove"
    sight = Sight(text=f"{path} is burning", subject=path, is_agent=False, place="Cafe: kitchen")
    _, events, changes = react_to_objects([(agent, sight)], minds, datetime(2023, 2, 14, 9), 1)
    assert changes == {} and events[0].plan.endswith("call the fire brigade")
