"""Benchmark change detection: ingestion memories/s with it off and on, same memories, same
run, on the embedded embedder and the shipped change judges (the assistant's policy: two pair
judges read as one, behind the change gate, in the background worker after each write
returns; one row turns the gate off, one adds the chat model's second opinion on the likely
pairs, `confirm_from: 0.9`, the policy before).

The memories are the user's turns of mindstream's labelled conversations (everyday chat, many
near neighbours that reach the judge, as in a real assistant), each conversation replayed
under several owners up to `--memories`. Two ways to write: in batches (an import) and one at
a time (a live chat). A row's time runs until every memory is stored and judged (`settle`);
"acknowledged" is the time until the last write returned. Writes bench/results/changes.json.

    MINDSTREAM_THREADS=2 python bench/bench_changes.py [--memories 5000] [--singles 1000]
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mindstream.compose import Parts
from mindstream.lab.experiments import truth_data
from mindstream.memory import InMemoryStore, ManualClock, MemoryStatus, MemoryStream, new_memory
from mindstream.memory.records import NewMemory, StreamConfig
from mindstream.memory.statements import is_question

OUT = Path(__file__).parent / "results" / "changes.json"


def memories(count: int) -> list[NewMemory]:
    """User turns of every shipped conversation, replayed under new owners until `count`."""
    conversations = [c for name in truth_data.SPLITS for c in truth_data.split(name)]
    out: list[NewMemory] = []
    round_ = 0
    while len(out) < count:
        for c in conversations:
            for turn in (t for t in c.turns if t.by_user):
                out.append(
                    new_memory(
                        text=turn.text,
                        owner=f"{c.sample_id}-{round_}",
                        kind="dialogue",
                        importance=5.0,
                        created_at=turn.at,
                        recall=not is_question(turn.text),
                    )
                )
        round_ += 1
    return out[:count]


CONFIRM_FROM = 0.9


def policy(parts: Parts, detect: bool, confirm: bool = False, gate: bool = True) -> StreamConfig:
    """The assistant's policy, detection on or off; with `confirm`, the chat model's second
    opinion on the pairs at least `CONFIRM_FROM` likely (`confirm_from`); without `gate`,
    every near neighbour goes to the judges."""
    config = parts.config.assistant.stream
    if confirm:
        return config.with_changes(enabled=detect, confirm_from=CONFIRM_FROM, gate=gate)
    return config.with_changes(enabled=detect, gate=gate)


def ingest(
    parts: Parts,
    items: list[NewMemory],
    detect: bool,
    batch: int,
    confirm: bool = False,
    gate: bool = True,
) -> dict[str, Any]:
    stream: MemoryStream = parts.stream(
        store=InMemoryStore(), clock=ManualClock(), policy=policy(parts, detect, confirm, gate)
    )
    started = time.perf_counter()
    for first in range(0, len(items), batch):
        stream.add_many(items[first : first + batch])
    acknowledged = time.perf_counter() - started
    stream.settle()
    seconds = time.perf_counter() - started
    superseded = sum(r.status is MemoryStatus.SUPERSEDED for r in stream.records())
    stream.close()
    return {
        "memories": len(items),
        "batch": batch,
        "change_detection": detect,
        "confirmed": detect and policy(parts, True, confirm).changes.confirm_from is not None,
        "gated": detect and gate,
        "seconds": round(seconds, 2),
        "acknowledged_seconds": round(acknowledged, 2),
        "memories_per_s": round(len(items) / seconds, 1),
        "superseded": superseded,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=5000, help="memories written in batches")
    parser.add_argument("--batch", type=int, default=100, help="memories per write batch")
    parser.add_argument("--singles", type=int, default=1000, help="memories written one by one")
    args = parser.parse_args()
    parts = Parts.load()
    items = memories(args.memories)
    parts.models.embedder.embed_array([items[0].text])  # load the embedder before timing
    judge = parts.judge_for(policy(parts, True, confirm=True))
    assert judge is not None
    judge.replaces_batch([(items[0].text, items[1].text)])  # and the judge
    parts.models.judge.replaces_batch([(items[0].text, items[1].text)])  # and the second one
    rows = [
        ingest(parts, items, False, args.batch),
        ingest(parts, items, True, args.batch),
        ingest(parts, items, True, args.batch, gate=False),
        ingest(parts, items, True, args.batch, confirm=True),
        ingest(parts, items[: args.singles], False, 1),
        ingest(parts, items[: args.singles], True, 1),
    ]
    result = {
        "threads": parts.config.model.local.threads,
        "judge": parts.config.assistant.stream.changes.judge,
        "rows": rows,
        "batched_ratio_on_over_off": round(
            rows[1]["memories_per_s"] / rows[0]["memories_per_s"], 3
        ),
        "batched_ratio_ungated_over_off": round(
            rows[2]["memories_per_s"] / rows[0]["memories_per_s"], 3
        ),
        "batched_ratio_confirmed_over_off": round(
            rows[3]["memories_per_s"] / rows[0]["memories_per_s"], 3
        ),
        "single_ratio_on_over_off": round(rows[5]["memories_per_s"] / rows[4]["memories_per_s"], 3),
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    show(result)
    OUT.write_text(json.dumps(result, indent=1))


def show(result: dict[str, Any]) -> None:
    table = Table(
        "memories", "per write", "change detection", "memories/s", "acknowledged in", "superseded"
    )
    shown = {
        (False, False, False): "off",
        (True, False, True): "on (the assistant's policy)",
        (True, False, False): "on, without the change gate",
        (True, True, True): "on, + the chat model's second opinion",
    }
    for row in result["rows"]:
        table.add_row(
            str(row["memories"]),
            str(row["batch"]),
            shown[(row["change_detection"], row["confirmed"], row["gated"])],
            f"{row['memories_per_s']:.1f}",
            f"{row['acknowledged_seconds']:.1f} s of {row['seconds']:.1f} s",
            str(row["superseded"]),
        )
    console = Console()
    console.print(table)
    console.print(
        f"on/off: batched {result['batched_ratio_on_over_off']}x (without the gate "
        f"{result['batched_ratio_ungated_over_off']}x, with the chat model "
        f"{result['batched_ratio_confirmed_over_off']}x), one at a time "
        f"{result['single_ratio_on_over_off']}x; peak memory {result['peak_memory_mb']} MB"
    )


if __name__ == "__main__":
    main()
