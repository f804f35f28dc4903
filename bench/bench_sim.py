"""Benchmark the sandbox: 5 smallville agents on the embedded model, batched vs unbatched.

Both runs simulate the same sim-time in this process (the unbatched one is the baseline: the
same prompts, sent one at a time), so the ratio is robust to a noisy shared machine. Prints
sim-minutes per wall-second, model requests per agent per sim-hour and tokens per component;
writes bench/results/sim.json.

    python bench/bench_sim.py [--hours 1.0]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mindstream.compose import Parts
from mindstream.sim import load_scenario
from mindstream.sim.runner import start_run

OUT = Path(__file__).parent / "results" / "sim.json"


def measure(
    batched: bool,
    hours: float,
    flags: dict[str, Any] | None = None,
    scenario_name: str = "smallville",
) -> dict[str, Any]:
    """One run from the configuration (file, environment, `flags`), with a fresh ledger;
    `framework_share` is the share of the wall time with no model call under way."""
    scenario = load_scenario(scenario_name)
    parts = Parts.load(flags=flags)
    with tempfile.TemporaryDirectory() as folder:
        run_parts = parts.run_parts(batched=batched)
        minds = run_parts.minds
        engine = start_run(scenario, Path(folder) / "run", run_parts)
        ticks = round(hours * 60 / engine.clock.tick_minutes)
        start = time.perf_counter()
        engine.run(ticks)
        seconds = time.perf_counter() - start
        engine.stream.close()
        share = 1 - engine.model_seconds / engine.wall_seconds
    agents = len(scenario.agents)
    requests = sum(minds.requests.values())
    return {
        "batched": batched,
        "ticks": ticks,
        "wall_seconds": round(seconds, 1),
        "sim_minutes_per_wall_second": round(ticks * engine.clock.tick_minutes / seconds, 3),
        "framework_share": round(share, 4),
        "requests": requests,
        "requests_per_agent_per_sim_hour": round(requests / agents / hours, 1),
        "per_component": {
            name: {**usage, "requests": minds.requests.get(name, 0)}
            for name, usage in minds.ledger.as_dict().items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=1.0, help="sim-hours per run")
    args = parser.parse_args()
    warm = Parts.load()
    _ = warm.models.chat.backend  # type: ignore[attr-defined]  # load once, outside the timed runs
    _ = warm.models.embedder.embed_array(["warm up"])
    unbatched = measure(False, args.hours)
    batched = measure(True, args.hours)
    speedup = batched["sim_minutes_per_wall_second"] / unbatched["sim_minutes_per_wall_second"]
    result = {
        "hours": args.hours,
        "agents": 5,
        "unbatched": unbatched,
        "batched": batched,
        "speedup": round(speedup, 2),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1))
    console = Console()
    table = Table("run", "wall s", "sim-min / wall-s", "requests / agent / sim-hour")
    for run in (unbatched, batched):
        table.add_row(
            "batched" if run["batched"] else "unbatched (baseline)",
            str(run["wall_seconds"]),
            str(run["sim_minutes_per_wall_second"]),
            str(run["requests_per_agent_per_sim_hour"]),
        )
    console.print(table)
    tokens = Table(
        "component", "requests", "prompt tokens", "completion tokens", "seconds (batched)"
    )
    for name, usage in sorted(batched["per_component"].items()):
        tokens.add_row(
            name,
            str(usage["requests"]),
            str(int(usage["prompt_tokens"])),
            str(int(usage["completion_tokens"])),
            f"{usage['seconds']:.1f}",
        )
    console.print(tokens)
    console.print(f"batching speed-up: {speedup:.2f}x (target >= 2x); written {OUT}")


if __name__ == "__main__":
    main()
