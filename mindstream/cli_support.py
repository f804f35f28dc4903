"""Shared pieces of the command line: clean one-line errors and model construction."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console

from lm import LMError, LocalModelConfig, Scorer, resolve_model
from lm.accounting import CallLedger
from memory import MemoryStreamError
from mindstream.experiments.openbookqa import DataError
from sim.errors import SimError

F = TypeVar("F", bound=Callable[..., Any])
console = Console()
errors = Console(stderr=True)

MODEL_OPTION_HELP = (
    "Model spec: local:smollm2-135m (default, embedded), hf:<folder>, openai:<model>, "
    "ollama:<model>."
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
            LMError,
            MemoryStreamError,
            DataError,
            SimError,
            ValueError,
            FileNotFoundError,
            KeyError,
        ) as error:
            errors.print(f"[bold red]error:[/] {error}", highlight=False)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def build_model(spec: str, ledger: CallLedger | None = None, **settings: Any) -> Any:
    local_settings = LocalModelConfig(**{k: v for k, v in settings.items() if v is not None})
    return resolve_model(spec, settings=local_settings, ledger=ledger)


def require_scorer(model: Any, spec: str) -> Scorer:
    if not isinstance(model, Scorer):
        raise LMError(
            f"{spec} exposes no log-probabilities; scoring commands need a local model "
            "(local:smollm2-135m or hf:<folder>)"
        )
    return model
