"""`mindstream sim`: run a sandbox town, resume it, interview its agents, rebuild its report."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import (
    BarColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from mindstream.cli_support import clean_errors, configured, console

if TYPE_CHECKING:
    from mindstream.compose import Parts
    from mindstream.service.live import LiveServer
    from mindstream.sim import Engine

# One run call covers at most a sim-week: a longer one is almost surely a typo (1e9), and a
# run is resumable, so a longer stay is several calls.
MAX_SIM_HOURS = 168

app = typer.Typer(
    help="Generative agents in a sandbox town (Park et al. 2023).", no_args_is_help=True
)


@app.command()
@clean_errors
@configured
def run(
    parts: Parts,
    scenario: Annotated[
        str, typer.Argument(help="A built-in scenario (smallville) or a YAML file.")
    ] = "smallville",
    hours: Annotated[
        float,
        typer.Option(
            help="Sim-hours to run (from the start or the checkpoint): above 0, at most "
            f"{MAX_SIM_HOURS} (a sim-week; resume to go on). With --resume, 0 writes the "
            "summary and report of a stopped run as it stands."
        ),
    ] = 2.0,
    out: Annotated[
        Path, typer.Option(help="Run folder: memory store, checkpoint, log, config, report.")
    ] = Path("out/smallville"),
    resume: Annotated[
        bool,
        typer.Option(help="Continue the run in --out from its checkpoint, with its config."),
    ] = False,
    batched: Annotated[
        bool,
        typer.Option(
            help="Send all agents' model calls of a step together (one batch locally, "
            "concurrent requests to a server)."
        ),
    ] = True,
    event: Annotated[
        list[str] | None, typer.Option(help="Inject at the start: 'area: room: object = state'.")
    ] = None,
    whisper: Annotated[
        list[str] | None, typer.Option(help="An inner-voice instruction: 'Agent Name: text'.")
    ] = None,
    interviews: Annotated[bool, typer.Option(help="Interview every agent at the end.")] = True,
    routines: Annotated[
        bool,
        typer.Option(
            help="Keep the scenario's routines; --no-routines leaves every day to be chosen "
            "from what the world affords (home, occupation, places), against each persona "
            "and its memories."
        ),
    ] = True,
    serve: Annotated[
        bool,
        typer.Option(
            help="Show the run live in the browser while it runs (town page on 127.0.0.1; "
            "it stays up after the run until Ctrl-C)."
        ),
    ] = False,
    port: Annotated[int, typer.Option(help="Port of --serve; 0 picks a free one.")] = 0,
) -> None:
    """Run SCENARIO for --hours sim-hours, checkpointing every tick; write the report. A run
    stopped by an error or a kill continues with --resume."""
    from mindstream.sim import load_scenario
    from mindstream.sim.runner import check_inputs, resume_run, saved_config, start_run, summarize

    check_hours(hours, resume=resume)
    events = [_event(item) for item in event or []]
    whispers = [_whisper(item) for item in whisper or []]
    if resume:
        parts = parts.under(saved_config(out))
        engine, dropped = resume_run(out, parts.run_parts(batched=batched))
        check_inputs(engine.scenario, [p for p, _ in events], [a for a, _ in whispers])
        console.print(
            f"resumed at tick {engine.tick} ({engine.clock.now():%H:%M}); "
            f"{dropped} memories of the interrupted tick rolled back"
        )
    else:
        loaded = load_scenario(scenario)
        loaded = loaded if routines else loaded.unscripted()
        check_inputs(loaded, [p for p, _ in events], [a for a, _ in whispers])
        ticks_for(hours, loaded.tick_minutes)  # refused before the run folder is made
        engine = start_run(loaded, out, parts.run_parts(batched=batched))
    for place, state in events:
        engine.inject(place, state)
    for agent, text in whispers:
        engine.whisper(agent, text)
    ticks = ticks_for(hours, engine.clock.tick_minutes) if hours else 0
    server = _serve_live(engine, out, parts, port) if serve else None
    _advance(engine, ticks)
    summary = summarize(engine, parts.config.model.spec, interviews=interviews)
    console.print(
        f"simulated {engine.tick * engine.clock.tick_minutes / 60:.1f} sim-hours of "
        f"{len(engine.agents)} agents in {summary.wall_seconds:.0f} s wall time "
        f"(every segment; {summary.framework_share:.1%} of it framework, the rest waiting on "
        f"the model), {summary.model_requests} model requests"
    )
    console.print(f"report: {summary.report}")
    if server is not None:
        console.print("the run is finished; its page stays up until Ctrl-C")
        server.wait()


def ticks_for(hours: float, tick_minutes: int) -> int:
    """The ticks `hours` make, to the nearest; less than one tick is refused in one line
    (`--hours 0.01` ran a 10-minute tick without a word), and a rounded count is said."""
    ticks = hours * 60 / tick_minutes
    if ticks < 1 - 1e-6:
        raise ValueError(
            f"--hours {hours:g} is less than one {tick_minutes}-minute tick "
            f"(at least {tick_minutes / 60:.3g})"
        )
    whole = round(ticks)
    if abs(ticks - whole) > 1e-6:
        console.print(
            f"--hours {hours:g} is {ticks:.2f} ticks of {tick_minutes} minutes: running {whole} "
            f"({whole * tick_minutes / 60:.3g} sim-hours)",
            highlight=False,
        )
    return whole


def check_hours(hours: float, *, resume: bool = False) -> None:
    """Before anything is created: nan, inf and 1e9 are refused in one line. With --resume,
    0 reports a stopped run as it stands (its summary and report, nothing simulated)."""
    if resume and hours == 0:
        return
    if not (math.isfinite(hours) and 0 < hours <= MAX_SIM_HOURS):
        raise ValueError(f"--hours must be above 0 and at most {MAX_SIM_HOURS} (got {hours:g})")


def _serve_live(engine: Engine, out: Path, parts: Parts, port: int) -> LiveServer:
    from mindstream.service.live import LiveServer

    server = LiveServer.start(out.resolve(), engine.stream, parts, port)
    console.print(f"live view: {server.url}", highlight=False, soft_wrap=True)
    return server


def _event(item: str) -> tuple[str, str]:
    place, _, state = item.partition("=")
    if not place.strip() or not state.strip():
        raise ValueError(f"--event {item!r}: write 'area: room: object = state'")
    return place.strip(), state.strip()


def _whisper(item: str) -> tuple[str, str]:
    agent, _, text = item.partition(":")
    if not agent.strip() or not text.strip():
        raise ValueError(f"--whisper {item!r}: write 'Agent Name: text'")
    return agent.strip(), text.strip()


def _advance(engine: Engine, ticks: int) -> None:
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} ticks"),
        TextColumn("{task.fields[calls]} model requests"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
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


def _label(engine: Any) -> str:
    return f"sim {engine.clock.now():%a %H:%M}, {len(engine.agents)} agents"


@app.command("interview")
@clean_errors
@configured
def interview_command(
    parts: Parts,
    run_folder: Annotated[Path, typer.Argument(help="A run folder written by `sim run`.")],
    agent: Annotated[str, typer.Argument(help="The agent's full name.")],
    question: Annotated[str, typer.Argument(help="What to ask, in plain words.")],
) -> None:
    """Ask AGENT of a run a QUESTION; it answers in character from its memories (with the run's
    configuration, unless --config is given)."""
    from mindstream.agents.generative import interview
    from mindstream.sim.runner import resume_run, saved_config

    if not question.strip():
        raise ValueError("QUESTION is empty")
    parts = parts.under(saved_config(run_folder))
    engine, _ = resume_run(run_folder, parts.run_parts(keep_config=False))
    if agent not in engine.agents:
        raise ValueError(f"no agent {agent!r} in {run_folder} (agents: {', '.join(engine.agents)})")
    answer = interview([(engine.agents[agent], question)], engine.minds, engine.clock.now())[0]
    console.print(f"[bold]{agent}:[/] {answer or '(no answer)'}", highlight=False)


@app.command()
@clean_errors
@configured
def report(
    run_folder: Annotated[Path, typer.Argument(help="A run folder written by `sim run`.")],
    parts: Parts,
) -> None:
    """Rebuild report.md, timeline.png and diffusion.png of a finished run from its log and
    summary; the metrics are measured again from its memories (read only, with this version's
    measures) and kept in summary.json."""
    from mindstream.sim import RunFolder
    from mindstream.sim.events import read_summary
    from mindstream.sim.metrics import measure
    from mindstream.sim.report import write_report
    from mindstream.sim.runner import saved_config
    from mindstream.sim.scenario import load_scenario

    folder = RunFolder(run_folder)
    summary_path = run_folder / "summary.json"
    if not summary_path.is_file():
        raise FileNotFoundError(
            f"{summary_path}: missing; run `mindstream sim run` to the end first"
        )
    parts = parts.under(saved_config(run_folder))
    stream = parts.run_memories(folder)
    metrics = measure(stream, load_scenario(folder.scenario), folder.events())
    summary = read_summary(summary_path).model_copy(update={"metrics": metrics})
    summary_path.write_text(summary.model_dump_json(indent=1, exclude_none=True), "utf-8")
    console.print(f"report: {write_report(folder, summary, stream)}")


@app.command()
@clean_errors
def validate(
    scenario: Annotated[str, typer.Argument(help="A scenario YAML file or built-in name.")],
) -> None:
    """Check a scenario file; print what it holds or the first problem, naming the field."""
    from mindstream.sim import load_scenario

    loaded = load_scenario(scenario)
    console.print(
        f"{loaded.name}: {len(loaded.world)} areas, {len(loaded.agents)} agents, "
        f"{len(loaded.events)} events, starts {loaded.start:%Y-%m-%d %H:%M}"
    )
