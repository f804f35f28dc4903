"""Cleaning a small model's free text (first line, no repeated sentences, bounded length), and
writing the prompts' small pieces (a clock time, a bullet list)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_END = re.compile(r"(?<=,)\s+")


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def sentences(text: str, limit: int = 2, max_words: int = 40, said: Sequence[str] = ()) -> str:
    """Up to `limit` sentences of the first line with nothing said twice: a small model loops,
    repeating sentences and clauses, and is often cut off in the middle of a repeat. `said`:
    clauses said before (`clauses` of earlier lines), left out too."""
    said = list(said)
    kept: list[str] = []
    for sentence in _SENTENCE_END.split(first_line(text)):
        fresh = []
        for clause in _CLAUSE_END.split(sentence.strip()):
            words = plain(clause)
            if re.search("[a-z]", words) and not _repeats(words, said):
                said.append(words)
                fresh.append(clause)
        if fresh:
            kept.append(_joined(fresh, sentence.strip()))
        if len(kept) == limit:
            break
    return " ".join(" ".join(kept).split()[:max_words])


def clauses(text: str) -> list[str]:
    """The clauses of a text as plain words: what `sentences` compares."""
    return [plain(c) for s in _SENTENCE_END.split(text) for c in _CLAUSE_END.split(s.strip())]


def _repeats(words: str, said: Sequence[str]) -> bool:
    """Said before, or the start of something said before cut off mid-word ("... you're
    celeb"); a word or two that merely begins an earlier clause ("I", "yes") is not."""
    return any(
        earlier == words
        or earlier.startswith(words + " ")
        or (words.count(" ") >= 2 and earlier.startswith(words))
        for earlier in said
    )


def _joined(parts: list[str], sentence: str) -> str:
    joined = " ".join(parts).rstrip(",")
    end = sentence[-1]
    return joined + end if end in ".!?" and not joined.endswith(end) else joined


def plain(text: str) -> str:
    """Lower-case words only: what two lines are compared by."""
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


def activity(text: str, max_words: int = 12) -> str:
    """A short activity phrase: the first clause of the first line, lower-case start."""
    clause = re.split(r"[.;!?]", first_line(text), maxsplit=1)[0].strip(" ,:-\"'")
    words = clause.split()[:max_words]
    phrase = " ".join(words)
    return phrase[:1].lower() + phrase[1:] if phrase else ""


def has_words(text: str) -> bool:
    """At least one real word (not only numbers, times and punctuation)."""
    return bool(re.search(r"[A-Za-z]{3,}", text))


def clock_time(moment: datetime) -> str:
    return moment.strftime("%I:%M %p").lstrip("0").lower()


def bullets(texts: Sequence[str]) -> str:
    return "\n".join(f"- {t}" for t in texts) or "- (nothing yet)"
