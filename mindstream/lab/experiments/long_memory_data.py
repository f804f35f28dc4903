"""mindstream's own long conversation, built from `data/long_memory_source.yaml` into the
long-memory JSON format (`mindstream eval long-memory --data`): sessions of turns with dates,
and questions whose evidence (and, for facts that changed, outdated turns) cite turn ids.

    python -m mindstream.lab.experiments.long_memory_data OUT  # the JSON (seeded, deterministic)
"""

from __future__ import annotations

import json
import random
import sys
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

SOURCE = Path(__file__).parent / "data" / "long_memory_source.yaml"
SESSION_DAYS = 5  # days between sessions


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Turn(_Frozen):
    speaker: str
    text: str = Field(min_length=1)
    session: int | None = Field(None, ge=1)  # filler is said in any session
    key: str | None = None  # a turn that questions cite


class Question(_Frozen):
    question: str
    answer: str
    category: str
    evidence: list[str] = Field(min_length=1)
    outdated: list[str] = Field(default_factory=list)


class Source(_Frozen):
    speakers: dict[str, str]
    start: datetime
    sessions: int = Field(ge=1)
    facts: list[Turn]
    distractors: list[Turn]
    filler: list[Turn] = Field(min_length=14)
    questions: list[Question]


@cache
def load(path: Path = SOURCE) -> Source:
    return Source.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def build(seed: int = 0, source: Source | None = None) -> dict[str, Any]:
    """The one sample: its conversation (sessions with dates) and its questions."""
    source = source or load()
    rng = random.Random(seed)
    conversation: dict[str, Any] = {
        "speaker_a": source.speakers["a"],
        "speaker_b": source.speakers["b"],
    }
    dia_of: dict[str, str] = {}
    for session in range(1, source.sessions + 1):
        lines = []
        for n, turn in enumerate(_session_turns(source, session, rng), start=1):
            dia_id = f"D{session}:{n}"
            if turn.key:
                dia_of[turn.key] = dia_id
            lines.append({"speaker": turn.speaker, "dia_id": dia_id, "text": turn.text})
        offset = timedelta(days=SESSION_DAYS * (session - 1), minutes=rng.randint(-90, 90))
        conversation[f"session_{session}"] = lines
        conversation[f"session_{session}_date_time"] = _lo_co_mo_date(source.start + offset)
    qa = [
        {
            "question": q.question,
            "answer": q.answer,
            "category": q.category,
            "evidence": [dia_of[k] for k in q.evidence],
            "outdated": [dia_of[k] for k in q.outdated],
        }
        for q in source.questions
    ]
    return {"sample_id": "maya-leo", "conversation": conversation, "qa": qa}


def _session_turns(source: Source, session: int, rng: random.Random) -> list[Turn]:
    """Two lines of filler, the session's facts and distractors shuffled, then more filler."""
    said = [t for t in source.facts if t.session == session]
    said += [t for t in source.distractors if t.session == session]
    rng.shuffle(said)
    filler = rng.sample(source.filler, rng.randint(10, 14))
    return filler[:2] + said + filler[2:]


def _lo_co_mo_date(moment: datetime) -> str:
    hour = moment.strftime("%I").lstrip("0")
    return (
        f"{hour}:{moment:%M} {moment:%p}".lower() + f" on {moment.day} {moment:%B}, {moment.year}"
    )


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("long_memory.json")
    data = build()
    out.write_text(json.dumps([data], indent=1) + "\n", encoding="utf-8")
    turns = sum(len(v) for k, v in data["conversation"].items() if k.endswith(tuple("0123456789")))
    print(f"written {out}: {load().sessions} sessions, {turns} turns, {len(data['qa'])} questions")


if __name__ == "__main__":
    main()
