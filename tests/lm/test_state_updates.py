"""The numeric state-update pairs the change judge goes on training with."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np

from mindstream.lab.training.change_data import (
    NAMES,
    OTHER,
    REPLACES,
    SAME_SLOT,
    Example,
    chat_sentences,
    with_context,
)
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


def test_context_adds_a_sentence_beside_a_statement_and_keeps_every_label() -> None:
    pairs = state_pairs(100, seed=4)
    chat = ["the boiler broke again.", "anyway we went to the coast"]
    padded = with_context(pairs, chat, share=0.5, seed=0)
    assert [p.label for p in padded] == [p.label for p in pairs]
    changed = [(a, b) for a, b in zip(pairs, padded, strict=True) if a != b]
    assert 0.35 * len(pairs) < len(changed) < 0.65 * len(pairs)
    for before, after in changed:
        for old, new in ((before.earlier, after.earlier), (before.later, after.later)):
            assert new == old or (
                old.rstrip(".") in new and any(s.rstrip(".") in new for s in chat)
            )
    share_by_label = Counter(a.label for a, b in changed)
    assert all(share_by_label[label] > 0 for label in (OTHER, SAME_SLOT, REPLACES))


def test_context_never_comes_before_a_speakers_name() -> None:
    from mindstream.lab.experiments.truth_data import split
    from mindstream.lab.training.change_run import Focus

    named = 0
    focus = Focus(state_updates=60, state_seed=2, context_share=1.0)
    for pair in focus.pairs(_no_embedding, split("train")[:3]):
        for text in (pair.earlier, pair.later):
            inside = [n for n in NAMES if f"{n}: " in text]
            named += bool(inside)
            assert all(text.startswith(f"{n}: ") for n in inside), text
    assert named


def test_chat_sentences_are_short_sentences_of_user_turns() -> None:
    from mindstream.lab.experiments.truth_data import split

    sentences = chat_sentences(split("train")[:3])
    assert sentences
    assert all(3 <= len(s.split()) <= 14 for s in sentences)


def _no_embedding(texts: list[str]) -> np.ndarray:
    raise AssertionError("written pairs need no embedding")


def test_focus_chats_add_their_mined_pairs_with_the_changes_repeated() -> None:
    from mindstream.lab.training.change_run import Focus

    folder = Path(__file__).parents[2] / "mindstream/lab/experiments/data/truth/train"
    chat = folder / "zeke.chat"

    def embed(texts: list[str]) -> np.ndarray:
        rng = np.random.default_rng(len(texts))
        vectors = rng.normal(size=(len(texts), 8)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    pairs = Focus(chats=(chat,)).pairs(embed, [])
    assert {p.source for p in pairs} == {"conversation"}
    replaces = Counter(
        (p.earlier.split(": ", 1)[-1], p.later.split(": ", 1)[-1])
        for p in pairs
        if p.label == REPLACES
    )
    assert replaces and all(n == 6 for n in replaces.values())
