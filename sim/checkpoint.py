"""A run folder: the memory store, a checkpoint after every tick and the JSONL event log.

A tick's memories carry its number; the checkpoint is written (atomically) only after the
tick's memories and log lines are. Resuming deletes memories and log lines of the tick that
was interrupted and restores the checkpoint, so a killed run continues with nothing lost and
nothing doubled.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from mindstream.agents.generative import AgentState
from mindstream.memory import MemoryStore
from mindstream.sim.errors import CheckpointError
from mindstream.sim.events import Event, read_events
from mindstream.sim.scenario import EventSpec

# Raised when the checkpoint's shape changes; a folder written by a newer mindstream is refused.
CHECKPOINT_VERSION = 1


class Checkpoint(BaseModel):
    """A run's state after a tick (checkpoint.json). Folders from before the version field
    read as version 1."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = CHECKPOINT_VERSION
    tick: int
    now: datetime
    world: dict[str, str]  # object path -> state
    agents: dict[str, AgentState]
    pending: list[EventSpec]  # events and whispers not yet due
    rng: tuple[int, tuple[int, ...], float | None]  # random.Random.getstate()
    log_size: int  # bytes of events.jsonl written with this tick
    requests: dict[str, int]  # model requests per component
    ledger: dict[str, dict[str, float]]  # usage per component
    wall_seconds: float = 0.0
    model_seconds: float = 0.0
    fruitless: dict[str, str] = {}  # agent -> its newest memory at a reflection that stored nothing


class RunFolder:
    """Paths and durable writes of one simulation run."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.checkpoint = self.root / "checkpoint.json"
        self.log = self.root / "events.jsonl"
        self.memory = self.root / "memory"
        self.scenario = self.root / "scenario.yaml"

    def store(self) -> MemoryStore:
        """The run's memories: a chroma folder inside the run folder whatever the configured
        store is, so a run folder is whole on its own (copied, resumed, served)."""
        from mindstream.memory import ChromaStore

        return ChromaStore.persistent(self.memory)

    def create(self, scenario_text: str) -> None:
        if self.checkpoint.exists():
            raise CheckpointError(
                f"{self.root}: holds a run already; pass --resume to continue it or choose "
                "another --out"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        self.scenario.write_text(scenario_text, encoding="utf-8")
        self.log.write_text("", encoding="utf-8")

    def append(self, events: Iterable[Event]) -> int:
        """Append events durably; the log's size afterwards (kept in the checkpoint)."""
        with self.log.open("a", encoding="utf-8") as handle:
            for event in events:
                handle.write(event.as_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        return self.log.stat().st_size

    def save(self, state: Checkpoint) -> None:
        temporary = self.checkpoint.with_suffix(".tmp")
        temporary.write_text(state.model_dump_json(), encoding="utf-8")
        os.replace(temporary, self.checkpoint)

    def load(self) -> Checkpoint:
        if not self.checkpoint.is_file():
            raise CheckpointError(f"{self.root}: no checkpoint.json; is this a run folder?")
        try:
            raw = json.loads(self.checkpoint.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise CheckpointError(f"{self.checkpoint}: unreadable ({error.msg})") from None
        version = raw.get("version", 1) if isinstance(raw, dict) else 1
        if isinstance(version, int) and version > CHECKPOINT_VERSION:
            raise CheckpointError(
                f"{self.checkpoint}: written by a newer mindstream (checkpoint version "
                f"{version}; this one reads {CHECKPOINT_VERSION}): upgrade to resume it"
            )
        try:
            return Checkpoint.model_validate(raw)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "checkpoint"
            raise CheckpointError(f"{self.checkpoint}: {where}: {first['msg']}") from None

    def events(self) -> list[Event]:
        return read_events(self.log)

    def roll_back(self, store: MemoryStore, state: Checkpoint) -> int:
        """Drop what an interrupted tick wrote after the checkpoint; how many memories."""
        with self.log.open("r+b") as handle:
            handle.truncate(state.log_size)
        done = state.tick
        late = [
            record.id
            for records, _ in store.load()
            for record in records
            if int(record.metadata.get("tick", 0)) > done
        ]
        store.delete(late)
        return len(late)
