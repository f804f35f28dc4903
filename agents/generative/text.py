"""Cleaning a small model's free text: first line, no repeated sentences, bounded length."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def sentences(text: str, limit: int = 2, max_words: int = 40) -> str:
    """Up to `limit` distinct sentences of the first line (the model loops on repeats)."""
    kept: list[str] = []
    for sentence in _SENTENCE_END.split(first_line(text)):
        sentence = sentence.strip()
        if sentence and sentence.lower() not in (k.lower() for k in kept):
            kept.append(sentence)
        if len(kept) == limit:
            break
    words = " ".join(kept).split()
    return " ".join(words[:max_words])


def activity(text: str, max_words: int = 12) -> str:
    """A short activity phrase: the first clause of the first line, lower-case start."""
    clause = re.split(r"[.;!?]", first_line(text), maxsplit=1)[0].strip(" ,:-\"'")
    words = clause.split()[:max_words]
    phrase = " ".join(words)
    return phrase[:1].lower() + phrase[1:] if phrase else ""


def has_words(text: str) -> bool:
    """At least one real word (not only numbers, times and punctuation)."""
    return bool(re.search(r"[A-Za-z]{3,}", text))
