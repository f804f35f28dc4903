"""Shared pieces of the command line: clean one-line errors, and the configuration options
every command takes, turned into one `Parts` (the composition root)."""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from mindstream.client import ServiceError
from mindstream.lm import LMError
from mindstream.memory import MemoryStreamError
from mindstream.sim.errors import SimError

F = TypeVar("F", bound=Callable[..., Any])
console = Console()
errors = Console(stderr=True)

MODEL_OPTION_HELP = (
    "Model spec: local:smollm2-135m (default, embedded), hf:<folder>, openai:<model> (any "
    "OpenAI-compatible server: vLLM, llama.cpp, LM Studio, transformers serve, OpenAI; with "
    "--base-url), ollama:<model>."
)


def offline_environment() -> None:
    """Nothing may reach a model hub at run time."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.setdefault(name, "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


def clean_errors(command: F) -> F:
    """Show the framework's typed errors as one line and exit 2, never a deep traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (
            ServiceError,
            LMError,
            MemoryStreamError,
            SimError,
            ValueError,
            FileNotFoundError,
            KeyError,
        ) as error:
            # Messages hold brackets ("pip install 'mindstream[serve]'"): not rich markup.
            errors.print(
                f"[bold red]error:[/] {escape(str(error))}", highlight=False, soft_wrap=True
            )
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


# The options `configured` adds to a command: (name, annotation, configuration key).
CONFIG_OPTIONS: list[tuple[str, Any, str | None]] = [
    (
        "config",
        Annotated[
            Path | None,
            typer.Option(
                "--config",
                help="YAML configuration file (MINDSTREAM_CONFIG); --show-config prints every "
                "field. Environment variables (MINDSTREAM_SECTION__FIELD) override it, flags "
                "override both.",
                rich_help_panel="Configuration",
            ),
        ],
        None,
    ),
    (
        "model",
        Annotated[
            str | None,
            typer.Option("--model", "-m", help=MODEL_OPTION_HELP, rich_help_panel="Configuration"),
        ],
        "model.spec",
    ),
    (
        "base_url",
        Annotated[
            str | None,
            typer.Option(
                "--base-url",
                help="The server of an openai: model, e.g. http://127.0.0.1:8000/v1 "
                "(default: OPENAI_BASE_URL, else api.openai.com). The API key is read from "
                "OPENAI_API_KEY.",
                rich_help_panel="Configuration",
            ),
        ],
        "model.served.base_url",
    ),
    (
        "scorer",
        Annotated[
            str | None,
            typer.Option(
                "--scorer",
                help="How ratings, yes/no and choices are asked: auto (probe the server once), "
                "local, systemone, logprobs, generate (parse the reply).",
                rich_help_panel="Configuration",
            ),
        ],
        "model.scorer",
    ),
    (
        "max_concurrency",
        Annotated[
            int | None,
            typer.Option(
                "--max-concurrency",
                help="Requests in flight at once to a model server.",
                rich_help_panel="Configuration",
            ),
        ],
        "model.served.max_concurrency",
    ),
    (
        "show_config",
        Annotated[
            bool,
            typer.Option(
                "--show-config",
                help="Print the effective configuration (YAML) and exit.",
                rich_help_panel="Configuration",
            ),
        ],
        None,
    ),
]


def configured(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command the configuration options and call it with `parts`, the `Parts` built
    from its config file, the environment and its flags. The command declares `parts`."""
    # Commands import `Parts` for type checking only; its annotation needs no real class here.
    signature = inspect.signature(command, locals={"Parts": Any}, eval_str=True)
    own = [p for p in signature.parameters.values() if p.name != "parts"]
    added = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=False if name == "show_config" else None,
            annotation=annotation,
        )
        for name, annotation, _ in CONFIG_OPTIONS
    ]

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> Any:
        from mindstream.compose import Parts

        given = {name: kwargs.pop(name) for name, _, _ in CONFIG_OPTIONS}
        flags = {key: given[name] for name, _, key in CONFIG_OPTIONS if key is not None}
        parts = Parts.load(given["config"], flags)
        if given["show_config"]:
            console.print(parts.config.to_yaml(), highlight=False, markup=False, end="")
            raise typer.Exit(0)
        return command(parts=parts, **kwargs)

    parameters = own + added
    wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    del wrapper.__wrapped__  # typer must read the new signature, not the command's
    return wrapper
