"""Start or resume a run in a folder: chroma store on disk, checkpoint, event log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agents.generative import Minds
from memory import CachedRater, MemoryStream
from memory.stores.chroma import ChromaStore
from sim.checkpoint import RunFolder
from sim.engine import Engine, SimConfig
from sim.scenario import Scenario, load_scenario


def start_run(
    scenario: Scenario, out: Path, minds: Minds, embedder: Any, config: SimConfig | None = None
) -> Engine:
    """A new run in `out` (refused if `out` already holds one)."""
    folder = RunFolder(out)
    folder.create(yaml.safe_dump(scenario.model_dump(mode="json"), sort_keys=False))
    stream = MemoryStream(
        ChromaStore.persistent(folder.memory), embedder, rater=CachedRater(minds.rate_importance)
    )
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
    stream = MemoryStream(store, embedder, rater=CachedRater(minds.rate_importance))
    engine = Engine(scenario, stream, minds, config, folder)
    engine.set_state(state)
    return engine, dropped
