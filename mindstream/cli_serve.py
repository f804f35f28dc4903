"""`mindstream serve` (the assistant as a REST service) and `mindstream users` (its users)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from mindstream.cli_support import clean_errors, configured, console

if TYPE_CHECKING:
    from mindstream.compose import Parts

users_app = typer.Typer(
    help="Manage the users of a running `mindstream serve`.", no_args_is_help=True
)

ServerOption = Annotated[str, typer.Option("--server", help="URL of a running `mindstream serve`.")]
AdminKey = Annotated[
    str | None,
    typer.Option(
        "--admin-key",
        help="The service's admin key (default: MINDSTREAM_ADMIN_KEY; `serve` prints where it "
        "wrote it).",
    ),
]


@clean_errors
@configured
def serve(
    parts: Parts,
    data: Annotated[
        Path | None, typer.Option(help="Folder of the store, users and jobs (service.data).")
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Port (service.port); 0 picks a free one.")
    ] = None,
    runs: Annotated[
        Path | None, typer.Option(help="Folder of run folders the town pages open (service.runs).")
    ] = None,
    replicas: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="Run N service processes behind HAProxy on --port, each the only writer for "
            "the users it owns, on a chroma server in the data folder (see --stores).",
        ),
    ] = 1,
    stores: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="With --replicas: spread the users' memories over M chroma servers (replica i"
            " keeps its users on store i mod M; the first also keeps the user registry).",
        ),
    ] = 1,
    public: Annotated[
        bool,
        typer.Option(
            "--public",
            help="Allow a service.host beyond loopback (plain HTTP: put TLS in front of it).",
        ),
    ] = False,
) -> None:
    """Serve the personal assistant over REST (OpenAPI at /docs) on 127.0.0.1 (service.host;
    another address needs --public), many users, one store; the single writer of that store.
    Web pages: / (runs), /runs/<run> (town replay and minds), /teach (TeachMe), /chat (the
    assistant). The data folder is kept private (files 0600). Ctrl-C stops it."""
    import uvicorn

    from mindstream.lm.served.server import free_port
    from mindstream.service.address import check_address
    from mindstream.service.app import Service, create_app

    changes = {k: v for k, v in {"data": data, "port": port, "runs": runs}.items() if v is not None}
    config = type(parts.config.service).model_validate(
        {**parts.config.service.model_dump(), **changes}
    )
    if config.port == 0:
        config = config.model_copy(update={"port": free_port()})
    warning = check_address(config.host, config.port, public)
    if warning:
        console.print(warning, style="yellow", highlight=False, soft_wrap=True)
    if replicas > 1:
        _serve_replicas(config.data, config.port, (replicas, stores), config.host)
        return
    if stores > 1:
        raise ValueError(f"--stores {stores}: only with --replicas (one process has one store)")
    if (config.data / "replicas.json").is_file() and parts.config.store.kind != "chroma-server":
        raise ValueError(
            f"--data {config.data}: this folder belongs to a replica set; serve it with "
            "`mindstream serve --replicas N` (a single process here would serve an empty store)"
        )
    service = Service(parts, config)
    where = f"http://{config.host}:{config.port}"
    console.print(
        f"mindstream serving {config.data} at {where} (pages: {where}/, OpenAPI: {where}/docs)",
        highlight=False,
        soft_wrap=True,
    )
    if service.admin_key_file is not None:
        console.print(
            f"admin key in {service.admin_key_file} (mode 0600)", highlight=False, soft_wrap=True
        )
    uvicorn.run(create_app(service), host=config.host, port=config.port, log_level="warning")


def _serve_replicas(data: Path, port: int, layout: tuple[int, int], host: str) -> None:
    from mindstream.service.replicas import ReplicaSet

    if host != "127.0.0.1":
        raise ValueError("--replicas: the set listens on 127.0.0.1 only (put a proxy in front)")
    replicas, stores = layout
    group = ReplicaSet(data, port, replicas, stores)
    key = f"in {group.key_file}" if group.key_file else "from the environment"
    console.print(
        f"mindstream serving {data} at http://127.0.0.1:{port} with {replicas} replicas on "
        f"{stores} store(s) behind HAProxy (admin key {key}; processes in "
        f"{data / 'replicas.json'})",
        highlight=False,
        soft_wrap=True,
    )
    group.run()


def _admin(server: str, key: str | None) -> object:
    from mindstream.client import ServiceClient

    return ServiceClient(server, key or os.environ.get("MINDSTREAM_ADMIN_KEY") or "")


@users_app.command("add")
@clean_errors
def add_user(
    name: Annotated[str, typer.Argument(help="The new user's name.")],
    server: ServerOption,
    admin_key: AdminKey = None,
) -> None:
    """Create a user; print their API key (shown this once)."""
    created = _admin(server, admin_key).call("POST", "/admin/users", json={"name": name})  # type: ignore[attr-defined]
    console.print(f"user {created['user']}: key {created['key']}", highlight=False, soft_wrap=True)


@users_app.command("list")
@clean_errors
def list_users(server: ServerOption, admin_key: AdminKey = None) -> None:
    """List the users."""
    table = Table("user")
    for name in _admin(server, admin_key).call("GET", "/admin/users"):  # type: ignore[attr-defined]
        table.add_row(name)
    console.print(table)


@users_app.command("remove")
@clean_errors
def remove_user(
    name: Annotated[str, typer.Argument(help="The user to delete, with all their memories.")],
    server: ServerOption,
    admin_key: AdminKey = None,
) -> None:
    """Delete a user: their memories, reflections, key and scheduled reflection."""
    done = _admin(server, admin_key).call("DELETE", f"/admin/users/{name}")  # type: ignore[attr-defined]
    console.print(f"removed {done['user']} and {done['memories_removed']} memories")


@clean_errors
def mcp(
    server: ServerOption,
    api_key: Annotated[
        str | None,
        typer.Option("--api-key", help="The user's API key (default: MINDSTREAM_API_KEY)."),
    ] = None,
    transport: Annotated[
        str, typer.Option(help="stdio (an MCP client starts this command) or http.")
    ] = "stdio",
    port: Annotated[int, typer.Option(help="Port of the http transport (127.0.0.1).")] = 8765,
) -> None:
    """Serve one user's memory as MCP tools (remember, search, list, forget, correct, delete
    all, chat, export) to an assistant such as Claude Desktop: stdio, or streamable HTTP at http://127.0.0.1:PORT/mcp.
    The tools call the running `mindstream serve` at --server with the user's key."""
    from mindstream.client import ServiceClient, ServiceError
    from mindstream.mcp_tools import memory_server

    if transport not in ("stdio", "http"):
        raise ValueError(f"--transport: expected stdio or http, got {transport!r}")
    client = ServiceClient(server, api_key)
    try:
        client.stats()  # a wrong key or a stopped service is found at once ...
    except ServiceError as error:
        if transport == "http":
            raise
        # ... but an MCP client that started this command shows only "connection closed"
        # when it exits: it starts, and every tool answers with the error the client can show.
        print(f"warning: {error}; every tool will answer with it", file=sys.stderr)
    tools = memory_server(client)
    if transport == "stdio":
        tools.run("stdio")
    else:
        tools.run("streamable-http", host="127.0.0.1", port=port)
