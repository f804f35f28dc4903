"""Start or resume a run in a folder: chroma store on disk, checkpoint, event log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from agents.generative import Minds, interview
from memory import CachedRater, MemoryStream
from memory.stores.chroma import ChromaStore
from sim.checkpoint import RunFolder
from sim.engine import Engine, SimConfig
from sim.metrics import measure
from sim.report import write_report
from sim.scenario import Scenario, load_scenario


def start_run(
    scenario: Scenario, out: Path, minds: Minds, embedder: Any, config: SimConfig | None = None
) -> Engine:
    """A new run in `out` (refused if `out` already holds one)."""
    folder = RunFolder(out)
    folder.create(yaml.safe_dump(scenario.model_dump(mode="json"), sort_keys=False))
    stream = _stream(ChromaStore.persistent(folder.memory), minds, embedder)
    engine = Engine(scenario, stream, minds, config, folder)
    folder.save(engine.get_state())
    return engine


def resume_run(
    out: Path, minds: Minds, embedder: Any, config: SimConfig | None = None
) -> tuple[Engine, int]:
    """The run in `out`, at its last checkpoint; also how many memories of the interrupted
    tick were rolled back."""
    folder = RunFolder(out)
    state = folder.load()
    scenario = load_scenario(folder.scenario)
    store = ChromaStore.persistent(folder.memory)
    dropped = folder.roll_back(store, state)
    engine = Engine(scenario, _stream(store, minds, embedder), minds, config, folder)
    engine.set_state(state)
    return engine, dropped


def _stream(store: ChromaStore, minds: Minds, embedder: Any) -> MemoryStream:
    """The run's memory: importance rated by the same (batched, counted) minds."""
    return MemoryStream(store, embedder, rater=CachedRater(minds.rate_importance))


def summarize(
    engine: Engine, wall_seconds: float, model: str, *, interviews: bool = True
) -> dict[str, Any]:
    """Interview every agent, measure the emergent behaviour, write summary.json and the report."""
    if engine.folder is None:
        raise ValueError("summarize needs an engine with a run folder")
    moment = engine.clock.now()
    asked = (
        [(a, q) for a in engine.agents.values() for q in engine.scenario.interview]
        if interviews
        else []
    )
    answers = interview(asked, engine.minds, moment)
    engine.stream.flush()
    events = engine.folder.events()
    ticks = engine.tick
    sim_minutes = ticks * engine.clock.tick_minutes
    summary = {
        "scenario": engine.scenario.name,
        "model": model,
        "batched": engine.minds.batched,
        "sim_start": f"{engine.scenario.start:%Y-%m-%d %H:%M}",
        "sim_end": f"{moment:%Y-%m-%d %H:%M}",
        "ticks": ticks,
        "tick_minutes": engine.clock.tick_minutes,
        "agents": list(engine.agents),
        "wall_seconds": wall_seconds,
        "sim_minutes_per_wall_second": sim_minutes / wall_seconds if wall_seconds else 0.0,
        "model_requests": sum(engine.minds.requests.values()),
        "requests": dict(engine.minds.requests),
        "ledger": engine.minds.ledger.as_dict(),
        "memories": len(engine.stream),
        "metrics": measure(engine.stream, engine.scenario, events),
        "interviews": [
            {"agent": a.name, "question": q, "answer": answer}
            for (a, q), answer in zip(asked, answers, strict=True)
        ],
    }
    (engine.folder.root / "summary.json").write_text(
        json.dumps(summary, indent=1), encoding="utf-8"
    )
    summary["report"] = str(write_report(engine.folder, summary))
    return summary
