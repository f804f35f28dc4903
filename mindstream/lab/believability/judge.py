"""Judging interview answers: pairwise preferences asked through any `Scorer` (each pair in both
orders, so a judge's taste for "the first one" cancels out), and a grounding check that needs
no judge at all."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from langchain_core.prompts import PromptTemplate

from mindstream.lm import Scorer

JUDGE = PromptTemplate.from_template(
    "Two answers to an interview question. The person interviewed is:\n{persona}\n\n"
    "Question: {question}\n"
    "Answer 1: {first}\n"
    "Answer 2: {second}\n\n"
    "Which answer sounds more like this person's own, believable answer, given their life "
    "and what has happened to them? Reply 1 or 2.\nBetter answer:"
)
OPTIONS = [" 1", " 2"]


def preferences(scorer: Scorer, items: Sequence[tuple[str, str, str, str]]) -> list[float]:
    """P(answer a is the more believable) for each (persona, question, a, b): the mean of the
    judge's choice with a shown first and with b shown first."""
    requests = []
    for persona, question, a, b in items:
        requests.append(
            (JUDGE.format(persona=persona, question=question, first=a, second=b), OPTIONS)
        )
        requests.append(
            (JUDGE.format(persona=persona, question=question, first=b, second=a), OPTIONS)
        )
    scores = scorer.choose_batch(requests) if requests else []
    out = []
    for n in range(len(items)):
        a_first, b_first = _share(scores[2 * n]), _share(scores[2 * n + 1])
        out.append((a_first[0] + b_first[1]) / 2)
    return out


def _share(scores: Sequence[float]) -> tuple[float, float]:
    """The two options' scores as probabilities (a softmax: local mean log-likelihoods and
    served log-probabilities alike)."""
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    return weights[0] / total, weights[1] / total


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
STOP = frozenset(
    [
        "about",
        "after",
        "again",
        "also",
        "been",
        "being",
        "could",
        "does",
        "doing",
        "from",
        "have",
        "having",
        "into",
        "just",
        "like",
        "more",
        "most",
        "much",
        "only",
        "other",
        "over",
        "really",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "very",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "would",
        "your",
        "yours",
    ]
)
COMMON_NAMES = frozenset(
    [
        "I",
        "Mr",
        "Mrs",
        "Ms",
        "Dr",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
        "Valentine",
        "Valentine's",
        "Day",
        "Today",
        "Tomorrow",
        "Yes",
        "No",
        "Oh",
        "Well",
        "Hi",
        "Hello",
        "Thanks",
        "Thank",
        "Sorry",
    ]
)


def content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) >= 4 and w.lower() not in STOP}


def grounded(
    answer: str, memories: Iterable[str], enough: int = 2, said: Iterable[str] = ()
) -> bool:
    """The answer uses the agent's own memories: it shares `enough` content words with them,
    and is not a repeat of a line it `said`."""
    if repeats_a_line(answer, said):
        return False
    mine: set[str] = set()
    for text in memories:
        mine |= content_words(text)
    return len(content_words(answer) & mine) >= enough


def repeats_a_line(answer: str, lines: Iterable[str], share: float = 0.6) -> bool:
    """The answer mostly repeats one line the agent said in a conversation (a small model's
    interview answer often does): such an answer shares words with memory without recalling."""
    words = content_words(answer)
    return bool(words) and any(
        len(words & content_words(line)) >= share * len(words) for line in lines
    )


def invented_names(answer: str, world: set[str]) -> list[str]:
    """Capitalised names (not opening a sentence) that nothing in the agent's world mentions:
    no agent, place, object or memory."""
    found = []
    for sentence in _SENTENCE.split(answer):
        words = _WORD.findall(sentence)[1:]  # a sentence's first word is capitalised anyway
        names = [w for w in words if w[0].isupper() and w not in COMMON_NAMES]
        found += [w for w in names if w.lower().removesuffix("'s") not in world]
    return found


def vocabulary(texts: Iterable[str]) -> set[str]:
    """Every word of the world's texts, lower-cased (what `invented_names` checks against)."""
    words: set[str] = set()
    for text in texts:
        words |= {w.lower() for w in _WORD.findall(text)}
    return words
