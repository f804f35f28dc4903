"""The numeric state-update pairs the change judge goes on training with."""

from __future__ import annotations

import re
from collections import Counter

from mindstream.lab.training.change_data import OTHER, REPLACES, SAME_SLOT, Example
from mindstream.lab.training.change_run import _continued
from mindstream.lab.training.state_updates import SOURCE, state_pairs

_NUMBER = re.compile(r"\d+")


def test_each_update_comes_with_look_alikes_that_must_not_supersede() -> None:
    pairs = state_pairs(200, seed=3)
    labels = Counter(p.label for p in pairs)
    assert labels[REPLACES] == 200
    assert labels[SAME_SLOT] == 200  # the same value said again
    assert labels[OTHER] >= 200  # another item's update, a one-off count
    assert {p.source for p in pairs} == {SOURCE}


def test_an_update_tells_a_new_value_and_a_restatement_keeps_the_old() -> None:
    for pair in state_pairs(300, seed=5):
        old = set(_NUMBER.findall(pair.earlier))
        new = set(_NUMBER.findall(pair.later))
        if pair.label == REPLACES:
            assert new - old, pair  # the later names a value the earlier did not
        if pair.label == SAME_SLOT:
            assert old & new, pair


def test_the_same_seed_writes_the_same_pairs() -> None:
    assert state_pairs(50, seed=1) == state_pairs(50, seed=1)
    assert state_pairs(50, seed=1) != state_pairs(50, seed=2)


def test_going_on_keeps_the_focus_and_replays_the_rest() -> None:
    rest = [Example(earlier=f"a{i}", later=f"b{i}", label=OTHER, source="x") for i in range(100)]
    focus = state_pairs(5)
    mixed = _continued(rest, focus, replay=2)
    assert len(mixed) == len(focus) * 3
    assert all(p in mixed for p in focus)
    assert len({p.earlier for p in mixed if p.source == "x"}) == 2 * len(focus)
