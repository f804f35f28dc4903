"""Importance (poignancy) of memories on the 1–10 scale, rated by a `Scorer`."""

from __future__ import annotations

from collections.abc import Sequence

from mindstream.lm.prompts import POIGNANCY
from mindstream.lm.scoring.scorer import Scorer


def rate_importance(scorer: Scorer, memories: Sequence[str]) -> list[float]:
    """Expected poignancy of each memory, scored in one batch."""
    prompts = [POIGNANCY.format(memory=" ".join(text.split())) for text in memories]
    return scorer.rate_batch(prompts, 1, 10)
