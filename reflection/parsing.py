"""Parse free-text model output of reflection: questions, and insights with their citations.

Small models produce loose text; anything that does not fit is dropped and counted, never
repaired with invented content.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

_NUMBERING = re.compile(r"^\s*(?:[-*•]|\(?\d{1,2}[.):]|Q\d+[.:])\s*", re.IGNORECASE)
_CITATION = re.compile(
    r"^(?P<text>.+?)\s*[\(\[]\s*(?:because of|because|based on|from|see)\s*(?:statements?\s*)?"
    r"(?P<refs>\d+(?:\s*(?:,|and|&)\s*\d+)*)\s*[\)\]]\s*[.!]?\s*$",
    re.IGNORECASE,
)
MIN_WORDS = 3
ECHO_SHARE = 0.7  # a question sharing this share of its words with the instruction is an echo


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


class ParsedInsight(BaseModel):
    text: str
    citations: list[int]  # 1-based statement numbers, all within range; empty if kept uncited


class InsightParse(BaseModel):
    insights: list[ParsedInsight]
    dropped: list[str]  # lines that were not usable insights, with the reason


def _lines(text: str) -> list[str]:
    return [_NUMBERING.sub("", line).strip() for line in text.splitlines() if line.strip()]


def parse_questions(text: str, limit: int, echo_of: str = "") -> list[str]:
    """Distinct lines that read as questions (a '?' after at least MIN_WORDS words) and do not
    merely repeat the instruction `echo_of` (small models often do)."""
    instruction = _words(echo_of)
    questions: list[str] = []
    for line in _lines(text):
        if "?" not in line:
            continue
        question = line.split("?")[0].strip() + "?"
        words = _words(question)
        echoed = bool(instruction) and len(words & instruction) >= ECHO_SHARE * len(words)
        if (
            len(words) >= MIN_WORDS
            and not echoed
            and question.lower() not in {q.lower() for q in questions}
        ):
            questions.append(question)
        if len(questions) == limit:
            break
    return questions


def parse_insights(
    text: str, statement_count: int, limit: int, *, keep_uncited: bool = False
) -> InsightParse:
    """Insights of the form `insight (because of 1, 5, 3)` citing statements in range. With
    `keep_uncited`, a line without a usable citation is kept with none, for the caller to find
    its evidence (the 135M model cites in its first line or two, then stops citing)."""
    insights: list[ParsedInsight] = []
    dropped: list[str] = []
    for line in _lines(text):
        match = _CITATION.match(line)
        body = line if match is None else match.group("text")
        body = body.strip().rstrip(".,;:")
        refs = [] if match is None else [int(n) for n in re.findall(r"\d+", match.group("refs"))]
        valid = sorted({n for n in refs if 1 <= n <= statement_count})
        if len(body.split()) < MIN_WORDS:
            dropped.append(f"too short: {line[:80]}")
        elif valid or keep_uncited:
            insights.append(ParsedInsight(text=body, citations=valid))
        elif match is None:
            dropped.append(f"no citation: {line[:80]}")
        else:
            dropped.append(f"citations out of range {refs}: {line[:80]}")
        if len(insights) == limit:
            break
    return InsightParse(insights=insights, dropped=dropped)
