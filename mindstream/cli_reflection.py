"""`mindstream reflect` and `mindstream refine`."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from mindstream.cli_support import clean_errors, configured, console

if TYPE_CHECKING:
    from mindstream.compose import Parts


@clean_errors
@configured
def reflect(
    parts: Parts,
    store: Annotated[
        Path | None, typer.Option("--store", "-s", help="Folder of the chromadb store.")
    ] = None,
    owner: Annotated[
        str, typer.Option("--owner", "-o", help="Whose memories to reflect on.")
    ] = "user",
    force: Annotated[
        bool, typer.Option(help="Reflect even if the importance trigger has not fired.")
    ] = False,
    every_minutes: Annotated[
        float | None, typer.Option(help="Keep running: reflect every N minutes.")
    ] = None,
    cron: Annotated[
        str | None, typer.Option(help="Keep running: reflect on this crontab line.")
    ] = None,
    server: Annotated[
        str | None,
        typer.Option(help="A running `mindstream serve`: reflect on your user's memories there."),
    ] = None,
    api_key: Annotated[
        str | None, typer.Option(help="Your key on --server (or MINDSTREAM_API_KEY).")
    ] = None,
) -> None:
    """Reflect on OWNER's recent memories: print the questions, the insights and their evidence.
    With --every-minutes or --cron, schedule it instead (jobs persist in the store folder, with
    the configuration they were scheduled with)."""
    if (store is None) == (server is None):
        raise ValueError("give either --store FOLDER or --server URL")
    if server is not None:
        _remote(server, api_key, force)
        return
    assert store is not None
    if every_minutes is not None or cron is not None:
        _schedule(parts, store, owner, every_minutes, cron)
        return
    stream = parts.stream(store, create=False)
    reflector = parts.reflector(stream)
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
        console.print(f"[bold]question:[/] {question}", highlight=False)
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


def _remote(server: str, api_key: str | None, force: bool) -> None:
    """Reflect on the service (which also runs each user's scheduled reflection)."""
    from mindstream.client import ServiceClient

    result = ServiceClient(server, api_key).reflect(force)
    if result.get("reason"):
        console.print(f"nothing to reflect on: {result['reason']}", highlight=False)
    for question in result["questions"]:
        console.print(f"[bold]question:[/] {question}", highlight=False)
    for insight in result["insights"]:
        console.print(f"insight: {insight}", highlight=False)


def _schedule(
    parts: Parts, store: Path, owner: str, every_minutes: float | None, cron: str | None
) -> None:
    from mindstream.jobs import REFLECT_JOB
    from mindstream.reflection.schedule import ReflectionSchedule, ReflectionScheduler

    logging.getLogger("mindstream.reflection.schedule").setLevel(logging.INFO)
    schedule = ReflectionSchedule(
        owner=owner,
        store=str(store),
        job=REFLECT_JOB,
        settings=parts.config.to_yaml(),
        every_minutes=every_minutes,
        cron=cron,
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
@configured
def refine(
    parts: Parts,
    task: Annotated[str, typer.Argument(help="What to write.")],
    iterations: Annotated[
        int | None, typer.Option(help="Refinements after the first answer (refine.max_iters).")
    ] = None,
) -> None:
    """Self-Refine TASK: print every answer and the feedback the same model gave it."""
    if not task.strip():
        raise ValueError("TASK is empty")
    changes: dict[str, Any] = {} if iterations is None else {"max_iters": iterations}
    history = parts.self_refine(**changes).run(task)
    for n, step in enumerate(history.steps):
        console.print(f"[bold]y{n}:[/] {step.output}", highlight=False)
        if step.feedback is not None:
            console.print(f"[dim]feedback {n}:[/] {step.feedback}", highlight=False)
    console.print(f"stopped by {history.stopped_by}")
