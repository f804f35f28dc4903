"""Run folders as the town pages see them: the world, the typed events, and an agent's mind
(plan, memories, reflections with their evidence, scored recall).

A finished run's memories are read into this process on first use and its store is closed at
once: the pages never hold the run's lock, so `sim interview` and `sim run --resume` work
beside them. The snapshot is read again when the store on disk changes. A run that is still
going in this process (`sim run --serve`) is read through the engine's own stream instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from pydantic import BaseModel

from mindstream.memory import MemoryKind, MemoryRecord, StoreBusyError
from mindstream.service.schemas import FoundOut, MemoryOut
from mindstream.sim.checkpoint import Checkpoint, RunFolder
from mindstream.sim.events import Event, RunSummary, read_events, read_summary

if TYPE_CHECKING:
    from mindstream.agents.generative import PlanStep
    from mindstream.compose import Parts
    from mindstream.memory import MemoryStream

Stamp = tuple[int, ...]
_NAME = re.compile(r"^[\w.\- ]{1,120}$")


class RunNotFound(LookupError):
    """No run folder of that name under the runs root (or a name that would leave it)."""


class PlanNode(BaseModel):
    start: str
    minutes: int
    activity: str
    place: str | None = None
    children: list[PlanNode] = []


class Reflection(BaseModel):
    memory: MemoryOut
    evidence: list[MemoryOut]


class Replaced(BaseModel):
    """A memory a newer one made out of date, and by which, how and how surely."""

    memory: MemoryOut
    by: MemoryOut | None


class Mind(BaseModel):
    agent: str
    plan: list[PlanNode]
    recent: list[MemoryOut]
    reflections: list[Reflection]
    replaced: list[Replaced] = []
    note: str = ""


class RunOverview(BaseModel):
    name: str
    scenario: str
    start: str
    tick_minutes: int
    world: dict[str, dict[str, dict[str, str]]]
    agents: list[str]
    events: list[Event]
    finished: bool
    summary: RunSummary | None


class RunViews:
    def __init__(
        self, root: Path, parts: Parts, live: dict[str, MemoryStream] | None = None
    ) -> None:
        self.root = root
        self.parts = parts
        self.live = live if live is not None else {}
        self._streams: dict[str, tuple[Stamp, MemoryStream]] = {}  # name -> (stamp, memories)

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / "scenario.yaml").is_file())

    def folder(self, name: str) -> Path:
        folder = self.root / name
        safe = _NAME.match(name) and not name.startswith(".")
        if not safe or not (folder / "scenario.yaml").is_file():
            raise RunNotFound(f"no run {name!r} under {self.root}")
        return folder

    def overview(self, name: str) -> RunOverview:
        folder = self.folder(name)
        scenario = yaml.safe_load((folder / "scenario.yaml").read_text(encoding="utf-8"))
        summary_path = folder / "summary.json"
        summary = read_summary(summary_path) if summary_path.is_file() else None
        return RunOverview(
            name=name,
            scenario=str(scenario.get("name", name)),
            start=str(scenario.get("start", "")),
            tick_minutes=int(scenario.get("tick_minutes", 10)),
            world=scenario.get("world", {}),
            agents=[str(p["name"]) for p in scenario.get("agents", [])],
            events=read_events(folder / "events.jsonl"),
            finished=summary is not None,
            summary=summary,
        )

    def events_after(self, name: str, count: int) -> list[Event]:
        return read_events(self.folder(name) / "events.jsonl")[count:]

    def mind(self, name: str, agent: str, recent: int = 12, until: datetime | None = None) -> Mind:
        """What the agent had in mind at the replay's time `until` (default: the run's end)."""
        plan = self._plan(self.folder(name), agent)
        try:
            stream = self.stream(name)
        except StoreBusyError as error:
            return Mind(agent=agent, plan=plan, recent=[], reflections=[], note=str(error))
        everything = [r for r in stream.records(agent) if until is None or r.created_at <= until]
        records = [r for r in everything if r.status.value == "active"]
        if not records and agent not in self.overview(name).agents:
            raise RunNotFound(f"no agent {agent!r} in run {name!r}")
        lived = sorted(records, key=lambda r: r.created_at, reverse=True)
        reflections = [
            Reflection(memory=MemoryOut.of(r), evidence=_evidence(stream, r))
            for r in lived
            if r.kind is MemoryKind.REFLECTION
        ]
        return Mind(
            agent=agent,
            plan=plan,
            recent=[MemoryOut.of(r) for r in lived if r.kind is not MemoryKind.REFLECTION][:recent],
            reflections=reflections,
            replaced=_replaced(stream, everything)[:recent],
        )

    def recall(
        self, name: str, agent: str, query: str, k: int = 8, until: datetime | None = None
    ) -> list[FoundOut]:
        """What the agent would recall at `until` (default: the run's end), of what it had
        by then."""
        stream = self.stream(name)
        moment = until or self._now(self.folder(name))
        found = stream.retrieve(query, k, owner=agent, now=moment, until=until, touch=False)
        return [FoundOut.of(m) for m in found]

    def stream(self, name: str) -> MemoryStream:
        """The run's memories as of the store's last write (read only: pages never touch)."""
        if name in self.live:
            return self.live[name]
        run = RunFolder(self.folder(name))
        if not run.memory.is_dir():
            raise RunNotFound(f"run {name!r} has no memory store (no {run.memory})")
        stamp = _stamp(run.root)
        cached = self._streams.get(name)
        if cached is None or cached[0] != stamp:
            self._streams[name] = (stamp, self.parts.run_memories(run))
        return self._streams[name][1]

    def close(self) -> None:
        self._streams.clear()

    def _plan(self, folder: Path, agent: str) -> list[PlanNode]:
        state = _checkpoint(folder)
        mind = state.agents.get(agent) if state else None
        return _tree(mind.plan.steps if mind else [])

    def _now(self, folder: Path) -> datetime | None:
        state = _checkpoint(folder)
        return state.now if state else None


def _stamp(run: Path) -> Stamp:
    """When the run last moved on: a writer saves its checkpoint and events every tick (the
    store's own files change on every open, so they cannot say it)."""
    files = [run / "checkpoint.json", run / "events.jsonl", run / "summary.json"]
    return tuple(p.stat().st_mtime_ns if p.is_file() else 0 for p in files)


def _checkpoint(folder: Path) -> Checkpoint | None:
    """The run's last checkpoint; None before its first (the page shows no plan yet)."""
    run = RunFolder(folder)
    return run.load() if run.checkpoint.is_file() else None


def _evidence(stream: MemoryStream, reflection: MemoryRecord) -> list[MemoryOut]:
    """The memories a reflection cites (one forgotten since is left out)."""
    cited = []
    for memory_id in reflection.evidence:
        try:
            cited.append(MemoryOut.of(stream.get(memory_id)))
        except KeyError:
            continue
    return cited


def _tree(steps: Sequence[PlanStep]) -> list[PlanNode]:
    """Day steps (level 0) holding their hour steps (1) holding their actions (2), in order."""
    roots: list[PlanNode] = []
    stack: list[tuple[int, PlanNode]] = []
    for step in steps:
        level = step.level
        node = PlanNode(
            start=f"{step.start:%H:%M}",
            minutes=step.minutes,
            activity=step.activity,
            place=step.place,
        )
        while stack and stack[-1][0] >= level:
            stack.pop()
        (stack[-1][1].children if stack else roots).append(node)
        stack.append((level, node))
    return roots


def _replaced(stream: MemoryStream, records: list[MemoryRecord]) -> list[Replaced]:
    """Superseded memories, newest first, each with the memory that replaced it."""
    gone = [r for r in records if r.status.value == "superseded"]
    gone.sort(key=lambda r: str(r.provenance.superseded_at or ""), reverse=True)
    out = []
    for record in gone:
        by = stream.find(record.replaced_by or "")
        out.append(Replaced(memory=MemoryOut.of(record), by=MemoryOut.of(by) if by else None))
    return out
