"""Packing next-token steps into requests, and the label trie from served log-probabilities."""

from __future__ import annotations

import math

import pytest

from mindstream.lm.served.likelihood import _distribution, _steps, packed


def test_steps_are_packed_within_both_limits_and_none_is_lost() -> None:
    steps = [((1, 2, n), token) for n in range(30) for token in (n % 7, 100)]
    chunks = packed(steps, contexts=4, tokens=5)
    assert sorted(s for c in chunks for s in c) == sorted(steps)
    for chunk in chunks:
        assert len({context for context, _ in chunk}) <= 4
        assert len({token for _, token in chunk}) <= 5


def test_a_prefix_label_keeps_only_the_mass_that_stops() -> None:
    """Labels "1" (token 1) and "10" (tokens 1, 0) and "2": P(1)=P(2)=0.5 at the prompt, and
    after "1" the model goes on to "0" with 0.8, so "1" alone keeps 0.1."""
    one = ((1,), [math.log(0.5)])
    ten = ((1, 0), [math.log(0.5), math.log(0.8)])
    two = ((2,), [math.log(0.5)])
    assert _distribution([one, ten, two]) == pytest.approx([0.1, 0.4, 0.5])
    assert _steps([7, 8], [1, 0]) == [((7, 8), 1), ((7, 8, 1), 0)]
