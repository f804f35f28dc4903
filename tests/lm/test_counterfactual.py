"""Counterfactual negatives for the change judge: a labelled change rewritten about another
thing or another person, and left alone where the rewrite would still replace."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from mindstream.lab.experiments.truth_data import Conversation, Link, Turn
from mindstream.lab.training.change_data import OTHER
from mindstream.lab.training.counterfactual import (
    another_person,
    another_thing,
    counterfactuals,
)

COMMON = {"bumped", "twice", "doctor", "dose", "night", "runs", "long"}


def in_vocabulary(word: str) -> bool:
    """Stands in for MiniLM's word pieces: names and drugs are not whole words there."""
    return word in COMMON


def _conversation(*texts: str, changes: tuple[tuple[int, int], ...]) -> Conversation:
    start = datetime(2026, 1, 1)
    turns = tuple(
        Turn(dia_id=f"D1:{i}", speaker="Maya", text=t, at=start + timedelta(days=i), by_user=True)
        for i, t in enumerate(texts)
    )
    links = tuple(Link(old=f"D1:{a}", new=f"D1:{b}") for a, b in changes)
    return Conversation(sample_id="maya", user="Maya", turns=turns, changes=links)


def test_the_shared_name_is_swapped_for_another_name_of_the_conversation() -> None:
    swapped = another_thing(
        "on metformin 500 twice a day",
        "she bumped the metformin up to 1000",
        {"metformin", "lisinopril"},
        random.Random(0),
    )
    assert swapped == "she bumped the lisinopril up to 1000"


def test_a_shared_common_word_keeps_the_rewrite_from_being_made() -> None:
    """ "long runs on saturdays now" with only a name swapped would still replace."""
    names = {"kelvingrove", "partick"}
    earlier, later = "long runs in kelvingrove on sundays", "long runs in kelvingrove on saturdays"
    assert another_thing(earlier, later, names, random.Random(0)) is None


def test_the_first_person_becomes_someone_elses_news() -> None:
    assert another_person("I live in Leeds", "we moved to York, I'm so tired") == (
        "they moved to York, he's so tired"
    )
    assert another_person("I dip Copenhagen", "I'm done. threw the can out on I-40") == (
        "he's done. threw the can out on I-40"
    )


def test_a_change_of_a_thing_is_not_rewritten_as_someone_elses() -> None:
    """The thinkpad died whoever is on the phone: the subject is not the speaker."""
    assert another_person("I have a 2017 thinkpad", "the thinkpad died, ordered a new one") is None


def test_each_labelled_change_gives_negatives_against_the_statement_it_replaced() -> None:
    conversation = _conversation(
        "I take metformin 500 twice a day",
        "lisinopril 10 at night for the pressure",
        "I got the metformin dose bumped",
        changes=((0, 2),),
    )
    made = counterfactuals(conversation, in_vocabulary)
    assert {e.source for e in made} == {"swap thing", "swap person"}
    assert all(e.label == OTHER and e.earlier == "I take metformin 500 twice a day" for e in made)
    assert "I got the lisinopril dose bumped" in {e.later for e in made}
    assert "he got the metformin dose bumped" in {e.later for e in made}
