"""Benchmark what a service process holds: every user's memories loaded at start (one process,
no budget) against a replica that loads only its users on their first request, and a process
with a memory budget; plus the cold load of one user with 10k memories.

One chroma folder on disk holds `--users` users of `--memories` memories each and one user of
`--big` memories (random unit vectors, so no embedding is timed). Each configuration runs in
its own child process, which reports the memories it holds, its peak RSS and how long it took
to serve one search for each user it serves; ratios are against loading everything, in the
same run. Writes bench/results/resident.json.

    MINDSTREAM_THREADS=1 python bench/bench_resident.py [--users 100] [--memories 1000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import track
from rich.table import Table

OUT = Path(__file__).parent / "results" / "resident.json"
BIG = "big-user"


def users(count: int) -> list[str]:
    return [f"user-{n:03d}" for n in range(count)]


def fill(folder: Path, count: int, memories: int, big: int) -> None:
    """The store: `count` users of `memories` memories and one of `big`, in batches."""
    from mindstream.memory import ChromaStore, MemoryKind, MemoryRecord

    store = ChromaStore.persistent(folder)
    rng = np.random.default_rng(0)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    plan = [(name, memories) for name in users(count)] + [(BIG, big)]
    for owner, size in track(plan, description="filling the store"):
        for first in range(0, size, 5000):
            n = min(5000, size - first)
            vectors = rng.standard_normal((n, 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            records = [
                MemoryRecord(
                    id=f"{owner}-{first + i}",
                    owner=owner,
                    kind=MemoryKind.FACT,
                    text=f"{owner} remembers thing number {first + i}",
                    created_at=start + timedelta(minutes=first + i),
                    last_accessed_at=start + timedelta(minutes=first + i),
                    importance=5.0,
                )
                for i in range(n)
            ]
            store.put(records, vectors)
    store.close()


def child(folder: Path, mode: str, served: list[str], budget: int | None) -> dict[str, Any]:
    """One process: open the store as `mode` says, serve one search per user in `served`."""
    from mindstream.compose import Parts
    from mindstream.memory import ChromaStore, MemoryStream
    from mindstream.memory.residency import Residency

    parts = Parts.load()
    embedder = parts.models.embedder
    embedder.embed_array(["warm up"])
    started = time.perf_counter()
    residency = None if mode == "all" else Residency(budget)
    stream = MemoryStream(
        ChromaStore.persistent(folder),
        embedder,
        config=parts.config.assistant.stream,
        residency=residency,
    )
    opened = time.perf_counter() - started
    firsts = []
    for name in served:
        began = time.perf_counter()
        stream.retrieve("what do I remember", 5, owner=name, touch=False)
        firsts.append(time.perf_counter() - began)
    again = time.perf_counter()
    stream.retrieve("what do I remember", 5, owner=served[-1], touch=False)
    warm = time.perf_counter() - again
    held = len(stream)
    stream.close()
    return {
        "mode": mode,
        "served_users": len(served),
        "budget": budget,
        "held_memories": held,
        "open_s": round(opened, 3),
        "first_search_p50_ms": round(1000 * float(np.median(firsts)), 1),
        "first_search_max_ms": round(1000 * max(firsts), 1),
        "warm_search_ms": round(1000 * warm, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def run_child(folder: Path, mode: str, served: list[str], budget: int | None) -> dict[str, Any]:
    spec = json.dumps({"folder": str(folder), "mode": mode, "served": served, "budget": budget})
    done = subprocess.run(
        [sys.executable, __file__, "--child", spec], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100, help="users of --memories each")
    parser.add_argument("--memories", type=int, default=1000, help="memories per user")
    parser.add_argument("--big", type=int, default=10000, help="memories of the one big user")
    parser.add_argument("--budget", type=int, default=5000, help="resident memories at most")
    parser.add_argument("--folder", type=Path, default=Path("runs/bench-resident"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        spec = json.loads(args.child)
        print(json.dumps(child(Path(spec["folder"]), spec["mode"], spec["served"], spec["budget"])))
        return
    if not args.folder.exists():
        fill(args.folder, args.users, args.memories, args.big)
    everyone = users(args.users)
    from mindstream.service.shards import owner_of_name

    rows = [run_child(args.folder, "all", everyone, None)]  # today's single process
    for budget in (None, args.budget):
        for replicas in (1, 2, 4):
            if replicas == 1 and budget is None:
                continue  # that is "all": one process without a budget loads at start
            mine = [n for n in everyone if owner_of_name(n, replicas) == 0]
            name = "one process" if replicas == 1 else f"replica 0 of {replicas}"
            rows.append(run_child(args.folder, name, mine, budget))
    rows.append(run_child(args.folder, "cold big user", [BIG], None))
    base = rows[0]
    for row in rows:
        row["held_ratio"] = round(row["held_memories"] / base["held_memories"], 3)
        row["rss_ratio"] = round(row["peak_rss_mb"] / base["peak_rss_mb"], 3)
    result = {"users": args.users, "memories": args.memories, "big": args.big, "rows": rows}
    OUT.write_text(json.dumps(result, indent=1))
    show(result)


def show(result: dict[str, Any]) -> None:
    table = Table(title=f"{result['users']} users x {result['memories']} + one of {result['big']}")
    for column in (
        "process",
        "users served",
        "memories held",
        "held / all",
        "peak RSS MB",
        "RSS / all",
        "open s",
        "first search p50 / max ms",
        "warm search ms",
    ):
        table.add_column(column)
    for r in result["rows"]:
        name = r["mode"] + (f" ({r['budget']})" if r["budget"] else "")
        table.add_row(
            name,
            str(r["served_users"]),
            str(r["held_memories"]),
            f"{r['held_ratio']}x",
            str(r["peak_rss_mb"]),
            f"{r['rss_ratio']}x",
            str(r["open_s"]),
            f"{r['first_search_p50_ms']} / {r['first_search_max_ms']}",
            str(r["warm_search_ms"]),
        )
    Console(width=150).print(table)


if __name__ == "__main__":
    main()
