"""Benchmark `mindstream serve`: one user with 100k memories among 10 users.

The store is filled in this process first (texts from templates, importance given, random unit
vectors for the bulk: only their cost matters here; queries and new memories are embedded by
the service for real). Then the service runs in its own process on loopback and is measured:
p50/p99 of remember (importance given) and of search for the 100k user, requests/s with 8
concurrent clients, the wall time of `mindstream memory add --server` (median of 5), and the
100k user's p99 while another user's reflection runs the embedded model, against its p99
just before (same run; target: at most 2x). Writes bench/results/service.json.

    python bench/bench_service.py [--memories 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from rich.console import Console
from rich.table import Table

from mindstream.compose import Parts
from mindstream.lm.served.server import free_port
from mindstream.memory import ChromaStore, MemoryStream, new_memory
from mindstream.service.users import JsonRegistry, Users

OUT = Path(__file__).parent / "results" / "service.json"
ADMIN = "ms_bench_admin"
TOPICS = [
    "the garden",
    "my sister",
    "the new job",
    "a trip to Kyoto",
    "the dentist",
    "rent",
    "the football match",
    "a recipe for soup",
    "the car",
    "my cat Miso",
    "the museum",
    "running club",
    "a birthday party",
    "the book club",
    "the flat in Lisbon",
]
VERBS = [
    "I talked about",
    "I worried about",
    "I planned",
    "I laughed about",
    "I remembered",
    "I wrote down",
    "I asked Leo about",
    "I read about",
    "I dreamt of",
    "I booked",
]
QUERIES = [
    "Where does my sister live?",
    "What did I plan for the trip?",
    "When is the party?",
    "What is my cat called?",
    "How much is the rent?",
    "What did the dentist say?",
]


def populate(folder: Path, big: int, others: int, each: int) -> dict[str, str]:
    """The store and the users; their keys."""
    parts = Parts.load()
    folder.mkdir(parents=True)
    users = Users(JsonRegistry(folder))
    keys = {name: users.create(name) for name in ["big", *(f"user{n}" for n in range(others))]}
    stream = MemoryStream(  # labelled with the service's embedder: not re-embedded at start
        ChromaStore.persistent(folder / "memory"),
        parts.models.embedder,
        config=parts.config.assistant.stream,
    )
    rng = np.random.default_rng(0)
    plan = [("big", big)] + [(f"user{n}", each) for n in range(others)]
    for owner, count in plan:
        for start in range(0, count, 5000):
            size = min(5000, count - start)
            texts = [
                f"{VERBS[(start + i) % 10]} {TOPICS[(start + i) * 7 % 15]} ({start + i})"
                for i in range(size)
            ]
            vectors = rng.standard_normal((size, 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            stream.add_many(
                [new_memory(text=t, owner=owner, importance=3.0, kind="fact") for t in texts],
                vectors,
            )
    stream.close()
    return keys


def start(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {
        **os.environ,
        "MINDSTREAM_ADMIN_KEY": ADMIN,
        "MINDSTREAM_SERVICE__RATE_PER_MINUTE": "1000000",
        "MINDSTREAM_SERVICE__BURST": "100000",
    }
    log = (folder.parent / "service.log").open("ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "mindstream", "serve", "--data", str(folder), "--port", str(port)],
        env=env,
        stdout=log,
        stderr=log,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.5)
    stop(process)  # never left running (and busy) after the bench gives up on it
    raise SystemExit("the service did not start")


def stop(process: subprocess.Popen[bytes], patience: float = 60.0) -> float | None:
    """Seconds from SIGTERM to exit; None when it had to be killed after `patience`."""
    began = time.perf_counter()
    process.terminate()
    try:
        process.wait(timeout=patience)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return None
    return round(time.perf_counter() - began, 2)


def timed(call: Any, n: int) -> list[float]:
    seconds = []
    for i in range(n):
        began = time.perf_counter()
        call(i)
        seconds.append(1000 * (time.perf_counter() - began))
    return seconds


def percentiles(ms: list[float]) -> dict[str, float]:
    return {
        "p50_ms": float(np.percentile(ms, 50)),
        "p99_ms": float(np.percentile(ms, 99)),
        "n": len(ms),
    }


def concurrent(url: str, key: str, clients: int = 8, each: int = 40) -> float:
    """Requests per second with `clients` clients, half remembering, half searching."""

    def work(n: int) -> None:
        with httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60
        ) as http:
            for i in range(each):
                if (n + i) % 2:
                    http.get(
                        "/v1/search", params={"q": QUERIES[i % len(QUERIES)], "k": 10}
                    ).raise_for_status()
                else:
                    http.post(
                        "/v1/memories", json={"text": f"client {n} note {i}", "importance": 4}
                    ).raise_for_status()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(clients)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return clients * each / (time.perf_counter() - began)


def cli_add(url: str, key: str, runs: int = 5) -> list[float]:
    env = {**os.environ, "MINDSTREAM_API_KEY": key}
    seconds = []
    for n in range(runs):
        began = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "mindstream",
                "memory",
                "add",
                f"cli note {n}",
                "--importance",
                "5",
                "--server",
                url,
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        seconds.append(time.perf_counter() - began)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000, help="memories of the big user")
    args = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "data"
        began = time.perf_counter()
        keys = populate(folder, args.memories, others=9, each=1000)
        filled = time.perf_counter() - began
        process, url = start(folder)
        started = time.perf_counter() - began - filled
        try:
            result = measure(url, keys["big"], filled, started, args.memories)
            result["during_reflection"] = during_reflection(url, keys["big"], keys["user0"])
        finally:
            stopped = stop(process)
        result["stop_seconds"] = stopped
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1))
    show(console, result)


def measure(url: str, key: str, filled: float, started: float, memories: int) -> dict[str, Any]:
    http = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60)

    def search(i: int) -> None:
        http.get("/v1/search", params={"q": QUERIES[i % len(QUERIES)], "k": 10}).raise_for_status()

    def remember(i: int) -> None:
        body = {"text": f"bench note {i}", "importance": 4}
        http.post("/v1/memories", json=body).raise_for_status()

    def remember_then_search(i: int) -> None:
        remember(i + 1000)
        search(i)

    timed(search, 5)  # warm up
    return {
        "memories_big_user": memories,
        "users": 10,
        "fill_seconds": round(filled, 1),
        "start_seconds": round(started, 1),
        "remember": percentiles(timed(remember, 300)),
        "search": percentiles(timed(search, 300)),
        "interleaved_search_after_remember": percentiles(timed(remember_then_search, 100)),
        "requests_per_s_8_clients": concurrent(url, key),
        "cli_memory_add_server_s": statistics.median(cli_add(url, key)),
    }


def during_reflection(url: str, key: str, reflecting: str, n: int = 100) -> dict[str, Any]:
    """The user's search and remember p50/p99 without, then while another user's reflections
    run back to back (each one runs the model for seconds)."""
    http = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=600)

    def both(i: int) -> None:
        http.get("/v1/search", params={"q": QUERIES[i % len(QUERIES)], "k": 10}).raise_for_status()
        body = {"text": f"note during reflection {i}", "importance": 4}
        http.post("/v1/memories", json=body).raise_for_status()

    without = percentiles(timed(both, n))
    stop, ran = threading.Event(), []

    def reflect() -> None:
        with httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {reflecting}"}, timeout=600
        ) as other:
            while not stop.is_set():
                began = time.perf_counter()
                other.post("/v1/reflections", params={"force": "true"}).raise_for_status()
                ran.append(time.perf_counter() - began)

    worker = threading.Thread(target=reflect)
    worker.start()
    time.sleep(2)  # the first reflection is under way
    during = percentiles(timed(lambda i: both(i + n), n))
    stop.set()
    worker.join()
    return {
        "search_and_remember_without": without,
        "search_and_remember_during": during,
        "p99_ratio": during["p99_ms"] / without["p99_ms"],
        "reflections": len(ran),
        "reflection_median_s": statistics.median(ran) if ran else None,
    }


def show(console: Console, r: dict[str, Any]) -> None:
    table = Table(
        "measure",
        "figure",
        "target",
        title=f"service, {r['memories_big_user']} memories for one of {r['users']} users",
    )
    table.add_row(
        "remember p50 / p99",
        f"{r['remember']['p50_ms']:.1f} / {r['remember']['p99_ms']:.1f} ms",
        "p50 <= 30 ms (50 with change detection)",
    )
    table.add_row(
        "search p50 / p99",
        f"{r['search']['p50_ms']:.1f} / {r['search']['p99_ms']:.1f} ms",
        "p50 <= 50, p99 <= 200 ms",
    )
    inter = r["interleaved_search_after_remember"]
    table.add_row(
        "remember then search, p50 / p99", f"{inter['p50_ms']:.1f} / {inter['p99_ms']:.1f} ms", ""
    )
    table.add_row("requests/s, 8 clients", f"{r['requests_per_s_8_clients']:.1f}", "")
    table.add_row(
        "mindstream memory add --server",
        f"{r['cli_memory_add_server_s']:.2f} s (median of 5)",
        "<= 1 s",
    )
    table.add_row(
        "fill store / start service", f"{r['fill_seconds']} s / {r['start_seconds']} s", ""
    )
    table.add_row(
        "stop (SIGTERM to exit)",
        "killed after 60 s" if r.get("stop_seconds") is None else f"{r['stop_seconds']} s",
        "",
    )
    during = r.get("during_reflection")
    if during:
        before, after = during["search_and_remember_without"], during["search_and_remember_during"]
        table.add_row(
            "search + remember p99: without / during another's reflection",
            f"{before['p99_ms']:.1f} / {after['p99_ms']:.1f} ms ({during['p99_ratio']:.2f}x; "
            f"{during['reflections']} reflections)",
            "<= 2x",
        )
    console.print(table)
    console.print(f"written {OUT}")


if __name__ == "__main__":
    main()
