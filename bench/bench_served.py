"""Benchmark served models: 5 smallville agents for one sim-hour, three ways in one run.

1. local batched: the embedded model in this process, each step one batch (the baseline of
   what the machine does without a server);
2. served, one request at a time: the same model behind `transformers serve` on loopback
   (continuous batching on), every prompt sent alone;
3. served, concurrent: a tick's requests for all agents in flight together (up to
   `--max-concurrency`), so the server's continuous batching can batch them.

Prints sim-minutes per wall-second and model requests per second for each, and the ratio of
served concurrent to served sequential (target >= 2x); writes bench/results/served.json.

    python bench/bench_served.py [--hours 1.0] [--max-concurrency 8]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from bench_sim import measure

from lm.config import LocalModelConfig, default_threads
from lm.loading import cached_smollm2_dir
from lm.server import ModelServer
from mindstream.compose import Parts

OUT = Path(__file__).parent / "results" / "served.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=1.0, help="sim-hours per run")
    parser.add_argument("--max-concurrency", type=int, default=8, help="requests in flight")
    args = parser.parse_args()
    warm = Parts.load()
    _ = warm.model.backend  # type: ignore[attr-defined]  # load once, outside the timed runs
    _ = warm.embedder.embed_array(["warm up"])
    runs = {"local batched": measure(True, args.hours)}
    folder = cached_smollm2_dir(LocalModelConfig().cache_dir)
    log = OUT.parent / "served-server.log"
    with ModelServer(folder, threads=default_threads(), log=log) as server:
        _warm_up(server)
        flags = {
            "model.spec": server.spec,
            "model.served.base_url": server.base_url,
            "model.served.max_concurrency": args.max_concurrency,
        }
        runs["served, one request at a time"] = measure(False, args.hours, flags)
        runs["served, concurrent"] = measure(True, args.hours, flags)
    ratio = _speed(runs["served, concurrent"]) / _speed(runs["served, one request at a time"])
    result = {"hours": args.hours, "agents": 5, "runs": runs, "concurrent_over_sequential": ratio}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1))
    _print(runs, ratio)


def _warm_up(server: ModelServer) -> None:
    """The first chat request sets up continuous batching; keep it out of the timed runs."""
    body = {"model": server.model, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}
    httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=120).raise_for_status()


def _speed(run: dict[str, Any]) -> float:
    return float(run["sim_minutes_per_wall_second"])


def _print(runs: dict[str, dict[str, Any]], ratio: float) -> None:
    console = Console()
    table = Table("run", "wall s", "sim-min / wall-s", "model requests", "requests / s")
    for name, run in runs.items():
        table.add_row(
            name,
            str(run["wall_seconds"]),
            str(run["sim_minutes_per_wall_second"]),
            str(run["requests"]),
            f"{run['requests'] / run['wall_seconds']:.2f}",
        )
    console.print(table)
    console.print(
        f"served concurrent / served one at a time: {ratio:.2f}x (target >= 2x); written {OUT}"
    )


if __name__ == "__main__":
    main()
