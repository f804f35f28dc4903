"""`mindstream reflect` and `mindstream refine`."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from lm import DEFAULT_MODEL_SPEC
from mindstream.cli_support import MODEL_OPTION_HELP, build_model, clean_errors, console


@clean_errors
def reflect(
    store: Annotated[Path, typer.Option("--store", "-s", help="Folder of the chromadb store.")],
    owner: Annotated[str, typer.Option("--owner", "-o", help="Whose memories to reflect on.")],
    model: Annotated[
        str, typer.Option("--model", "-m", help=MODEL_OPTION_HELP)
    ] = DEFAULT_MODEL_SPEC,
    force: Annotated[
        bool, typer.Option(help="Reflect even if the importance trigger has not fired.")
    ] = False,
    every_minutes: Annotated[
        float | None, typer.Option(help="Keep running: reflect every N minutes.")
    ] = None,
    cron: Annotated[
        str | None, typer.Option(help="Keep running: reflect on this crontab line.")
    ] = None,
) -> None:
    """Reflect on OWNER's recent memories: print the questions, the insights and their evidence.
    With --every-minutes or --cron, schedule it instead (jobs persist in the store folder)."""
    if every_minutes is not None or cron is not None:
        _schedule(store, owner, model, every_minutes, cron)
        return
    from lm.embeddings import MiniLMEmbeddings
    from memory import MemoryStream, scorer_rater
    from reflection import Reflector

    chat = build_model(model, max_new_tokens=160)
    stream = MemoryStream.open(store, MiniLMEmbeddings(), rater=scorer_rater(chat))
    reflector = Reflector(stream, chat)
    pending = reflector.importance_since_last(owner)
    console.print(
        f"importance since the last reflection: {pending:.0f} "
        f"(threshold {reflector.config.threshold:.0f})"
    )
    result = reflector.reflect(owner, force=force)
    rederived = reflector.rederive(owner)
    stream.close()
    if not result.questions and not force and pending < reflector.config.threshold:
        console.print("the trigger has not fired; use --force to reflect anyway")
    for question in result.questions:
        console.print(f"[bold]question:[/] {question}")
    table = Table("insight", "evidence")
    for insight in result.insights + rederived.insights:
        table.add_row(
            insight.record.text, "\n".join(f"{e.id[:8]} {e.text}" for e in insight.evidence)
        )
    console.print(table)
    if result.dropped:
        console.print(
            f"[dim]{len(result.dropped)} model lines not stored "
            "(no valid citation, duplicate, ...)[/]"
        )
    if rederived.replaced:
        console.print(f"re-derived {len(rederived.replaced)} stale reflection(s)")


def _schedule(
    store: Path, owner: str, model: str, every_minutes: float | None, cron: str | None
) -> None:
    from reflection.schedule import ReflectionSchedule, ReflectionScheduler

    logging.getLogger("reflection.schedule").setLevel(logging.INFO)
    schedule = ReflectionSchedule(
        owner=owner, store=str(store), model=model, every_minutes=every_minutes, cron=cron
    )
    scheduler = ReflectionScheduler(store / "reflection-jobs.sqlite", blocking=True)
    job = scheduler.add(schedule)
    console.print(
        f"scheduled {job} ({f'every {every_minutes} min' if every_minutes else cron}); Ctrl-C stops"
    )
    try:
        scheduler.start()
    except KeyboardInterrupt:
        console.print("stopped; the job stays stored and resumes on the next start")


@clean_errors
def refine(
    task: Annotated[str, typer.Argument(help="What to write.")],
    iterations: Annotated[int, typer.Option(help="Refinements after the first answer.")] = 3,
    model: Annotated[
        str, typer.Option("--model", "-m", help=MODEL_OPTION_HELP)
    ] = DEFAULT_MODEL_SPEC,
) -> None:
    """Self-Refine TASK: print every answer and the feedback the same model gave it."""
    from reflection.self_refine import SelfRefine, SelfRefineConfig

    if not task.strip():
        raise ValueError("TASK is empty")
    history = SelfRefine(
        build_model(model, max_new_tokens=96), config=SelfRefineConfig(max_iters=iterations)
    ).run(task)
    for n, step in enumerate(history.steps):
        console.print(f"[bold]y{n}:[/] {step.output}", highlight=False)
        if step.feedback is not None:
            console.print(f"[dim]feedback {n}:[/] {step.feedback}", highlight=False)
    console.print(f"stopped by {history.stopped_by}")
