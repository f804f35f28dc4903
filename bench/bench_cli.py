"""Benchmark the command line's start-up and memory ingestion.

Start-up: wall time of `mindstream --help`, `mindstream memory add "…" --importance 5` and
`mindstream memory search "…"` on a store of 1,000 memories, each run 5 times after one
warm-up (so one-time caches are excluded), median printed against the targets (1 s, 2.5 s,
3 s). Ingestion: `MemoryStream.add_many` of 10,000 conversation-like memories into a chromadb
store on disk, embedding included, importance given, in batches of 1,000; then 200 memories
with importance rated by the embedded model (reported, no target). Writes
bench/results/cli.json.

    python bench/bench_cli.py [--memories 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

OUT = Path(__file__).parent / "results" / "cli.json"
MINDSTREAM = [sys.executable, "-m", "mindstream"]
TARGETS = {"--help": 1.0, "memory add --importance 5": 2.5, "memory search": 3.0}
PEOPLE = ["Isabella", "Klaus", "Maria", "my sister", "the landlord", "Sam", "the dentist"]
PLACES = ["Hobbs Cafe", "the library", "the park", "the office", "Lisbon", "the market"]
ACTS = ["talked about rent with", "had coffee with", "argued about the plan with", "met"]


def texts(count: int, seed: int = 0) -> list[str]:
    """Conversation-turn-like sentences of varied length (no two equal)."""
    out = []
    for i in range(count + seed):
        person, place = PEOPLE[i % len(PEOPLE)], PLACES[(i // 7) % len(PLACES)]
        act = ACTS[(i // 3) % len(ACTS)]
        tail = " and we agreed to meet again next week" * (i % 3)
        out.append(f"On day {i // 40} I {act} {person} at {place}{tail} (note {i}).")
    return out[seed:]


def timed(command: list[str], env: dict[str, str], runs: int) -> list[float]:
    subprocess.run(command, env=env, check=True, capture_output=True)  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def startup(runs: int, folder: Path, env: dict[str, str]) -> dict[str, list[float]]:
    from mindstream.compose import Parts
    from mindstream.memory import new_memory

    store = folder / "startup-store"
    stream = Parts.load().stream(store)
    stream.add_many([new_memory(text=t, owner="user", importance=5.0) for t in texts(1000)])
    stream.store.close()
    commands = {
        "--help": [*MINDSTREAM, "--help"],
        "memory add --importance 5": [
            *MINDSTREAM,
            *("memory", "add", "I had green tea with Sam at the market."),
            *("--importance", "5", "--store", str(store)),
        ],
        "memory search": [*MINDSTREAM, "memory", "search", "tea with Sam", "--store", str(store)],
    }
    return {name: timed(command, env, runs) for name, command in commands.items()}


def ingestion(count: int, folder: Path) -> dict[str, Any]:
    from mindstream.compose import Parts
    from mindstream.memory import new_memory

    parts = Parts.load()
    stream = parts.stream(folder / "ingest-store")
    stream.embed(["warm up the embedder"])
    items = [new_memory(text=t, owner="user", importance=5.0) for t in texts(count, seed=5000)]
    start = time.perf_counter()
    for first in range(0, count, 1000):
        stream.add_many(items[first : first + 1000])
    given = time.perf_counter() - start
    rated = rated_ingestion(parts, folder)
    return {
        "memories": count,
        "seconds": round(given, 2),
        "per_second": round(count / given, 1),
        "threads": parts.config.model.local.threads,
        "embedder_backend": parts.config.embedder.backend,
        **rated,
    }


def rated_ingestion(parts: Any, folder: Path, count: int = 200) -> dict[str, Any]:
    """Importance rated by the embedded model (one batched scoring call per 50)."""
    from mindstream.memory import new_memory

    stream = parts.stream(folder / "rated-store")
    items = [new_memory(text=t, owner="user") for t in texts(count, seed=90_000)]
    stream.add_many(items[:5])  # loads the chat model outside the timing
    start = time.perf_counter()
    for first in range(0, count, 50):
        stream.add_many(items[first : first + 50])
    seconds = time.perf_counter() - start
    return {"rated_memories": count, "rated_per_second": round(count / seconds, 2)}


def report(result: dict[str, Any]) -> None:
    table = Table(title="CLI start-up (median of runs, seconds)")
    for column in ("command", "median s", "runs", "target s", "met"):
        table.add_column(column)
    for name, times in result["startup"].items():
        median = statistics.median(times)
        table.add_row(
            name,
            f"{median:.2f}",
            " ".join(f"{t:.2f}" for t in times),
            f"{TARGETS[name]:.1f}",
            "yes" if median <= TARGETS[name] else "NO",
        )
    console = Console()
    console.print(table)
    ingest = result["ingestion"]
    console.print(
        f"ingestion: {ingest['memories']:,} memories in {ingest['seconds']} s = "
        f"{ingest['per_second']}/s (importance given; target 400/s; "
        f"embedder {ingest['embedder_backend']}, {ingest['threads']} thread(s)); "
        f"importance rated by the embedded model: {ingest['rated_per_second']}/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        result = {
            "startup": startup(args.runs, folder, env),
            "ingestion": ingestion(args.memories, folder),
        }
    result["medians"] = {k: round(statistics.median(v), 3) for k, v in result["startup"].items()}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2))
    report(result)


if __name__ == "__main__":
    main()
