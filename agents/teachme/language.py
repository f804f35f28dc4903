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
_ARTICLES = ("a", "an", "the", "this", "that", "these", "those")
_YES = ("yes", "true")
_NO = ("no", "false")
_NEGATED = re.compile(
    r"\b(not|cannot|can't|isn't|aren't|doesn't|don't|won't|never)\b", re.IGNORECASE
)


def normal_form(statement: str) -> str:
    """Case, spacing and a final period ignored: how two statements are judged the same."""
    return " ".join(statement.lower().rstrip(".").split())


def rule_hypothesis(question: str, choice: str) -> str:
    """A declarative sentence for a question and one answer choice.

    OpenBookQA stems are mostly sentences to complete ("The sun is responsible for"); a real
    question gets its answer attached.
    """
    stem = " ".join(question.split())
    answer = " ".join(choice.split()).rstrip(".")
    polar = _polar_statement(stem)
    if polar and answer.lower() in _YES + _NO:
        return polar if answer.lower() in _YES else negate(polar)
    if stem.endswith("?"):
        return f"{stem[:-1].rstrip()}: {answer}."
    return f"{stem.rstrip(' .,:;')} {answer}."


def _polar_statement(question: str) -> str | None:
    """'Can a magnet attract a penny?' -> 'A magnet can attract a penny.' (the subject is taken
    to be one word, or an article and a word); None unless it is a yes/no question."""
    words = question.rstrip("?").split()
    if not question.endswith("?") or len(words) < 3 or words[0].lower() not in _AUXILIARIES:
        return None
    subject = 3 if words[1].lower() in _ARTICLES and len(words) > 3 else 2
    sentence = " ".join([*words[1:subject], words[0].lower(), *words[subject:]])
    return f"{sentence[:1].upper()}{sentence[1:]}."


_NOT_TRUE = re.compile(r"^it is (not )?true that ", re.IGNORECASE)
_DO = {"do", "does", "did"}


def polarity(statement: str) -> tuple[str, bool]:
    """(what the statement is about, whether it denies it): 'A magnet does not attract
    copper.', 'It is not true that a magnet attracts copper.' and 'A magnet attracts copper.'
    are about the same thing, the first two denying it. Words are crudely stemmed so the
    auxiliary 'does' and a verb's -s do not matter."""
    text = normal_form(statement)
    prefix = _NOT_TRUE.match(text)
    negative = bool(prefix and prefix.group(1))
    if prefix:
        text = text[prefix.end() :]
    if _NEGATED.search(text):
        negative = not negative
        text = normal_form(negate(text))
    words = [w.rstrip("s") for w in text.split() if w not in _DO]
    return " ".join(words), negative


def contradicts(first: str, second: str) -> bool:
    """One statement denies what the other asserts."""
    (a, a_negative), (b, b_negative) = polarity(first), polarity(second)
    return a == b and a_negative != b_negative


def is_negative(statement: str) -> bool:
    """'A magnet does not attract copper.' is; 'A magnet attracts iron.' is not."""
    return bool(_NEGATED.search(statement))


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
