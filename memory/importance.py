"""Importance of new memories: an injected rater, batched, cached by text."""

from __future__ import annotations

from collections.abc import Callable, Sequence

RateTexts = Callable[[Sequence[str]], Sequence[float]]


class CachedRater:
    """Rates texts in one batch, each distinct text once, clamped to 1..10.

    The memory layer sees only a callable; `scorer_rater` builds one from an `lm` Scorer.
    """

    def __init__(self, rate: RateTexts, cache_size: int = 50_000) -> None:
        self._rate = rate
        self._cache: dict[str, float] = {}
        self._cache_size = cache_size

    def __call__(self, texts: Sequence[str]) -> list[float]:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            ratings = self._rate(todo)
            if len(self._cache) + len(todo) > self._cache_size:
                self._cache.clear()
            self._cache.update(
                (text, min(max(float(r), 1.0), 10.0)) for text, r in zip(todo, ratings, strict=True)
            )
        return [self._cache[t] for t in texts]


def scorer_rater(scorer: object) -> CachedRater:
    """A cached rater over `lm.rate_importance` (the few-shot poignancy prompt)."""
    from mindstream.lm import Scorer, rate_importance

    if not isinstance(scorer, Scorer):
        raise TypeError("scorer_rater needs an lm.Scorer (a model with log-probabilities)")
    return CachedRater(lambda texts: rate_importance(scorer, texts))
