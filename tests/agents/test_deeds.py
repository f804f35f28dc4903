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
