"""`mindstream memory ...`: inspect and edit a memory store from the terminal."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from memory import MemoryKind, RetrievalWeights
from mindstream.cli_support import clean_errors, configured, console

if TYPE_CHECKING:
    from mindstream.compose import Parts

app = typer.Typer(help="Inspect and edit a memory store (chromadb on disk).", no_args_is_help=True)

StorePath = Annotated[Path, typer.Option("--store", "-s", help="Folder of the chromadb store.")]
Owner = Annotated[str, typer.Option("--owner", "-o", help="Whose memories (agent or user id).")]


@app.command()
@clean_errors
@configured
def add(
    parts: Parts,
    text: Annotated[str, typer.Argument(help="The memory's text.")],
    store: StorePath,
    owner: Owner = "user",
    kind: Annotated[MemoryKind, typer.Option(help="Kind of memory.")] = MemoryKind.OBSERVATION,
    importance: Annotated[
        float | None, typer.Option(help="1-10; omitted: rated by the configured model.")
    ] = None,
) -> None:
    """Add one memory (embedded with MiniLM; rated by the model unless --importance)."""
    stream = parts.stream(store)
    record = stream.add(text, owner=owner, kind=kind, importance=importance)
    stream.close()
    console.print(f"added {record.id} (importance {record.importance:.1f})")


@app.command()
@clean_errors
@configured
def search(
    parts: Parts,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    store: StorePath,
    owner: Owner = "user",
    k: Annotated[int, typer.Option("-k", help="How many memories.")] = 10,
    mode: Annotated[str, typer.Option(help="embedding, bm25 or hybrid relevance.")] = "embedding",
    original_weights: Annotated[
        bool,
        typer.Option(help="Use the original code's 0.5/2/3 weights instead of the configured."),
    ] = False,
    touch: Annotated[bool, typer.Option(help="Update last access, as agents do.")] = False,
) -> None:
    """Retrieve memories and show the three parts of each score."""
    stream = parts.stream(store, create=False)
    weights = RetrievalWeights.original_code() if original_weights else stream.config.weights
    found = stream.retrieve(query, k, owner=owner, mode=mode, weights=weights, touch=touch)  # type: ignore[arg-type]
    stream.close()
    table = Table(title=f"{len(found)} memories of {owner} for {query!r} ({mode})")
    for column in ("score", "rec", "imp", "rel"):
        table.add_column(column, justify="right")
    table.add_column("memory", ratio=1)
    table.add_column("id", no_wrap=True, min_width=8)
    for m in found:
        when = m.record.created_at.strftime("%m-%d %H:%M")
        table.add_row(
            f"{m.score:.2f}",
            f"{m.recency:.2f}",
            f"{m.importance:.2f}",
            f"{m.relevance:.2f}",
            f"[dim]{when} {m.record.kind.value}[/] {m.record.text}",
            m.record.id[:8],
        )
    console.print(table)
    console.print("[dim]rec, imp, rel: recency, importance, relevance, min-max normalised[/]")


@app.command()
@clean_errors
@configured
def forget(
    parts: Parts,
    memory_id: Annotated[str, typer.Argument(help="Id (or unique prefix) of the memory.")],
    store: StorePath,
) -> None:
    """Mark a memory forgotten; reflections citing it become stale."""
    stream = parts.stream(store, create=False)
    matches = [r.id for r in stream.records() if r.id.startswith(memory_id)]
    if len(matches) != 1:
        raise ValueError(f"{memory_id!r} matches {len(matches)} memories; give more of the id")
    record = stream.forget(matches[0])
    stale = stream.stale(record.owner)
    stream.close()
    console.print(f"forgot {record.id}; {len(stale)} reflection(s) of {record.owner} now stale")


@app.command()
@clean_errors
@configured
def stats(parts: Parts, store: StorePath) -> None:
    """Count memories per owner, kind and status."""
    stream = parts.stream(store, create=False)
    table = Table("owner", "memories", "by kind", "by status", "stale")
    for owner in stream.owners():
        records = stream.records(owner)
        kinds = Counter(r.kind.value for r in records)
        statuses = Counter(r.status.value for r in records)
        table.add_row(
            owner,
            str(len(records)),
            ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())),
            ", ".join(f"{k} {n}" for k, n in sorted(statuses.items())),
            str(len(stream.stale(owner))),
        )
    console.print(table)
    console.print(f"{len(stream)} memories in {store}")
