"""The two shipped change judges read as one: averaged where the first finds a replacement
likely, the first alone elsewhere (the second is never asked there)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from mindstream.lm.judges.change_judge import PairEnsemble, Relation


class Fixed:
    """A pair judge that gives each later statement a fixed P(replaces)."""

    def __init__(self, replaces: dict[str, float]) -> None:
        self.replaces = replaces
        self.asked: list[tuple[str, str]] = []

    def relate_batch(self, pairs: Sequence[tuple[str, str]]) -> list[Relation]:
        self.asked += pairs
        return [
            Relation(other=1 - self.replaces[b], same_slot=0.0, replaces=self.replaces[b])
            for _, b in pairs
        ]


def test_a_likely_pair_is_read_by_both_and_the_rest_by_the_first_alone() -> None:
    first = Fixed({"moved to York": 0.96, "my sister moved": 0.92, "lunch was nice": 0.1})
    second = Fixed({"moved to York": 0.98, "my sister moved": 0.2, "lunch was nice": 0.9})
    ensemble = PairEnsemble(first, second, ask_from=0.5)
    pairs = [("I live in Leeds", b) for b in ("moved to York", "my sister moved", "lunch was nice")]
    replaces = ensemble.replaces_batch(pairs)
    assert replaces == pytest.approx([0.97, 0.56, 0.1])
    assert [b for _, b in second.asked] == ["moved to York", "my sister moved"]


def test_the_averaged_relation_still_sums_to_one() -> None:
    first = Fixed({"we moved": 0.8})
    ensemble = PairEnsemble(first, Fixed({"we moved": 0.6}))
    (relation,) = ensemble.relate_batch([("I live in Leeds", "we moved")])
    assert relation.other + relation.same_slot + relation.replaces == pytest.approx(1.0)
    assert relation.replaces == pytest.approx(0.7)
