"""The foretold pairs: a plan, offer, booking or forecast, then it happening."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from mindstream.lab.training.change_data import OTHER, REPLACES, SAME_SLOT
from mindstream.lab.training.change_run import Focus
from mindstream.lab.training.foretold import SOURCE, foretold_pairs


def test_each_foretelling_comes_true_beside_another_thing_happening() -> None:
    pairs = foretold_pairs(400, seed=3)
    labels = Counter(p.label for p in pairs)
    assert labels[SAME_SLOT] == 400  # it happened: both stay true
    assert 300 < labels[OTHER] <= 400  # another thing happened (draws with the same fill skipped)
    assert 150 < labels[REPLACES] < 400  # the state a happening ends; an age told with its forecast
    assert {p.source for p in pairs} == {SOURCE}
    came_true = {p.earlier: p.later for p in pairs if p.label == SAME_SLOT}
    assert all(
        p.later != came_true[p.earlier] for p in pairs if p.label == OTHER
    )  # never the same statement under two labels


def test_a_replaced_current_value_names_the_age_it_was() -> None:
    for pair in foretold_pairs(200, seed=5):
        if pair.label == REPLACES and "turn" in pair.earlier:
            old, new = (int(re.findall(r"\d+", text)[0]) for text in (pair.earlier, pair.later))
            assert new == old + 1, pair


def test_the_same_seed_writes_the_same_pairs() -> None:
    assert foretold_pairs(50, seed=1) == foretold_pairs(50, seed=1)
    assert foretold_pairs(50, seed=1) != foretold_pairs(50, seed=2)


def test_focus_draws_them_with_its_seed() -> None:
    def no_embedding(texts: list[str]) -> np.ndarray:
        raise AssertionError("written pairs need no embedding")

    pairs = Focus(foretold=30, state_seed=4).pairs(no_embedding, [])
    assert len(pairs) == len(foretold_pairs(30, seed=4))
    assert {p.source for p in pairs} == {SOURCE}
