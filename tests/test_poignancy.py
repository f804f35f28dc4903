"""Importance through the poignancy question: its built data keeps its held-out words out,
P(yes) maps onto 1-10 in a town's rater, and the labelled sets are read and summarised right."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from mindstream.agents.generative import Minds
from mindstream.lab.experiments.poignancy_eval import load_labelled, summarise
from mindstream.lab.training import poignancy_data as data
from mindstream.lm.fakes import FakeScorer, ScriptedChatModel
from mindstream.lm.judges.poignancy import FEW_SHOT_POIGNANT, HIGH_ANCHORS, LOW_ANCHORS

LABELLED = Path(__file__).parent / "data"


def test_built_memories_are_balanced_and_keep_the_held_out_words_out() -> None:
    train = data.poignancy_examples(2000, 0)
    assert sum(e.label for e in train) == 1000
    held_out = (
        *data.HELD_OUT_LIFE_EVENTS,
        *data.HELD_OUT_CHORES,
        *data.HELD_OUT_URGENT,
        *(f"is {s}." for s in data.HELD_OUT_EVERYDAY),
    )
    for example in train:
        memory = example.prompt.splitlines()[0]
        assert not any(words in memory for words in held_out), memory
        assert "burn" not in memory and "flood" not in memory  # the town's fire stays unseen
    curve = data.poignancy_examples(200, 1, held_out=True)
    assert {e.source for e in curve} == {
        "poignant: life event",
        "poignant: emergency",
        "mundane: an everyday state",
        "mundane: a chore",
    }


def test_labelled_memories_are_never_built_for_training() -> None:
    built = {e.prompt.splitlines()[0] for e in data.poignancy_examples(4000, 0)}
    for name in ("town_poignancy.jsonl", "poignancy.jsonl"):
        for _, memory in load_labelled(LABELLED / name):
            assert f"Memory: {memory}." not in built
            assert memory not in FEW_SHOT_POIGNANT.template
            assert f"{memory}." not in (*LOW_ANCHORS, *HIGH_ANCHORS)


class _Poignancy:
    def __init__(self, p: float) -> None:
        self.p = p
        self.asked: list[str] = []

    def poignant_batch(self, memories: Sequence[str]) -> list[float]:
        self.asked += memories
        return [self.p] * len(memories)


def _rating(prompt: str) -> float:
    """The model's own 1-10, as flat as the embedded model's: 5 for life events and fires,
    4 for anything else (the prompt's last memory is the one rated)."""
    memory = prompt.rsplit("Memory: ", 1)[1]
    return 5.0 if "burning" in memory or any(a[:-1] in memory for a in HIGH_ANCHORS) else 4.0


@pytest.mark.parametrize(
    ("p", "memory", "rating"),
    [(0.0, "the stove is burning", 5.5), (1.0, "the stove is burning", 10.0), (0.0, "tea", 1.0)],
)
def test_a_towns_rating_averages_the_stretched_own_rating_and_the_judges(
    p: float, memory: str, rating: float
) -> None:
    judge = _Poignancy(p)
    minds = Minds(ScriptedChatModel(default=""), FakeScorer(rating=_rating), poignancy=judge)
    # own rating 5 sits at the life events' anchor (10), 4 at the chores' (1); P maps 1 + 9P
    assert minds.rate_importance([memory]) == [pytest.approx(rating)]
    assert judge.asked == [memory] and minds.requests["importance"] == 1
    assert minds.rate_importance([]) == [] and judge.asked == [memory]


def test_labelled_sets_read_and_summarise(tmp_path: Path) -> None:
    items = load_labelled(LABELLED / "town_poignancy.jsonl")
    assert {band for band, _ in items} == {"low", "mid", "high"}
    found = summarise(
        [("low", "a"), ("low", "b"), ("high", "c"), ("high", "d")], [1.0, 3.0, 2.0, 9.0]
    )
    assert found["auc_high_over_low"] == 0.75  # 9 beats both, 2 beats only 1
    assert found["quartiles"]["high"][1] == 5.5 and found["range"] == [1.0, 9.0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"band": "low", "memory": "x"}\n{"band": "huge", "memory": "y"}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: band"):
        load_labelled(bad)
