"""Scoring logic without a model: the label trie, choose(), scales."""

from __future__ import annotations

import math

import pytest
import torch

from mindstream.lm import MemoScorer, ScoringInputError, choose
from mindstream.lm.backends.causal_lm import _maximal_prefixes
from mindstream.lm.fakes import FakeScorer
from mindstream.lm.scoring.scorer import (
    expected_value,
    label_log_scores,
    normalise,
    scale_labels,
    yes_share,
)


def test_trie_needs_one_branch_for_one_to_ten() -> None:
    labels = [(32, d) for d in range(1, 10)] + [(32, 1, 0)]  # " 1".." 9" and " 1" "0"
    assert _maximal_prefixes(labels) == [(32, 1)]


def test_single_token_labels_need_only_the_prompt() -> None:
    assert _maximal_prefixes([(5,), (6,)]) == [()]


def test_prefix_label_keeps_only_the_mass_that_stops() -> None:
    vocab = 4
    dist = {
        (): torch.log(torch.tensor([0.5, 0.5, 0.0, 0.0]) + 1e-30),  # first token 0 or 1
        (0,): torch.log(torch.tensor([0.0, 0.0, 0.8, 0.2]) + 1e-30),  # after 0: 80% goes on to 2
    }
    assert len(dist[()]) == vocab
    scores = label_log_scores([(0,), (0, 2), (1,)], lambda at, token: float(dist[at][token]))
    probs = normalise(scores)
    assert probs == pytest.approx([0.1, 0.4, 0.5], abs=1e-6)


def test_scale_labels_and_expected_value() -> None:
    assert scale_labels(1, 3) == ["1", "2", "3"]
    with pytest.raises(ScoringInputError):
        scale_labels(5, 5)
    assert expected_value([0.0, 0.5, 0.5], low=1) == pytest.approx(2.5)


def test_yes_share_sums_case_variants() -> None:
    assert yes_share([0.2, 0.1, 0.1, 0.1]) == pytest.approx(0.6)


def test_choose_picks_best_mean_and_rejects_empty() -> None:
    scorer = FakeScorer()
    picked = choose(scorer, "she walks to the bakery for bread", [" dentist", " bakery"])
    assert picked.option == " bakery" and picked.index == 1
    assert not math.isclose(picked.scores[0], picked.scores[1])
    with pytest.raises(ScoringInputError):
        choose(scorer, "prompt", [])


def test_fake_scorer_clamps_ratings() -> None:
    scorer = FakeScorer(rating=lambda prompt: 42.0)
    assert scorer.rate_batch(["x", "y"], 1, 10) == [10.0, 10.0]


def test_memo_scorer_scores_each_request_once() -> None:
    inner = FakeScorer()
    memo = MemoScorer(inner)
    first = memo.choose_batch([("a cat", [" cat", " dog"]), ("a dog", [" cat"])])
    again = memo.choose_batch([("a cat", [" cat", " dog"]), ("a bird", [" bird"])])
    assert again[0] == first[0] == inner.choose_batch([("a cat", [" cat", " dog"])])[0]
    assert inner.calls == ["loglik", "loglik", "loglik"]  # two via the memo, one direct
    assert memo.reused == 1
