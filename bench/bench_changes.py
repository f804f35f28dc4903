"""Benchmark write-time change detection: ingestion memories/s with it off and on, same data,
same run, on the embedded model and the committed judge adapter.

The memories are one user's personal statements built from the judge's slot catalogue (states,
changes, compatible news) and everyday remarks, so many have similar neighbours and reach the
judge, as in a real assistant. Two ways to write: in batches (an import, one judge batch per
batch) and one at a time (a live chat). Writes bench/results/changes.json.

    MINDSTREAM_THREADS=2 python bench/bench_changes.py [--memories 10000] [--singles 200]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mindstream.compose import Parts
from mindstream.lab.experiments.changed_facts_data import load_templates
from mindstream.lab.training.judge_data import load_catalogue
from mindstream.memory import InMemoryStore, ManualClock, MemoryStatus, MemoryStream, new_memory
from mindstream.memory.records import ChangePolicy, NewMemory

OUT = Path(__file__).parent / "results" / "changes.json"
START = datetime(2026, 1, 1, tzinfo=UTC)


def statements(count: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    catalogue = load_catalogue()
    remarks = load_templates().distractors
    slots = list(catalogue.slots.values())
    out = []
    while len(out) < count:
        if rng.random() < 0.3:
            out.append(rng.choice(remarks))
            continue
        slot = rng.choice(slots)
        old, new = rng.sample(slot.values, 2)
        forms = slot.state + slot.change + slot.keep
        out.append(rng.choice(forms).format(v=new, old=old, new=new))
    return out


def memories(texts: list[str]) -> list[NewMemory]:
    return [
        new_memory(
            text=t, owner="u", kind="fact", importance=5.0, created_at=START + timedelta(hours=n)
        )
        for n, t in enumerate(texts)
    ]


def ingest(parts: Parts, items: list[NewMemory], detect: bool, batch: int) -> dict[str, Any]:
    policy = parts.config.assistant.stream
    policy = policy.model_copy(
        update={"changes": ChangePolicy(enabled=detect, **_kept(policy.changes))}
    )
    stream = MemoryStream(
        InMemoryStore(),
        parts.embedder,
        clock=ManualClock(START),
        config=policy,
        judge=parts.judge if detect else None,
    )
    started = time.perf_counter()
    for first in range(0, len(items), batch):
        stream.add_many(items[first : first + batch])
    seconds = time.perf_counter() - started
    superseded = sum(r.status is MemoryStatus.SUPERSEDED for r in stream.records("u"))
    return {
        "memories": len(items),
        "batch": batch,
        "change_detection": detect,
        "seconds": round(seconds, 2),
        "memories_per_s": round(len(items) / seconds, 1),
        "superseded": superseded,
    }


def _kept(changes: ChangePolicy) -> dict[str, Any]:
    return changes.model_dump(exclude={"enabled"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000, help="memories written in batches")
    parser.add_argument("--batch", type=int, default=100, help="memories per write batch")
    parser.add_argument("--singles", type=int, default=200, help="memories written one by one")
    args = parser.parse_args()
    parts = Parts.load()
    texts = statements(args.memories)
    items = memories(texts)
    parts.embedder.embed_array(texts[:8])  # load the embedder before timing
    parts.judge.replaces_batch([(texts[0], texts[1])])  # and the judge
    rows = [
        ingest(parts, items, False, args.batch),
        ingest(parts, items, True, args.batch),
        ingest(parts, items[: args.singles], False, 1),
        ingest(parts, items[: args.singles], True, 1),
    ]
    result = {
        "threads": parts.config.model.local.threads,
        "rows": rows,
        "batched_ratio_on_over_off": round(
            rows[1]["memories_per_s"] / rows[0]["memories_per_s"], 3
        ),
        "single_ratio_on_over_off": round(rows[3]["memories_per_s"] / rows[2]["memories_per_s"], 3),
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    table = Table("memories", "per write", "change detection", "memories/s", "superseded")
    for row in rows:
        table.add_row(
            str(row["memories"]),
            str(row["batch"]),
            "on" if row["change_detection"] else "off",
            f"{row['memories_per_s']:.1f}",
            str(row["superseded"]),
        )
    console = Console()
    console.print(table)
    console.print(
        f"on/off: batched {result['batched_ratio_on_over_off']}x, one at a time "
        f"{result['single_ratio_on_over_off']}x; peak memory {result['peak_memory_mb']} MB"
    )
    OUT.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
