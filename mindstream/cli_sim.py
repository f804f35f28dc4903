"""`mindstream sim`: run a sandbox town, resume it, interview its agents, rebuild its report."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from lm import DEFAULT_MODEL_SPEC
from mindstream.cli_support import MODEL_OPTION_HELP, build_model, clean_errors, console

app = typer.Typer(
    help="Generative agents in a sandbox town (Park et al. 2023).", no_args_is_help=True
)

ModelOption = Annotated[str, typer.Option("--model", "-m", help=MODEL_OPTION_HELP)]


def _minds(model: str, batched: bool) -> tuple[Any, Any]:
    from agents.generative import Minds
    from lm.embeddings import MiniLMEmbeddings
    from mindstream.cli_support import require_scorer

    chat = build_model(model)
    return Minds(chat, require_scorer(chat, model), batched=batched), MiniLMEmbeddings()


@app.command()
@clean_errors
def run(
    scenario: Annotated[
        str, typer.Argument(help="A built-in scenario (smallville) or a YAML file.")
    ] = "smallville",
    hours: Annotated[
        float, typer.Option(help="Sim-hours to run (from the start or the checkpoint).")
    ] = 2.0,
    out: Annotated[
        Path, typer.Option(help="Run folder: memory store, checkpoint, log, report.")
    ] = Path("out/smallville"),
    resume: Annotated[
        bool, typer.Option(help="Continue the run in --out from its checkpoint.")
    ] = False,
    model: ModelOption = DEFAULT_MODEL_SPEC,
    batched: Annotated[bool, typer.Option(help="Batch all agents' model calls of a step.")] = True,
    event: Annotated[
        list[str] | None, typer.Option(help="Inject at the start: 'area: room: object = state'.")
    ] = None,
    whisper: Annotated[
        list[str] | None, typer.Option(help="An inner-voice instruction: 'Agent Name: text'.")
    ] = None,
    interviews: Annotated[bool, typer.Option(help="Interview every agent at the end.")] = True,
) -> None:
    """Run SCENARIO for --hours sim-hours, checkpointing every tick; write the report."""
    from sim import SimConfig, load_scenario
    from sim.runner import resume_run, start_run, summarize

    minds, embedder = _minds(model, batched)
    if resume:
        engine, dropped = resume_run(out, minds, embedder, SimConfig())
        console.print(
            f"resumed at tick {engine.tick} ({engine.clock.now():%H:%M}); "
            f"{dropped} memories of the interrupted tick rolled back"
        )
    else:
        engine = start_run(load_scenario(scenario), out, minds, embedder, SimConfig())
    for item in event or []:
        place, _, state = item.partition("=")
        if not state.strip():
            raise ValueError(f"--event {item!r}: write 'area: room: object = state'")
        engine.inject(place.strip(), state.strip())
    for item in whisper or []:
        agent, _, text = item.partition(":")
        engine.whisper(agent.strip(), text.strip())
    ticks = round(hours * 60 / engine.clock.tick_minutes)
    started = time.perf_counter()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} ticks"),
        TextColumn("{task.fields[calls]} model requests"),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task(_label(engine), total=ticks, calls=0)

        def advance(current: Any) -> None:
            progress.update(
                task,
                advance=1,
                description=_label(current),
                calls=sum(current.minds.requests.values()),
            )

        engine.run(ticks, advance)
    summary = summarize(engine, time.perf_counter() - started, model, interviews=interviews)
    console.print(
        f"simulated {ticks * engine.clock.tick_minutes / 60:.1f} sim-hours of {len(engine.agents)} "
        f"agents in {summary['wall_seconds']:.0f} s wall time, "
        f"{summary['model_requests']} model requests"
    )
    console.print(f"report: {summary['report']}")


def _label(engine: Any) -> str:
    return f"sim {engine.clock.now():%a %H:%M}, {len(engine.agents)} agents"


@app.command("interview")
@clean_errors
def interview_command(
    run_folder: Annotated[Path, typer.Argument(help="A run folder written by `sim run`.")],
    agent: Annotated[str, typer.Argument(help="The agent's full name.")],
    question: Annotated[str, typer.Argument(help="What to ask, in plain words.")],
    model: ModelOption = DEFAULT_MODEL_SPEC,
) -> None:
    """Ask AGENT of a run a QUESTION; it answers in character from its memories."""
    from agents.generative import interview
    from sim import SimConfig
    from sim.runner import resume_run

    minds, embedder = _minds(model, True)
    engine, _ = resume_run(run_folder, minds, embedder, SimConfig())
    if agent not in engine.agents:
        raise ValueError(f"no agent {agent!r} in {run_folder} (agents: {', '.join(engine.agents)})")
    answer = interview([(engine.agents[agent], question)], minds, engine.clock.now())[0]
    console.print(f"[bold]{agent}:[/] {answer or '(no answer)'}")


@app.command()
@clean_errors
def report(
    run_folder: Annotated[Path, typer.Argument(help="A run folder written by `sim run`.")],
) -> None:
    """Rebuild report.md and timeline.png of a finished run from its log and summary."""
    from sim import RunFolder
    from sim.report import write_report

    folder = RunFolder(run_folder)
    summary_path = run_folder / "summary.json"
    if not summary_path.is_file():
        raise FileNotFoundError(
            f"{summary_path}: missing; run `mindstream sim run` to the end first"
        )
    console.print(f"report: {write_report(folder, json.loads(summary_path.read_text()))}")


@app.command()
@clean_errors
def validate(
    scenario: Annotated[str, typer.Argument(help="A scenario YAML file or built-in name.")],
) -> None:
    """Check a scenario file; print what it holds or the first problem, naming the field."""
    from sim import load_scenario

    loaded = load_scenario(scenario)
    console.print(
        f"{loaded.name}: {len(loaded.world)} areas, {len(loaded.agents)} agents, "
        f"{len(loaded.events)} events, starts {loaded.start:%Y-%m-%d %H:%M}"
    )
