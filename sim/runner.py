"""Start or resume a run in a folder: chroma store on disk, checkpoint, event log, the
effective configuration."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import yaml

from mindstream.agents.generative import Minds, interview
from mindstream.agents.generative.insights import TownInsights
from mindstream.memory import CachedRater, MemoryStore, MemoryStream, StreamConfig
from mindstream.reflection import ReflectionConfig, Reflector
from mindstream.reflection.offers import InsightOffers
from mindstream.sim.checkpoint import RunFolder
from mindstream.sim.config import town_stream
from mindstream.sim.engine import Engine, SimConfig
from mindstream.sim.errors import SimError
from mindstream.sim.events import Interview, RunSummary
from mindstream.sim.metrics import measure
from mindstream.sim.report import write_report
from mindstream.sim.scenario import Scenario, load_scenario
from mindstream.sim.world import World

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

CONFIG_FILE = "config.yaml"


class Builder(Protocol):
    """How a run's memory stream and reflector are made: `mindstream.compose.Parts` is one,
    with the configured embedder and the change judge the policy asks for."""

    def stream(
        self, *, store: MemoryStore, policy: StreamConfig, rater: CachedRater
    ) -> MemoryStream: ...

    def reflector(
        self,
        stream: MemoryStream,
        *,
        model: BaseChatModel,
        config: ReflectionConfig,
        offers: InsightOffers | None = None,
    ) -> Reflector: ...


@dataclass(frozen=True)
class RunParts:
    """What a run is built from; the composition root makes it from one configuration."""

    minds: Minds
    build: Builder
    sim: SimConfig = field(default_factory=SimConfig)
    stream: StreamConfig = field(default_factory=town_stream)
    reflection: ReflectionConfig = field(default_factory=ReflectionConfig)
    config_text: str | None = None  # the effective configuration, kept in the run folder


def check_inputs(scenario: Scenario, places: list[str], agents: list[str]) -> None:
    """Refuse unknown places and agents before anything is written."""
    world = World(scenario.world)
    for place in places:
        world.check(place)
    known = [a.name for a in scenario.agents]
    for agent in agents:
        if agent not in known:
            raise SimError(f"no agent named {agent!r} (known: {', '.join(known)})")


def start_run(scenario: Scenario, out: Path, parts: RunParts) -> Engine:
    """A new run in `out` (refused if `out` already holds one)."""
    folder = RunFolder(out)
    folder.create(yaml.safe_dump(scenario.model_dump(mode="json"), sort_keys=False))
    _keep_config(folder, parts)
    stream = _stream(folder.store(), parts)
    reflector = _reflector(scenario, stream, parts)
    engine = Engine(scenario, stream, parts.minds, parts.sim, folder, reflector)
    folder.save(engine.get_state())
    return engine


def resume_run(out: Path, parts: RunParts) -> tuple[Engine, int]:
    """The run in `out`, at its last checkpoint; also how many memories of the interrupted
    tick were rolled back."""
    folder = RunFolder(out)
    state = folder.load()
    scenario = load_scenario(folder.scenario)
    store = folder.store()
    dropped = folder.roll_back(store, state)
    _keep_config(folder, parts)
    stream = _stream(store, parts)
    reflector = _reflector(scenario, stream, parts)
    engine = Engine(scenario, stream, parts.minds, parts.sim, folder, reflector)
    engine.set_state(state)
    return engine, dropped


def saved_config(out: Path) -> Path | None:
    """The configuration a run folder keeps (read back when the run is resumed)."""
    path = Path(out) / CONFIG_FILE
    return path if path.is_file() else None


def _keep_config(folder: RunFolder, parts: RunParts) -> None:
    if parts.config_text is not None:
        (folder.root / CONFIG_FILE).write_text(parts.config_text, encoding="utf-8")


def _stream(store: MemoryStore, parts: RunParts) -> MemoryStream:
    """The run's memory: importance rated by the same (batched, counted) minds."""
    rater = CachedRater(parts.minds.rate_importance)
    return parts.build.stream(store=store, policy=parts.stream, rater=rater)


def _reflector(scenario: Scenario, stream: MemoryStream, parts: RunParts) -> Reflector:
    """Reflection at the scenario's threshold when it sets one, its generation counted in
    the run's ledger like every other component, choosing also among the insights the town's
    memories prove (`TownInsights`)."""
    config = parts.reflection
    if scenario.reflection_threshold is not None:
        config = config.model_copy(update={"threshold": scenario.reflection_threshold})
    model = parts.minds.counted_model("reflection")
    return parts.build.reflector(stream, model=model, config=config, offers=TownInsights())


def summarize(engine: Engine, model: str, *, interviews: bool = True) -> RunSummary:
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
    sim_minutes = engine.tick * engine.clock.tick_minutes
    wall = engine.wall_seconds
    summary = RunSummary(
        scenario=engine.scenario.name,
        model=model,
        batched=engine.minds.batched,
        sim_start=f"{engine.scenario.start:%Y-%m-%d %H:%M}",
        sim_end=f"{moment:%Y-%m-%d %H:%M}",
        ticks=engine.tick,
        tick_minutes=engine.clock.tick_minutes,
        agents=list(engine.agents),
        wall_seconds=wall,
        framework_share=1 - engine.model_seconds / wall if wall else 0.0,
        sim_minutes_per_wall_second=sim_minutes / wall if wall else 0.0,
        model_requests=sum(engine.minds.requests.values()),
        requests=dict(engine.minds.requests),
        ledger=engine.minds.ledger.as_dict(),
        memories=len(engine.stream),
        metrics=measure(engine.stream, engine.scenario, events),
        interviews=[
            Interview(agent=a.name, question=q, answer=answer)
            for (a, q), answer in zip(asked, answers, strict=True)
        ],
    )
    (engine.folder.root / "summary.json").write_text(
        summary.model_dump_json(indent=1, exclude_none=True), encoding="utf-8"
    )
    return summary.model_copy(
        update={"report": str(write_report(engine.folder, summary, engine.stream))}
    )
