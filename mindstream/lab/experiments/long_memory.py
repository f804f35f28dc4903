"""Evidence recall on long conversations: which retrieval policy finds the turns that answer a
question asked after months of talk?

Reads the long-memory JSON format (a list of samples, each with a `conversation` of dated
sessions of turns and `qa` items citing evidence turns `D<session>:<turn>`); bad items are
counted and skipped, never fatal. Each turn becomes a memory at its session's time; every
question is asked a day after the last session.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

DIA_ID = re.compile(r"^D(\d+):(\d+)$")
SESSION_KEY = re.compile(r"^session_(\d+)$")
DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%Y-%m-%d %H:%M")


class DataProblem(ValueError):
    """The file cannot be read at all (not JSON, not a list)."""


class Turn(BaseModel):
    dia_id: str
    speaker: str
    text: str
    at: datetime
    recalled: bool = True  # an assistant's own turn is kept for history, not recalled
    named: bool = True  # stored as "speaker: text" (a user's own memory is just the text)

    @property
    def memory_text(self) -> str:
        return f"{self.speaker}: {self.text}" if self.named else self.text


class Question(BaseModel):
    question: str
    answer: str = ""
    category: str = "unknown"
    evidence: list[str]
    outdated: list[str] = Field(default_factory=list)


class Sample(BaseModel):
    sample_id: str
    turns: list[Turn]
    questions: list[Question]


def load(path: Path) -> tuple[list[Sample], Counter[str]]:
    """The usable samples, and a count of what was skipped and why."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise DataProblem(f"{path}: not readable JSON ({error})") from None
    if not isinstance(raw, list):
        raise DataProblem(f"{path}: expected a list of samples, got {type(raw).__name__}")
    skipped: Counter[str] = Counter()
    samples = []
    for n, item in enumerate(raw):
        sample = _sample(item, f"sample {n}", skipped)
        if sample is not None:
            samples.append(sample)
    return samples, skipped


def _sample(item: Any, name: str, skipped: Counter[str]) -> Sample | None:
    if not isinstance(item, dict) or not isinstance(item.get("conversation"), dict):
        skipped["sample without a conversation"] += 1
        return None
    turns = _turns(item["conversation"], skipped)
    known = {t.dia_id for t in turns}
    questions = [q for q in (_question(x, known, skipped) for x in item.get("qa") or []) if q]
    if not turns or not questions:
        skipped["sample without usable turns or questions"] += 1
        return None
    return Sample(sample_id=str(item.get("sample_id") or name), turns=turns, questions=questions)


def _turns(conversation: dict[str, Any], skipped: Counter[str]) -> list[Turn]:
    sessions = sorted(int(m.group(1)) for key in conversation if (m := SESSION_KEY.match(key)))
    turns: list[Turn] = []
    for session in sessions:
        start = _date(conversation.get(f"session_{session}_date_time"))
        if start is None:
            skipped["session without a readable date"] += 1
            continue
        for n, turn in enumerate(conversation[f"session_{session}"] or []):
            if not isinstance(turn, dict) or not str(turn.get("text") or "").strip():
                skipped["turn without text"] += 1
                continue
            dia_id = str(turn.get("dia_id") or "")
            if not DIA_ID.match(dia_id):
                skipped["turn with a malformed dia_id"] += 1
                continue
            at = start + timedelta(seconds=30 * n)
            speaker = str(turn.get("speaker") or "someone")
            turns.append(Turn(dia_id=dia_id, speaker=speaker, text=str(turn["text"]), at=at))
    return turns


def _date(value: Any) -> datetime | None:
    for pattern in DATE_FORMATS:
        try:
            return datetime.strptime(str(value).strip(), pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _question(item: Any, known: set[str], skipped: Counter[str]) -> Question | None:
    if not isinstance(item, dict) or not str(item.get("question") or "").strip():
        skipped["question without text"] += 1
        return None
    evidence = [e for e in _ids(item.get("evidence")) if e in known]
    if not evidence:
        skipped["question without evidence among the turns"] += 1
        return None
    return Question(
        question=str(item["question"]),
        answer=str(item.get("answer") or ""),
        category=str(item.get("category") or "unknown"),
        evidence=evidence,
        outdated=[e for e in _ids(item.get("outdated")) if e in known],
    )


def _ids(value: Any) -> list[str]:
    """Evidence ids as given ("D1:3"), also inside strings like "D1:3; D2:4"."""
    if isinstance(value, str):
        value = [value]
    found: list[str] = []
    for item in value or []:
        found += re.findall(r"D\d+:\d+", str(item))
    return found
