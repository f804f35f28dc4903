"""Rule-based sentence work: hypotheses from question + choice, and negating a belief."""

from __future__ import annotations

import re

_AUXILIARIES = (
    "is",
    "are",
    "was",
    "were",
    "can",
    "could",
    "will",
    "would",
    "should",
    "does",
    "do",
    "did",
    "has",
    "have",
    "had",
    "may",
    "might",
    "must",
)
_NEGATED = re.compile(
    r"\b(not|cannot|can't|isn't|aren't|doesn't|don't|won't|never)\b", re.IGNORECASE
)


def rule_hypothesis(question: str, choice: str) -> str:
    """A declarative sentence for a question and one answer choice.

    OpenBookQA stems are mostly sentences to complete ("The sun is responsible for"); a real
    question gets its answer attached.
    """
    stem = " ".join(question.split())
    answer = " ".join(choice.split()).rstrip(".")
    if stem.endswith("?"):
        return f"{stem[:-1].rstrip()}: {answer}."
    return f"{stem.rstrip(' .,:;')} {answer}."


def negate(statement: str) -> str:
    """'A magnet can attract copper.' -> 'A magnet cannot attract copper.'

    Inserts a negation after the first auxiliary; otherwise 'It is not true that ...'. A
    statement that is already negative loses its negation.
    """
    text = " ".join(statement.split()).rstrip(".")
    if _NEGATED.search(text):
        positive = re.sub(r"\bcannot\b", "can", text, count=1, flags=re.IGNORECASE)
        positive = re.sub(r"\b(\w+)n't\b", r"\1", positive, count=1)
        positive = re.sub(r"\s+(not|never)\b", "", positive, count=1, flags=re.IGNORECASE)
        return positive + "."
    words = text.split()
    for index, word in enumerate(words):
        if word.lower() in _AUXILIARIES:
            negation = "cannot" if word.lower() == "can" else f"{word} not"
            return " ".join([*words[:index], negation, *words[index + 1 :]]) + "."
    return f"It is not true that {text[:1].lower()}{text[1:]}."
