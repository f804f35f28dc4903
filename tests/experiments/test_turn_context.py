"""The turns-in-context measurement: an elliptical answer is found only with its question."""

from __future__ import annotations

from pathlib import Path

from mindstream.lab.experiments.truth_data import parse_chat
from mindstream.lab.experiments.turn_context import measure
from mindstream.lm.fakes import HashEmbeddings

CHAT = """title: pottery
user: Dana
assistant: Assistant
style: terse

## session 2026-01-04 19:20
A: Do you still go to the pottery class at the arts centre?
U {when}: yes, on tuesdays
U {cat}: our cat pepper is 3 now
U: lol

## session 2026-02-04 19:20
U {job}: i teach year 5 at st marks, been there 6 yrs

## questions
Q: which day is the pottery class at the arts centre? | tuesdays | when
Q: how old is the cat pepper? | 3 | cat
"""


def test_the_turn_before_finds_an_answer_that_names_nothing(tmp_path: Path) -> None:
    path = tmp_path / "dana.chat"
    path.write_text(CHAT)
    recall = measure([parse_chat(path)], HashEmbeddings(), k=1)
    assert recall["turn alone"] == 0.5  # "yes, on tuesdays" names nothing asked
    assert recall["after the turn before, best of two"] == 1.0
    assert recall["after the turn before"] == 0.5  # "lol" after the cat turn now reads as it
    assert set(recall) >= {"turn alone", "date in front", "the same, short turns only"}
    assert all(0.0 <= r <= 1.0 for r in recall.values())
