"""Benchmark served models: a town for one sim-hour, four ways in one run, at 5 and 25 agents.

1. local batched: the embedded model in this process, each step one batch (the baseline of
   what the machine does without a server);
2. served, one request at a time (5 agents only): the same model behind `transformers serve`
   on loopback (continuous batching on), every prompt sent alone;
3. served, concurrent: every agent's requests in flight together (up to `--max-concurrency`),
   so the server's continuous batching can batch them;
4. vLLM, concurrent: the same weights on vLLM's CPU engine (`make engine`; `--vllm-dtype`,
   bfloat16 by default, on every core), its decisions through the likelihood scorer,
   `--vllm-concurrency` requests in flight.

Prints wall time, sim-minutes per wall-second, model requests, the framework's share of the
wall time (no model call under way), and the peak RSS of this process and of the server's
processes for each; the ratio of served concurrent to served sequential (target >= 2x) and of
vLLM to local batched (targets: >= 3x at 5 agents, >= 5x at 25); writes
bench/results/served.json.

    python bench/bench_served.py [--hours 1.0] [--scenarios smallville smallville25]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import psutil
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from bench_sim import measure

from mindstream.compose import Parts
from mindstream.lm.backends.loading import cached_smollm2_dir
from mindstream.lm.config import LocalModelConfig, default_threads
from mindstream.lm.served.server import ModelServer, VllmServer, engine_python

OUT = Path(__file__).parent / "results" / "served.json"


TARGETS = {"smallville": 3.0, "smallville25": 5.0}  # vLLM over local batched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=1.0, help="sim-hours per run")
    parser.add_argument(
        "--scenarios", nargs="+", default=list(TARGETS), help="built-in scenarios to run"
    )
    parser.add_argument("--max-concurrency", type=int, default=8, help="requests in flight")
    parser.add_argument("--vllm-concurrency", type=int, default=32, help="... to vLLM")
    parser.add_argument(
        "--vllm-dtype",
        default="bfloat16",
        choices=["bfloat16", "float32"],
        help="vLLM's precision: bfloat16 is faster here (AMX), float32 answers as in-process",
    )
    args = parser.parse_args()
    warm = Parts.load()
    _ = warm.models.chat.backend  # type: ignore[attr-defined]  # load once, outside the timed runs
    _ = warm.models.embedder.embed_array(["warm up"])
    runs: dict[str, dict[str, Any]] = {name: {} for name in args.scenarios}
    for name in args.scenarios:
        runs[name]["local batched"] = _watched(None, partial(measure, True, args.hours, None, name))
    folder = cached_smollm2_dir(LocalModelConfig().cache_dir)
    log = OUT.parent / "served-server.log"
    with ModelServer(folder, threads=default_threads(), log=log) as server:
        _warm_up(server)
        _served(runs, server, args.max_concurrency, args.hours, "served")
    if engine_python().is_file():
        # vLLM gets every core, as a user runs it (its default CPU binding).
        engine = VllmServer(folder, dtype=args.vllm_dtype, log=OUT.parent / "vllm.log")
        with engine as vllm:
            _served(runs, vllm, args.vllm_concurrency, args.hours, "vLLM")
    result = {"hours": args.hours, "scenarios": {n: _ratios(r) for n, r in runs.items()}}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1))
    for name, scenario in result["scenarios"].items():
        _print(name, scenario)
    Console().print(f"written {OUT}")


def _served(
    runs: dict[str, dict[str, Any]], server: ModelServer, concurrency: int, hours: float, label: str
) -> None:
    """Each scenario against `server`, concurrent; transformers serve also one request at a
    time on 5 agents (the sequential baseline)."""
    flags = _flags(server, concurrency)
    for name, scenario_runs in runs.items():
        if label == "served" and name == "smallville":
            scenario_runs["served, one request at a time"] = _watched(
                server, partial(measure, False, hours, flags, name)
            )
        scenario_runs[f"{label}, concurrent"] = _watched(
            server, partial(measure, True, hours, flags, name)
        )


def _ratios(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {"runs": runs}
    if "served, one request at a time" in runs:
        sequential = _speed(runs["served, one request at a time"])
        result["concurrent_over_sequential"] = _speed(runs["served, concurrent"]) / sequential
    if "vLLM, concurrent" in runs:
        result["vllm_over_local"] = _speed(runs["vLLM, concurrent"]) / _speed(runs["local batched"])
    return result


def _flags(server: ModelServer, concurrency: int) -> dict[str, Any]:
    return {
        "model.spec": server.spec,
        "model.served.base_url": server.base_url,
        "model.served.max_concurrency": concurrency,
    }


def _watched(server: ModelServer | None, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The run, with the peak RSS (MB) of this process and of the server's process tree,
    sampled every 0.2 s."""
    here = psutil.Process()
    there = psutil.Process(server.process.pid) if server and server.process else None
    peaks = {"bench_mb": 0.0, "server_mb": 0.0}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peaks["bench_mb"] = max(peaks["bench_mb"], here.memory_info().rss / 2**20)
            if there is not None:
                tree = [there, *there.children(recursive=True)]
                rss = sum(p.memory_info().rss for p in tree if p.is_running())
                peaks["server_mb"] = max(peaks["server_mb"], rss / 2**20)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    try:
        result = run()
    finally:
        done.set()
        watcher.join()
    return {**result, **{k: round(v) for k, v in peaks.items()}}


def _warm_up(server: ModelServer) -> None:
    """The first chat request sets up continuous batching; keep it out of the timed runs."""
    body = {"model": server.model, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}
    httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=120).raise_for_status()


def _speed(run: dict[str, Any]) -> float:
    return float(run["sim_minutes_per_wall_second"])


def _print(name: str, result: dict[str, Any]) -> None:
    console = Console()
    table = Table(
        "run",
        "wall s",
        "sim-min / wall-s",
        "model requests",
        "requests / s",
        "framework share",
        "peak RSS MB",
        title=name,
    )
    for run_name, run in result["runs"].items():
        table.add_row(
            run_name,
            str(run["wall_seconds"]),
            str(run["sim_minutes_per_wall_second"]),
            str(run["requests"]),
            f"{run['requests'] / run['wall_seconds']:.2f}",
            f"{run['framework_share']:.1%}",
            f"{run['bench_mb']} here + {run['server_mb']} server",
        )
    console.print(table)
    if "concurrent_over_sequential" in result:
        ratio = result["concurrent_over_sequential"]
        console.print(f"served concurrent / served one at a time: {ratio:.2f}x (target >= 2x)")
    if "vllm_over_local" in result:
        target = TARGETS.get(name)
        goal = f" (target >= {target:g}x)" if target else ""
        console.print(f"vLLM / local batched: {result['vllm_over_local']:.2f}x{goal}")
    else:
        console.print("vLLM not run: the engine is not installed (make engine)")


if __name__ == "__main__":
    main()
