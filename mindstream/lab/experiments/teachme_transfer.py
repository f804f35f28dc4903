"""Does a taught negation carry to fresh questions? Each item teaches a negative fact about a
category ("Plants cannot move from place to place") and asks two new questions about an
instance named differently ("How does an oak tree get water?"), each with a choice the fact
rules out. Right: the right answer chosen; away: the ruled-out choice avoided. Answered with
nothing taught and with the item's fact taught.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from rich.progress import track

from mindstream.lab.experiments.jsonl import read_jsonl
from mindstream.lab.experiments.report import table, write_section
from mindstream.lab.experiments.teachme import Lab

ITEMS = Path(__file__).parent / "data" / "teachme_transfer.jsonl"


class Fresh(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    choices: list[str] = Field(min_length=2)
    answer: int
    ruled_out: int


class TransferItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    taught_question: str
    taught_choices: list[str]
    negative_fact: str
    fresh: list[Fresh] = Field(min_length=1)


def load_items(path: Path = ITEMS) -> list[TransferItem]:
    return read_jsonl(path, TransferItem)


def answers(lab: Lab, items: list[TransferItem], taught: bool) -> list[int]:
    """The choice picked for every fresh question, with or without the item's fact."""
    out = []
    label = "its fact taught" if taught else "nothing taught"
    for n, item in enumerate(track(items, description=f"teaching transfer, {label}")):
        reasoner = lab.reasoner([(f"item-{n}", item.negative_fact)] if taught else [])
        for fresh in item.fresh:
            answer = reasoner.answer(fresh.question, fresh.choices)
            out.append(-1 if answer.choice_index is None else answer.choice_index)
    return out


def run(lab: Lab, out: Path, data: Path = ITEMS) -> dict[str, Any]:
    started = time.perf_counter()
    items = load_items(data)
    questions = [f for item in items for f in item.fresh]
    chosen = {name: answers(lab, items, name == "taught") for name in ("none", "taught")}
    right = {
        k: sum(c == q.answer for c, q in zip(v, questions, strict=True)) for k, v in chosen.items()
    }
    away = {
        k: sum(c != q.ruled_out for c, q in zip(v, questions, strict=True))
        for k, v in chosen.items()
    }
    result = {
        "command": f"mindstream eval teachme-transfer --data {data}",
        "model": lab.spec,
        "items": len(items),
        "questions": len(questions),
        "right": right,
        "away_from_ruled_out": away,
        "picks": chosen,
        "seconds": round(time.perf_counter() - started, 1),
    }
    total = len(questions)
    rows = [
        ["nothing taught", f"{right['none']}/{total}", f"{away['none']}/{total}"],
        ["the item's fact taught", f"{right['taught']}/{total}", f"{away['taught']}/{total}"],
    ]
    title = f"{len(items)} facts, {total} fresh questions, {lab.spec}"
    markdown = f"""## TeachMe: teaching transfer ({title})

A negative fact about a category is taught; fresh questions ask about an instance of it
(`{data.name}`). Wall time {result["seconds"]} s.

{table(["memory", "right", "ruled-out choice avoided"], rows)}
"""
    section = "teachme_transfer" if data == ITEMS else f"teachme_transfer_{data.stem}"
    write_section(section, markdown, result, out)
    return result
