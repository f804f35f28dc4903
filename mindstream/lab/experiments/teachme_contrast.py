"""Does a taught negation push the answer away? Contrast pairs: a question whose choices
include Y, and a negative fact "X does not Y" that rules Y out.

Each pair is answered three times: with nothing taught, with its own negative fact taught,
and with every pair's negative fact in one memory (the others are distractors that must not
rule out a right answer).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from rich.progress import track

from mindstream.lab.experiments.jsonl import read_jsonl
from mindstream.lab.experiments.report import table, write_section
from mindstream.lab.experiments.teachme import Lab

PAIRS = Path(__file__).parent / "data" / "contrast_pairs.jsonl"


class ContrastPair(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    choices: list[str]
    negative_fact: str
    ruled_out: int  # index of Y, the choice the negative fact excludes


def load_pairs(path: Path = PAIRS) -> list[ContrastPair]:
    return read_jsonl(path, ContrastPair)


def picks(lab: Lab, pairs: list[ContrastPair], memory: str) -> list[int]:
    """The choice picked for each pair with nothing, its own fact, or every fact taught."""
    shared = lab.reasoner([(f"pair-{n}", p.negative_fact) for n, p in enumerate(pairs)])
    out = []
    for n, pair in enumerate(track(pairs, description=f"contrast pairs, {memory}")):
        if memory == "none":
            reasoner = lab.reasoner([])
        elif memory == "own":
            reasoner = lab.reasoner([(f"pair-{n}", pair.negative_fact)])
        else:
            reasoner = shared
        answer = reasoner.answer(pair.question, pair.choices)
        out.append(-1 if answer.choice_index is None else answer.choice_index)
    return out


def run(lab: Lab, out: Path, data: Path = PAIRS) -> dict[str, Any]:
    started = time.perf_counter()
    pairs = load_pairs(data)
    memories = ("none", "own", "all")
    chosen = {m: picks(lab, pairs, m) for m in memories}
    away = {
        m: sum(c != p.ruled_out for c, p in zip(chosen[m], pairs, strict=True)) for m in memories
    }
    result = {
        "command": f"mindstream eval teachme-contrast --data {data}",
        "model": lab.spec,
        "pairs": len(pairs),
        "away_from_y": {m: away[m] / len(pairs) for m in memories},
        "picks": chosen,
        "seconds": round(time.perf_counter() - started, 1),
    }
    labels = {
        "none": "nothing taught",
        "own": "its own negative fact taught",
        "all": f"all {len(pairs)} negative facts taught (shared memory)",
    }
    rows = [[labels[m], f"{away[m]}/{len(pairs)}", f"{away[m] / len(pairs):.0%}"] for m in memories]
    per_pair = [
        [p.negative_fact, p.choices[p.ruled_out], *(p.choices[chosen[m][n]] for m in memories)]
        for n, p in enumerate(pairs)
    ]
    markdown = f"""## TeachMe: taught negations ({len(pairs)} contrast pairs, {lab.spec})

Each question has a choice Y that a negative fact "X does not Y" rules out
(`{data.name}`). Share of answers that are not Y; wall time {result["seconds"]} s.

{table(["memory", "not Y", "share"], rows)}

{table(["negative fact", "Y", *(labels[m] for m in memories)], per_pair)}
"""
    section = "teachme_contrast" if data == PAIRS else f"teachme_contrast_{data.stem}"
    write_section(section, markdown, result, out)
    return result
