"""The `mindstream` command line."""

from __future__ import annotations

import logging
from importlib.metadata import entry_points

import typer

from mindstream import (
    cli_lm,
    cli_memory,
    cli_model,
    cli_reflection,
    cli_serve,
    cli_sim,
    cli_teach,
)
from mindstream.cli_support import clean_errors, configured, offline_environment
from mindstream.compose import Parts

app = typer.Typer(
    help="mindstream: agents that remember, reflect and learn from feedback, on the embedded "
    "model or any served one.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(cli_lm.app, name="lm")
app.add_typer(cli_memory.app, name="memory")
app.add_typer(cli_sim.app, name="sim")
app.add_typer(cli_model.app, name="model")
app.add_typer(cli_serve.users_app, name="users")
app.command()(cli_serve.serve)
app.command()(cli_serve.mcp)
app.command()(cli_reflection.reflect)
app.command()(cli_reflection.refine)
app.command()(cli_teach.ask)
app.command()(cli_teach.teach)
# Command groups of packages above this one (the lab's `eval` and `train`), found by entry point
# so that imports keep flowing downward.
for command_group in entry_points(group="mindstream.commands"):
    app.add_typer(command_group.load(), name=command_group.name)


@app.command()
@clean_errors
@configured
def demo(parts: Parts) -> None:
    """A short tour of the model layer and the memory stream (`make demo` runs a town)."""
    from mindstream.demo import run_demo

    run_demo(parts)


def main() -> None:
    offline_environment()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app()
