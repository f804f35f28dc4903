"""Benchmark `mindstream serve --replicas`: 1 vs 3 service processes behind HAProxy.

Each configuration starts the whole set on loopback (a chroma server, the replicas, HAProxy;
`mindstream.service.replicas.ReplicaSet`), creates 16 users and one more whose reflections
run back to back on the embedded model throughout, then 16 clients (one per user) each
remember and search `--rounds` times. Reports p50/p99 of remember and search and requests/s
per configuration, and the ratio 3 vs 1, measured in the same run. Writes
bench/results/replicas.json.

    python bench/bench_replicas.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from rich.console import Console
from rich.table import Table

from mindstream.lm.served.server import free_port
from mindstream.service.replicas import ReplicaSet

OUT = Path(__file__).parent / "results" / "replicas.json"
CLIENTS = 16
QUERIES = ["Where does my sister live?", "What did I plan?", "What is my cat called?"]


def client(url: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=600)


def user_load(url: str, key: str, n: int, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"remember": [], "search": []}
    with client(url, key) as http:
        for i in range(rounds):
            began = time.perf_counter()
            body = {"text": f"client {n} note {i} about the garden", "importance": 4}
            http.post("/v1/memories", json=body).raise_for_status()
            times["remember"].append(1000 * (time.perf_counter() - began))
            began = time.perf_counter()
            http.get("/v1/search", params={"q": QUERIES[i % 3], "k": 10}).raise_for_status()
            times["search"].append(1000 * (time.perf_counter() - began))
    return times


def reflect_forever(url: str, key: str, stop: threading.Event, done: list[float]) -> None:
    with client(url, key) as http:
        for n in range(20):
            http.post(
                "/v1/memories", json={"text": f"I worried about rent ({n})", "importance": 10}
            )
        while not stop.is_set():
            began = time.perf_counter()
            http.post("/v1/reflections").raise_for_status()
            done.append(time.perf_counter() - began)


def measure(replicas: int, rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        group = ReplicaSet(Path(scratch) / "data", free_port(), replicas)
        group.start()
        url = f"http://127.0.0.1:{group.port}"
        try:
            with client(url, group.key) as admin:
                names = [f"client{n}" for n in range(CLIENTS)] + ["thinker"]
                keys = [admin.post("/admin/users", json={"name": u}).json()["key"] for u in names]
            stop, reflections = threading.Event(), list[float]()
            thinker = threading.Thread(
                target=reflect_forever, args=(url, keys[-1], stop, reflections)
            )
            thinker.start()
            time.sleep(5)
            began = time.perf_counter()
            with ThreadPoolExecutor(CLIENTS) as pool:
                results = list(
                    pool.map(lambda n: user_load(url, keys[n], n, rounds), range(CLIENTS))
                )
            wall = time.perf_counter() - began
            stop.set()
            thinker.join()
        finally:
            group.stop()
    out: dict[str, Any] = {"replicas": replicas, "requests_per_s": 2 * CLIENTS * rounds / wall}
    for op in ("remember", "search"):
        ms = [t for r in results for t in r[op]]
        out[op] = {"p50_ms": float(np.percentile(ms, 50)), "p99_ms": float(np.percentile(ms, 99))}
    out["reflections_during"] = len(reflections)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="remember+search per client")
    args = parser.parse_args()
    runs = [measure(n, args.rounds) for n in (1, 3)]
    result = {"clients": CLIENTS, "rounds": args.rounds, "runs": runs}
    result["ratio_3_vs_1_requests_per_s"] = runs[1]["requests_per_s"] / runs[0]["requests_per_s"]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1))
    table = Table("replicas", "remember p50 / p99", "search p50 / p99", "requests/s", "reflections")
    for r in runs:
        table.add_row(
            str(r["replicas"]),
            f"{r['remember']['p50_ms']:.0f} / {r['remember']['p99_ms']:.0f} ms",
            f"{r['search']['p50_ms']:.0f} / {r['search']['p99_ms']:.0f} ms",
            f"{r['requests_per_s']:.1f}",
            str(r["reflections_during"]),
        )
    console = Console()
    console.print(table)
    console.print(f"3 vs 1 replicas: {result['ratio_3_vs_1_requests_per_s']:.2f}x requests/s")
    console.print(f"written {OUT}")


if __name__ == "__main__":
    main()
