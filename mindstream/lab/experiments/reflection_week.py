"""Reflection on a scripted week of one person: the questions, insights and their evidence."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mindstream.lab.experiments.report import table, write_section
from mindstream.lab.paths import TEST_DATA
from mindstream.memory import InMemoryStore, ManualClock, new_memory

if TYPE_CHECKING:
    from mindstream.compose import Parts

DEFAULT_WEEK = TEST_DATA / "klaus_week.jsonl"
START = datetime(2023, 2, 8, tzinfo=UTC)


def run(
    week: Path = DEFAULT_WEEK, owner: str = "Klaus Mueller", parts: Parts | None = None
) -> dict[str, Any]:
    if parts is None:
        raise ValueError("the reflection experiment needs the configuration's parts")
    started = time.perf_counter()
    lines = [json.loads(x) for x in week.read_text().splitlines() if x.strip()]
    clock = ManualClock(START)
    stream = parts.stream(store=InMemoryStore(), clock=clock)
    stream.add_many(
        [
            new_memory(
                text=x["text"],
                owner=owner,
                created_at=START + timedelta(days=x["day"], hours=x["hour"]),
            )
            for x in lines
        ]
    )
    clock.set(START + timedelta(days=7))
    reflector = parts.reflector(stream)
    pending = reflector.importance_since_last(owner)
    result = reflector.reflect(owner)
    number = {r.id: n for n, r in enumerate(stream.records(owner), start=1)}
    rows = [
        [
            i.question,
            i.record.text,
            ", ".join(f"#{number[e.id]}" for e in i.evidence),
            "; ".join(e.text for e in i.evidence),
        ]
        for i in result.insights
    ]
    data_out = {
        "command": "mindstream eval reflection",
        "observations": len(lines),
        "importance_since_last": pending,
        "threshold": reflector.config.threshold,
        "questions": result.questions,
        "insights": [{"question": r[0], "insight": r[1], "evidence": r[2]} for r in rows],
        "dropped": result.dropped,
        "seconds": round(time.perf_counter() - started, 1),
    }
    markdown = f"""## Reflection on a scripted week ({len(lines)} observations of {owner})

Observations are rated by the model (summed importance {pending:.0f} against the trigger
threshold {reflector.config.threshold:.0f}), then the Reflector asks for focal questions and for
insights citing numbered statements. Citations are kept only when the cited memory is about
the insight (cosine ≥ {reflector.config.min_evidence_similarity}); duplicates are dropped.
Evidence numbers are the observations' order in the week. Wall time {data_out["seconds"]} s.

Questions: {"; ".join(result.questions) or "none"}

{table(["question", "insight", "evidence", "evidence text"], rows)}

Lines the model wrote that were not stored ({len(result.dropped)}): {"; ".join(result.dropped[:6])}

With a 135M model, insights mostly restate one observation rather than generalise, and the
questions copy the worked example's shape. The paper's higher-level insights need a stronger
model: `Reflector` takes any langchain chat model (`resolve_model("openai:<model>")`).
"""
    write_section("reflection", markdown, data_out)
    return data_out
