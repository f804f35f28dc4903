"""`mindstream memory ...`: inspect and edit a memory store from the terminal, or the memories
of your user on a running `mindstream serve` (`--server URL`: no model or store is loaded)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from mindstream.cli_support import clean_errors, configured, console
from mindstream.memory import MemoryKind, RetrievalWeights

if TYPE_CHECKING:
    from mindstream.client import ServiceClient
    from mindstream.compose import Parts

app = typer.Typer(
    help="Inspect and edit a memory store (chromadb on disk), or your memories on a service.",
    no_args_is_help=True,
)

StorePath = Annotated[
    Path | None, typer.Option("--store", "-s", help="Folder of the chromadb store.")
]
Owner = Annotated[str, typer.Option("--owner", "-o", help="Whose memories (agent or user id).")]
Server = Annotated[
    str | None,
    typer.Option(
        "--server",
        help="URL of a running `mindstream serve`: act on your user's memories there (the key "
        "decides the user; the service's retrieval policy applies).",
    ),
]
ApiKey = Annotated[
    str | None, typer.Option("--api-key", help="Your key on --server (or MINDSTREAM_API_KEY).")
]


def _where(store: Path | None, server: str | None, key: str | None) -> ServiceClient | None:
    """The service client for --server, or None for a local store (one of them is needed)."""
    if (store is None) == (server is None):
        raise ValueError("give either --store FOLDER or --server URL")
    if server is None:
        return None
    from mindstream.client import ServiceClient

    return ServiceClient(server, key)


@app.command()
@clean_errors
@configured
def add(
    parts: Parts,
    text: Annotated[str, typer.Argument(help="The memory's text.")],
    store: StorePath = None,
    owner: Owner = "user",
    kind: Annotated[
        MemoryKind, typer.Option(help="Kind of memory (fact, as the service stores it).")
    ] = MemoryKind.FACT,
    importance: Annotated[
        float | None, typer.Option(help="1-10; omitted: rated by the configured model.")
    ] = None,
    server: Server = None,
    api_key: ApiKey = None,
) -> None:
    """Add one memory (embedded with MiniLM; rated by the model unless --importance)."""
    client = _where(store, server, api_key)
    if client is not None:
        added = client.remember(text, kind.value, importance)
        console.print(f"added {added['id']} (importance {added['importance']:.1f})")
        _show_replaced(added.get("provenance", {}).get("supersedes", []))
        return
    assert store is not None
    stream = parts.stream(store)
    added_id = stream.add(text, owner=owner, kind=kind, importance=importance).id
    stream.settle()
    record = stream.get(added_id)
    replaced = [stream.get(i) for i in record.provenance.supersedes]
    stream.close()
    console.print(f"added {record.id} (importance {record.importance:.1f})")
    _show_replaced(list(record.provenance.supersedes), {r.id: r.text for r in replaced})


def _show_replaced(supersedes: list[str], texts: dict[str, str] | None = None) -> None:
    """One line per memory the new one superseded (`memory restore ID` undoes it)."""
    for old in supersedes:
        what = f" {escape(texts[old])!r}" if texts and old in texts else ""
        console.print(f"  superseded {old}{what}; `mindstream memory restore {old}` undoes it")


@app.command()
@clean_errors
@configured
def search(
    parts: Parts,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    store: StorePath = None,
    owner: Owner = "user",
    k: Annotated[int, typer.Option("-k", help="How many memories.")] = 10,
    mode: Annotated[
        str | None, typer.Option(help="embedding, bm25 or hybrid (default: stream.mode).")
    ] = None,
    original_weights: Annotated[
        bool,
        typer.Option(help="Use the original code's 0.5/2/3 weights instead of the configured."),
    ] = False,
    touch: Annotated[bool, typer.Option(help="Update last access, as agents do.")] = False,
    history: Annotated[
        bool,
        typer.Option(
            help="Also superseded and forgotten memories (what was true before), with status."
        ),
    ] = False,
    server: Server = None,
    api_key: ApiKey = None,
) -> None:
    """Retrieve memories and show the three parts of each score.

    By default only what is true now: a memory that a later one superseded (automatically or
    by a correction) is left out; --history brings it back, marked."""
    client = _where(store, server, api_key)
    if client is not None:
        rows = [(f, f["memory"]) for f in client.search(query, k, history)]
        _show(query, f"{server}", [(_parts(f), m["created_at"][5:16], m) for f, m in rows])
        return
    assert store is not None
    stream = parts.stream(store, create=False)
    weights = RetrievalWeights.original_code() if original_weights else stream.config.weights
    found = stream.retrieve(
        query,
        k,
        owner=owner,
        mode=mode,  # type: ignore[arg-type]
        weights=weights,
        touch=touch,
        include_inactive=history,
    )
    stream.close()
    shown = [
        (
            (m.score, m.recency, m.importance, m.relevance),
            m.record.created_at.strftime("%m-%d %H:%M"),
            {
                "kind": m.record.kind.value,
                "text": m.record.text,
                "id": m.record.id,
                "status": m.record.status.value,
            },
        )
        for m in found
    ]
    _show(query, f"{owner} ({mode or stream.config.mode})", shown)


def _parts(found: dict[str, Any]) -> tuple[float, float, float, float]:
    return found["score"], found["recency"], found["importance"], found["relevance"]


def _show(
    query: str, whose: str, rows: Sequence[tuple[tuple[float, ...], str, dict[str, Any]]]
) -> None:
    table = Table(title=f"{len(rows)} memories of {whose} for {query!r}")
    for column in ("score", "rec", "imp", "rel"):
        table.add_column(column, justify="right")
    table.add_column("memory", ratio=1)
    table.add_column("id", no_wrap=True, min_width=8)
    for numbers, when, memory in rows:
        status = memory.get("status", "active")
        mark = "" if status == "active" else f" [yellow]({status})[/]"
        text = f"[dim]{when} {memory['kind']}[/] {escape(memory['text'])}{mark}"
        table.add_row(*(f"{x:.2f}" for x in numbers), text, memory["id"][:8])
    console.print(table)
    console.print("[dim]rec, imp, rel: recency, importance, relevance, min-max normalised[/]")


@app.command()
@clean_errors
@configured
def forget(
    parts: Parts,
    memory_id: Annotated[str, typer.Argument(help="Id (or unique prefix) of the memory.")],
    store: StorePath = None,
    server: Server = None,
    api_key: ApiKey = None,
) -> None:
    """Mark a memory forgotten; reflections citing it become stale."""
    client = _where(store, server, api_key)
    if client is not None:
        console.print(f"forgot {client.forget(memory_id)['id']}")
        return
    assert store is not None
    stream = parts.stream(store, create=False)
    record = stream.forget(_unique(stream, memory_id))
    stale = stream.stale(record.owner)
    stream.close()
    console.print(f"forgot {record.id}; {len(stale)} reflection(s) of {record.owner} now stale")


@app.command()
@clean_errors
@configured
def restore(
    parts: Parts,
    memory_id: Annotated[str, typer.Argument(help="Id (or unique prefix) of the memory.")],
    store: StorePath = None,
    server: Server = None,
    api_key: ApiKey = None,
) -> None:
    """Undo a supersede (a wrong automatic one, say): the memory is active again and its
    replacement stays. Only a superseded memory can be restored; a forgotten one stays
    forgotten."""
    client = _where(store, server, api_key)
    if client is not None:
        console.print(f"restored {client.restore(memory_id)['id']}")
        return
    assert store is not None
    stream = parts.stream(store, create=False)
    record = stream.restore(_unique(stream, memory_id))
    stream.close()
    console.print(
        f"restored {record.id} (it had been replaced by {record.provenance.restored_from})"
    )


def _unique(stream: Any, prefix: str) -> str:
    matches = [r.id for r in stream.records() if r.id.startswith(prefix)]
    if len(matches) != 1:
        raise ValueError(f"{prefix!r} matches {len(matches)} memories; give more of the id")
    return str(matches[0])


@app.command()
@clean_errors
@configured
def stats(
    parts: Parts, store: StorePath = None, server: Server = None, api_key: ApiKey = None
) -> None:
    """Count memories per owner, kind and status."""
    client = _where(store, server, api_key)
    table = Table("owner", "memories", "by kind", "by status")
    if client is not None:
        counts = client.stats()
        table.add_row(
            counts["user"],
            str(counts["memories"]),
            _listed(counts["by_kind"]),
            _listed(counts["by_status"]),
        )
        console.print(table)
        return
    assert store is not None
    stream = parts.stream(store, create=False)
    table.add_column("stale")
    for owner in stream.owners():
        records = stream.records(owner)
        kinds = Counter(r.kind.value for r in records)
        statuses = Counter(r.status.value for r in records)
        table.add_row(
            owner,
            str(len(records)),
            _listed(kinds),
            _listed(statuses),
            str(len(stream.stale(owner))),
        )
    console.print(table)
    console.print(f"{len(stream)} memories in {store}")


def _listed(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
