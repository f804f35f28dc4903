"""How strongly a scorer believes statements, through the few-shot truth question."""

from __future__ import annotations

from collections.abc import Sequence

from mindstream.lm.prompts import TRUTH_QUESTION
from mindstream.lm.scoring.scorer import Scorer


def as_clause(statement: str) -> str:
    """'A magnet attracts iron.' -> 'a magnet attracts iron' (to follow 'Is it true that')."""
    text = " ".join(statement.split()).rstrip(".!? ")
    first_word = text.split(" ", 1)[0]
    if len(first_word) > 1 and first_word.isupper():  # an acronym keeps its capitals
        return text
    return text[:1].lower() + text[1:]


def belief(scorer: Scorer, statements: Sequence[str]) -> list[float]:
    """P(yes) that each statement is true, scored in one batch."""
    return scorer.p_yes_batch([TRUTH_QUESTION.format(statement=as_clause(s)) for s in statements])
